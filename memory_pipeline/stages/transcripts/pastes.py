"""Claude Code's prompt history: which user turns hold a paste.

Claude Code expands a paste into the user's message before it writes the transcript, so the
transcript cannot tell pasted words from typed ones. Its prompt history (`~/.claude/history.jsonl`,
beside `projects/`) can: each entry keeps the prompt as shown while editing (`display`, with a
placeholder such as `[Pasted text #1 +12 lines]` where a paste went) and the pasted text
(`pastedContents: {"1": {"id": 1, "type": "text", "content": …}}`, or a `contentHash` when the text
was long and went to `paste-cache/`: the first 16 hex digits of its sha256), with the session id. A
user line of that session whose words are the entry's display with each placeholder expanded is a
pasted turn: the snapshot marks it (`PASTED_FIELD`), and the parser labels it `pasted`
(stages/provenance). A transcript can set the field itself, which only ever lowers its own words'
standing.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# the client's placeholder pattern (its bundled code: `\[(?:Pasted text #\d+(?: \+\d+ lines)?|…)\]`)
PLACEHOLDER = re.compile(r"\[(?:Pasted text #(\d+)(?: \+\d+ lines)?|\u2726 Team setup guide #(\d+)(?: \+\d+ lines)?|"
                         r"Image #(\d+)|\.\.\.Truncated text #(\d+) \+\d+ lines\.\.\.)\]")
PASTED_FIELD = "memoryPipelinePasted"  # set on a snapshot's user line that a history entry ties to a paste
MAX_PATTERN_CHARS = 200_000  # a history entry longer than this is not matched (the prompt is that long)


HASH_CHARS = 16  # the client names a stored paste by the first 16 hex digits of its text's sha256


@dataclass(frozen=True)
class HistoryPaste:
    """One history entry with a text paste: the prompt it sent, a paste stored by hash as a group
    (`h0`, `h1`, …) whose text must hash to it."""

    pattern: re.Pattern[str]
    hashes: tuple[str, ...] = ()

    def ties(self, words: str) -> bool:
        """Whether `words` are this entry's prompt, each hashed paste's text checked against its hash."""
        for text in dict.fromkeys((words, words.strip())):
            match = self.pattern.fullmatch(text)
            if match and all(hashlib.sha256(match.group(f"h{n}").encode()).hexdigest()[:HASH_CHARS] == digest
                             for n, digest in enumerate(self.hashes)):
                return True
        return False


def history_paste(entry: Any, session_id: str) -> HistoryPaste | None:
    """The entry as a pattern over the prompt it sent; None when it is of another session, holds no
    text paste, or is not shaped as the client writes it."""
    if not isinstance(entry, dict) or entry.get("sessionId") != session_id:
        return None
    display, contents = entry.get("display"), entry.get("pastedContents")
    if not isinstance(display, str) or not isinstance(contents, dict) or len(display) > MAX_PATTERN_CHARS:
        return None
    texts = {str(k): v for k, v in contents.items() if isinstance(v, dict) and v.get("type") == "text"}
    if not texts:
        return None
    parts: list[str] = []
    hashes: list[str] = []
    at, found = 0, False
    for match in PLACEHOLDER.finditer(display):
        number = next(g for g in match.groups() if g is not None)
        parts.append(re.escape(display[at:match.start()]))
        paste = texts.get(number)
        if paste is not None and isinstance(paste.get("content"), str):
            parts.append(re.escape(paste["content"]))
            found = True
        elif paste is not None and isinstance(paste.get("contentHash"), str):  # stored in paste-cache/
            parts.append(f"(?P<h{len(hashes)}>(?s:.+?))")
            hashes.append(paste["contentHash"].lower())
            found = True
        else:
            parts.append(re.escape(match.group(0)) if match.group(3) else r"(?s:.*?)")
        at = match.end()
    if not found:
        return None
    parts.append(re.escape(display[at:]))
    return HistoryPaste(re.compile("".join(parts)), tuple(hashes))


def history_pastes(lines: Iterable[str], session_id: str) -> list[HistoryPaste]:
    """The session's history entries that hold a text paste, from history.jsonl's lines."""
    found = []
    for line in lines:
        if session_id not in line:
            continue
        try:
            paste = history_paste(json.loads(line), session_id)
        except ValueError:
            continue
        if paste is not None:
            found.append(paste)
    return found


def _words(message: Any) -> str | None:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        words = [t for t in texts if isinstance(t, str)]
        if texts and len(words) == len(texts) == len(content):
            return "\n".join(words)
    return None


def mark_pasted(line: str, pastes: list[HistoryPaste]) -> str:
    """The transcript line, with `PASTED_FIELD` set when it is a user turn whose words some
    history entry's pattern matches whole; unchanged otherwise."""
    if not pastes or '"user"' not in line:
        return line
    try:
        record = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict) or record.get("type") != "user" or record.get(PASTED_FIELD) is True:
        return line
    words = _words(record.get("message"))
    if words is None or not any(p.ties(words) for p in pastes):
        return line
    record[PASTED_FIELD] = True
    return json.dumps(record, ensure_ascii=False) + ("\n" if line.endswith("\n") else "")
