"""Replace secrets with `[REDACTED:<kind>]` before anything is stored or sent to a model.

The one redaction function, applied wherever text is written or leaves the process. Four classes:
known prefixes (redact_rules.py); values known by where they stand: URL credentials, CLI password
flags, connection strings, `*_KEY=…` variables, netrc, passwords in prose (redact_shapes.py);
names and flags (`api_key: …`, `--password …`, `Authorization: …`, "the token is …"); and
high-entropy tokens in prose (redact_entropy.py). The replacement never contains quotes or backslashes, so redacting
inside JSON keeps it valid. uuids, git SHAs, hashes, paths and identifiers are left alone.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from memory_pipeline.models import Message, ToolCall, ToolResult, Transcript
from memory_pipeline.stages.redact_entropy import redact_random_tokens
from memory_pipeline.stages.redact_rules import PREFIXED, Rule, marker, replacer
from memory_pipeline.stages.redact_shapes import SHAPES

SECRET_NAME = (
    r"[A-Za-z0-9_.\-]*?(?:api[_\-]?key|access[_\-]?key(?:[_\-]?id)?|secret[_\-]?key|private[_\-]?key|"
    r"secret|token|password|passwd|(?:db|database|key)[_\-]?pass)"
)
SECRET_NAME_ONLY = re.compile(SECRET_NAME, re.IGNORECASE)


def _plausible_value(value: str, *, quoted: bool) -> bool:
    """A value assigned to a secret-looking name that is a literal, not code or a placeholder."""
    if value.startswith(("$", "%", "{", "<", "[REDACTED", "=", "*")):
        return False
    if value.lower() in ("true", "false", "null", "none"):
        return False
    if quoted:
        return len(value) >= 4
    # unquoted, it is more likely code (settings.db_password, csrfToken, str): ask for a digit, no short dotted path
    return len(value) >= 8 and any(c.isdigit() for c in value) and ("." not in value or len(value) >= 32)


def _assignment(match: re.Match[str]) -> str:
    quote, value = match["quote"], match["value"]
    if not _plausible_value(value, quoted=bool(quote)):
        return match[0]
    return f"{match['name']}{match['sep']}{quote}{marker('generic-secret-assignment')}"  # closing quote stays


NAMED: list[Rule] = [
    ("auth-header", ("authorization",), re.compile(
        r"(?P<keep>\bAuthorization[\"']?\s*[:=]\s*[\"']?(?:Basic|Token|Digest|ApiKey)\s+)[A-Za-z0-9\-._~+/=]{8,}",
        re.IGNORECASE), "keep"),
    ("secret-flag", ("--", "-p"), re.compile(
        r"(?P<keep>(?<![\w-])--?(?:password|passwd|pass|token|api-?key|secret|access-key|secret-key|auth-token|"
        r"client-secret|private-key)(?:\s+|=)[\"']?)(?P<value>[^\s\"'`]+)", re.IGNORECASE), "named"),
    ("bearer-token", ("bearer",), re.compile(r"(?P<keep>\bBearer\s+)[A-Za-z0-9\-._~+/]{16,}=*", re.IGNORECASE), "keep"),
    ("generic-secret-assignment", re.compile(  # the name's last word and the sign after it
        r"(?:key(?:[_\-]?id)?|secret|token|pass(?:w(?:or)?d)?)[\"']?[ \t]*[:=]"), re.compile(
        rf"(?P<name>\b{SECRET_NAME})(?P<sep>[\"']?[ \t]*(?::=|==|[:=])[ \t]*)(?P<quote>[\"']?)"
        r"(?P<value>[^\s\"'\\,;()\[\]{}]+)(?=(?P=quote))(?![^\s\"'\\,;})\]])",
        re.IGNORECASE), _assignment),
    ("secret-in-prose", re.compile(  # the name's last word and the verb or sign after it
        r"(?:key|token|passw(?:or)?d|passphrase|secret|credentials?)s?"
        r"(?:\s+(?:is|was|are|were|reads|now|will|should)\s|\s*[:=])"), re.compile(
        r"(?P<keep>\b(?:(?:api|access|secret|private|deploy|auth|signing|master)[ _\-]?key|"
        r"(?:(?:auth|access|api|bearer|refresh|bot|personal access)[ _\-]?)?token|password|passwd|passphrase|"
        r"secret(?:[ _\-]access[ _\-]key)?|credentials?)s?"
        r"(?:\s+(?:is|was|are|were|reads|is now|now is|will be|should be)\s+|\s*[:=]\s*)[`\"']?)"
        r"(?P<value>[^\s`\"',;()\[\]{}<>]{6,})", re.IGNORECASE), "named"),
]
# the order matters: whole tokens first, then values known by where they stand, then names
COMPILED = [(hints, pattern, replacer(kind, how)) for kind, hints, pattern, how in PREFIXED + SHAPES + NAMED]


def _may_match(hints: tuple[str, ...] | re.Pattern[str], lower: str) -> bool:
    """A rule's hints found in the lower-cased text: one of its literals, or its part pattern (lower case:
    a search five times as fast as the same pattern ignoring case in the text)."""
    if isinstance(hints, re.Pattern):
        return hints.search(lower) is not None
    return any(hint in lower for hint in hints)


SHORT = 256  # a string up to this long is redacted once per process and remembered (REMEMBERED of them):
REMEMBERED = 8192  # a transcript repeats its short fields (cwd, type, version, a session's ids) on every line


def redact(text: str, *, entropy: bool = True) -> str:
    """The text with every secret the rules recognize replaced by `[REDACTED:<kind>]`
    (`entropy=False` leaves unnamed random tokens: a field that is a signature or an id)."""
    return _remembered(text, entropy) if len(text) <= SHORT else _redact(text, entropy)


@functools.lru_cache(maxsize=REMEMBERED)
def _remembered(text: str, entropy: bool) -> str:
    return _redact(text, entropy)


def _redact(text: str, entropy: bool) -> str:
    lower = text.lower()
    for hints, pattern, replacement in COMPILED:
        if _may_match(hints, lower):
            redacted = pattern.sub(replacement, text)
            if redacted != text:  # lower-cased again only when a rule replaced something
                text, lower = redacted, redacted.lower()
    return redact_random_tokens(text, marker("high-entropy-token")) if entropy else text


def _secret_field(key: object, value: str) -> bool:
    """`{"api_key": "…"}` once parsed: the name is a key and the value a separate string."""
    if not isinstance(key, str) or not SECRET_NAME_ONLY.fullmatch(key) or any(c.isspace() for c in value):
        return False
    return _plausible_value(value, quoted=True)


_OPAQUE_FIELD = re.compile(r"(?:signature|uuid|id|hash|sha\d*|digest|checksum)$", re.IGNORECASE)


def _field(key: object, value: Any) -> Any:
    if isinstance(value, str) and _secret_field(key, value):
        return marker("generic-secret-assignment")
    if isinstance(value, str) and isinstance(key, str) and _OPAQUE_FIELD.search(key):
        return redact(value, entropy=False)  # opaque by design: ids and signatures are not keys
    return redact_value(value)


def redact_value(value: Any) -> Any:
    """A copy of a JSON-like structure with every string redacted (and secret-named fields blanked)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _field(k, v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    return value


def _message(message: Message) -> Message:
    return message.model_copy(update={
        "text": redact(message.text),
        "tool_calls": [ToolCall(id=c.id, name=c.name, input=redact(c.input)) for c in message.tool_calls],
        "tool_results": [
            ToolResult(call_id=r.call_id, text=redact(r.text), is_error=r.is_error) for r in message.tool_results
        ],
    })


def redact_transcript(transcript: Transcript) -> Transcript:
    """The transcript with secrets removed from message text, tool inputs, tool results and title."""
    return transcript.model_copy(update={
        "title": redact(transcript.title) if transcript.title else transcript.title,
        "messages": [_message(m) for m in transcript.messages],
    })


def redact_jsonl_line(line: str) -> str:
    """One JSONL line redacted: a JSON line is walked value by value and stays valid JSON."""
    if not line.strip():
        return line
    try:
        decoded = json.loads(line)
    except (ValueError, RecursionError):
        return redact(line)
    cleaned = redact_value(decoded)
    return json.dumps(cleaned, ensure_ascii=False, separators=(",", ":")) if cleaned != decoded else line


def redact_jsonl_lines(lines: Iterable[str]) -> Iterator[str]:
    """Redact lines as they come (each may end with its newline, which is kept)."""
    for line in lines:
        body = line.removesuffix("\n")
        yield redact_jsonl_line(body) + line[len(body):]


def redact_jsonl(text: str) -> str:
    """Redact each line of a JSONL file; JSON lines are walked value by value and stay valid JSON."""
    return "\n".join(redact_jsonl_line(line) for line in text.split("\n"))
