"""Rebuild a Claude Code transcript (JSONL) from cctrace's exports of it.

cctrace (github.com/jimmc414/cctrace, MIT) exported its own development session twice: as XML
(`conversation_full.xml`: every line of the session with its uuid, parent, timestamp and content blocks, up to
the moment of that export) and later as markdown (`conversation_full.md`: the whole session). The XML is
structured, so the lines it holds come from it. The markdown's later sections come after them: each is
`**[YYYY-MM-DD HH:MM:SS]**`, then `### 👤 User` or `### 🤖 Assistant (model)`, then the text, a thinking block
(`💭 Internal Reasoning`), a tool call (`🔧 **Tool Use: NAME** (ID: toolu_…)` and its JSON input) or a tool
result (`📊 **Tool Result:**`), sections separated by `---` lines. (The markdown is not used for the earlier
part: a tool result there prints an export of the session itself, whose sections cannot be told apart.)

usage: python rebuild.py conversation_full.xml conversation_full.md OUT.jsonl
"""

from __future__ import annotations

import json
import re
import sys
import uuid
import xml.etree.ElementTree as ET

NS = "{https://claude.ai/session-export/v1}"
_HEAD = re.compile(r"^\s*\*\*\[(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\]\*\*\s*\n+### (?P<who>👤 User|🤖 Assistant)[^\n]*\n",
                   re.S)
_TOOL_USE = re.compile(r"🔧 \*\*Tool Use: (?P<name>[^*]+)\*\* \(ID: (?P<id>[^)]+)\)\s*```json\n(?P<input>.*?)\n```", re.S)
_RESULT = re.compile(r"📊 \*\*Tool Result:\*\*\s*```\n?(?P<out>.*)```", re.S)
_THINKING = re.compile(r"<details>\s*<summary>💭 Internal Reasoning[^<]*</summary>\s*```\n?(?P<text>.*?)```\s*</details>", re.S)
_MODEL = "claude-opus-4-20250514"


def _arguments(text: str) -> dict:
    try:
        return json.loads(text)
    except ValueError:
        return {"raw": text}


def xml_lines(root: ET.Element) -> tuple[list[dict], str, str]:
    """(lines, session id, cwd) of the XML export."""
    meta = root.find(f"{NS}metadata")
    session = meta.findtext(f"{NS}session-id") or str(uuid.uuid4())
    cwd = meta.findtext(f"{NS}working-directory") or "/"
    lines = []
    for message in root.find(f"{NS}messages"):
        who = message.findtext(f"{NS}event-type")
        content = message.find(f"{NS}content")
        if who not in ("user", "assistant") or content is None:
            continue
        blocks: list[dict] = [{"type": "text", "text": content.text.strip()}] if (content.text or "").strip() else []
        for block in content:
            tag = block.tag.removeprefix(NS)
            if tag == "text":
                blocks.append({"type": "text", "text": block.text or ""})
            elif tag == "thinking":
                blocks.append({"type": "thinking", "thinking": (block.text or "").strip(), "signature": ""})
            elif tag == "tool-use":
                blocks.append({"type": "tool_use", "id": block.get("id"), "name": block.get("name"),
                               "input": _arguments(block.findtext(f"{NS}input") or "{}")})
            elif tag == "tool-result":
                blocks.append({"tool_use_id": block.get("tool-use-id"), "type": "tool_result",
                               "content": block.text or ""})
        if not blocks:
            continue
        if who == "user" and [b["type"] for b in blocks] == ["text"]:
            body: list[dict] | str = blocks[0]["text"]
        else:
            body = blocks
        lines.append(_line(who, body, message.get("uuid"), message.get("parent-uuid"), message.get("timestamp"),
                           session, cwd))
    return lines, session, cwd


def _line(who: str, content, me: str, parent: str | None, timestamp: str, session: str, cwd: str) -> dict:
    message: dict = {"role": who, "content": content}
    if who == "assistant":
        message = {"type": "message", "model": _MODEL, **message}
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session,
            "version": "1.0.38", "gitBranch": "main", "type": who, "message": message, "uuid": me,
            "timestamp": timestamp}


def sections(markdown: str) -> list[tuple[str, str, str]]:
    """(timestamp, 'user'|'assistant', body) of each markdown section, in file order."""
    out: list[list[str]] = []
    for part in re.split(r"\n---\n", markdown):
        if m := _HEAD.match(part):
            out.append([m["ts"], "user" if "User" in m["who"] else "assistant", part[m.end():]])
        elif out:  # a `---` in the message's own markdown
            out[-1][2] += "\n---\n" + part
    return [(ts, who, body.strip()) for ts, who, body in out]


def md_blocks(who: str, body: str, last_tool: str | None) -> tuple[list[dict] | str, str | None]:
    if who == "user":
        if m := _RESULT.search(body):
            return [{"tool_use_id": last_tool or "toolu_unknown", "type": "tool_result",
                     "content": m["out"].rstrip("\n")}], last_tool
        return body, last_tool
    content: list[dict] = []
    rest = body
    if m := _THINKING.search(rest):
        content.append({"type": "thinking", "thinking": m["text"].strip(), "signature": ""})
        rest = rest[:m.start()] + rest[m.end():]
    if m := _TOOL_USE.search(rest):
        if text := rest[:m.start()].strip():
            content.append({"type": "text", "text": text})
        content.append({"type": "tool_use", "id": m["id"], "name": m["name"].strip(), "input": _arguments(m["input"])})
        return content, m["id"]
    if rest.strip():
        content.append({"type": "text", "text": rest.strip()})
    return content, last_tool


def convert(xml_text: str, markdown: str) -> list[dict]:
    lines, session, cwd = xml_lines(ET.fromstring(xml_text))
    parts = sections(markdown)
    last = lines[-1]["timestamp"][:19].replace("T", " ")
    start = max(i for i, (ts, _, _) in enumerate(parts) if ts <= last) + 1  # the markdown's first section after the XML
    parent, last_tool = lines[-1]["uuid"], None
    for n, (ts, who, body) in enumerate(parts[start:], start):
        content, last_tool = md_blocks(who, body, last_tool)
        if not content:
            continue
        me = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{session}/{n}"))
        lines.append(_line(who, content, me, parent, ts.replace(" ", "T") + ".000Z", session, cwd))
        parent = me
    return lines


def main(argv: list[str]) -> int:
    xml_path, md_path, target = argv
    with open(xml_path, encoding="utf-8") as x, open(md_path, encoding="utf-8") as m:
        lines = convert(x.read(), m.read())
    with open(target, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    print(f"{len(lines)} lines -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
