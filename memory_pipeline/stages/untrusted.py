"""Values from a transcript or an event, written where a person reviews or an agent reads.

A transcript's fields (cwd, project, session name, titles) and everything quoted from it are
untrusted: whoever wrote the transcript chose them. Before such a value reaches REVIEW.md,
MEMORY.md, a project's CLAUDE.md / AGENTS.md, the briefing, the recovery pointer, the pack or the
daily log it passes through `inline`: one line, no HTML comment, no id marker the product would
parse back, no markdown structure at its start. `working_folder` and `project_name` check a folder
and a project name where they enter (a hook payload, a transcript, an event) and drop what fails.

A message's text inside the transcript the Observer reads (`block_text`) keeps its lines, but no
line of it can pass for a block header (`[09:01] [User] (m1):`, which says who said a block) or for
the tag that closes the data block: who said what comes from the transcript's structure only.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from memory_pipeline.stages.proposal_ids import ANY_ID

# every line break Python's splitlines knows, and the other control characters
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SPACE = re.compile(r"\s+")
_COMMENT = re.compile(r"<!--|--!?>")
NB_HYPHEN = "\u2011"
# what makes a line's start structure: a heading, a list item or checkbox, a quote, a table, a fence
_LEADING = re.compile(r"^(?:#+|[-*+](?=\s|\[)|\d+[.)](?=\s)|>|\||`{3,}|~{3,}|={3,}|-{3,})")
_SAFE_PROJECT = re.compile(r"[^\w.\-+@ ]")
PROJECT_CHARS = 100
# every line break str.splitlines knows besides "\n": each one ends a line for a reader too
_LINE_BREAK = re.compile(r"\r\n?|[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
# a line a reader could take for a block header: `[09:01] [User] (m1):`, `[User] (m1):`, `[User]:`,
# `[--:--] [Tool]`, after any spaces, invisible characters or escapes
_HEADER_LIKE = re.compile(
    r"^[\s\\\u200b-\u200f\u2060\ufeff]*\[[^\]\n]{0,40}\][ \t]*"
    r"(?:\[|\([^)\n]{0,20}\)[ \t]*:|:)")
HEADER_ESCAPE = "\\"
# characters a reader does not see but that change what it reads: NUL and the other control
# characters (a tab and a line break kept), and the bidi embeddings, overrides and isolates
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# the data block's tag, opening or closing, anywhere in a line
_BLOCK_TAG = re.compile(r"<(?=[ \t]*/?[ \t]*transcript)", re.IGNORECASE)


def has_control(text: str) -> bool:
    """A line break, tab or other control character: never part of a folder or a name."""
    return bool(_CONTROL.search(text or ""))


def one_line(text: str | None) -> str:
    """The text on one line: every run of spaces, tabs and line breaks becomes one space."""
    return _SPACE.sub(" ", _CONTROL.sub(" ", text or "")).strip()


def defuse_ids(text: str) -> str:
    """`p-20261120-004-k7q2` (or an old `p-20261120-004`) quoted from a transcript reads the same but
    is not an id (U+2011 hyphens)."""
    return ANY_ID.sub(lambda m: m.group("id").replace("-", NB_HYPHEN), text)


def inline(text: str | None) -> str:
    """An untrusted value made safe to write inside one markdown line the product writes: one
    line, HTML comment marks broken, id markers defused, leading structure escaped."""
    flat = defuse_ids(_COMMENT.sub(lambda m: m.group(0).replace("-", NB_HYPHEN), one_line(text)))
    return _LEADING.sub(lambda m: "\\" + m.group(0), flat, count=1)


def code_span(text: str | None) -> str:
    """An untrusted value shown as inline code: `inline`, in a span its backticks cannot close."""
    body = inline(text)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def working_folder(folder: str | None) -> str | None:
    """A session's working folder as recorded: absolute, no control characters, no `.` or `..`
    parts; None for anything else (a folder that cannot be trusted is not known)."""
    if not folder or has_control(folder) or not folder.startswith("/"):
        return None
    parts = folder.split("/")
    if any(part in (".", "..") for part in parts):
        return None
    return str(PurePosixPath(folder))


def project_name(name: str | None) -> str:
    """A project name as written into headings: one line of letters, digits, `.`, `_`, `-`, `+`,
    `@` and spaces (anything else becomes `-`), at most PROJECT_CHARS characters."""
    cleaned = _SAFE_PROJECT.sub("-", one_line(name))[:PROJECT_CHARS].strip(" .-")
    return "" if set(cleaned) <= {".", "-", " "} else cleaned


def fenced(text: str) -> list[str]:
    """`text` in a code fence longer than any backtick run inside it, so it cannot close the fence:
    how unreviewed notes reach an agent (the briefing's notes and pack, the recovery pointer)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}text", text, fence]


def plain_lines(text: str) -> str:
    """Every line break as "\\n", so a reader and a parser see the same lines."""
    return _LINE_BREAK.sub("\n", text)


def looks_like_header(line: str) -> bool:
    """A line that reads like a serialized block's header, escaped or not."""
    return bool(_HEADER_LIKE.match(line))


def block_text(text: str) -> str:
    """A message's text as it sits inside a serialized transcript block: its line breaks plain, each
    line that looks like a block header escaped with a leading backslash (`unescape_block_line`
    undoes it), and `<` before `transcript` made `‹`, so no message can start a block, say who
    said it, or close the data block."""
    lines = plain_lines(text).split("\n")
    escaped = (HEADER_ESCAPE + line if looks_like_header(line) else line for line in lines)
    return _BLOCK_TAG.sub("‹", "\n".join(escaped))


def unescape_block_line(line: str) -> str:
    """A line of `block_text` as the message wrote it (the tag's `‹` stays)."""
    if line.startswith(HEADER_ESCAPE) and looks_like_header(line[len(HEADER_ESCAPE):]):
        return line[len(HEADER_ESCAPE):]
    return line


def visible(text: str) -> str:
    """The text without NUL, the other control characters (tabs and line breaks kept) and the
    bidi overrides and isolates (U+202A-202E, U+2066-2069), which make a line read otherwise than
    it is: what every MCP answer passes through."""
    return _INVISIBLE.sub("", text.replace("\r\n", "\n"))
