"""Replace secrets with `[REDACTED:<kind>]` before anything is stored or sent to a model.

The replacement never contains quotes or backslashes, so redacting inside JSON keeps it valid.
Patterns are specific (known prefixes, key names) to leave prose, uuids, git SHAs and paths alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from memory_pipeline.models import Message, ToolCall, ToolResult, Transcript

# start of a token: not preceded by a word character, or right after a literal \n, \r or \t escape
START = r"(?:(?<![A-Za-z0-9_])|(?<=\\[nrt]))"
SECRET_NAME = (
    r"[A-Za-z0-9_.\-]*?(?:api[_\-]?key|access[_\-]?key(?:[_\-]?id)?|secret[_\-]?key|private[_\-]?key|"
    r"secret|token|password|passwd)"
)
SECRET_NAME_ONLY = re.compile(SECRET_NAME, re.IGNORECASE)


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _looks_random(token: str) -> bool:
    """Real keys mix digits and upper case; hyphenated prose (`sk-learn-style-…`) does not."""
    return any(c.isdigit() for c in token) and any(c.isupper() for c in token)


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


def _keep_prefix(kind: str) -> Callable[[re.Match[str]], str]:
    return lambda match: f"{match['keep']}{marker(kind)}"


def _random_only(kind: str) -> Callable[[re.Match[str]], str]:
    return lambda match: marker(kind) if _looks_random(match[0]) else match[0]


# (kind, cheap lower-case substrings one of which must occur, pattern, replacement)
Rule = tuple[str, tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], str] | str]
RULES: list[Rule] = [
    ("private-key", ("private key-----",), re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----", re.DOTALL), ""),
    ("private-key", ("private key-----",), re.compile(  # a block cut off before its END line
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:\\[nr]|[\sA-Za-z0-9+/=:\-,])*"), ""),
    ("url-password", ("://",), re.compile(
        r"(?P<keep>\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/@'\"\\\[\]]*:)(?P<pw>[^\s@/'\"\\\[\]]+)(?=@)"), "keep"),
    ("slack-webhook", ("hooks.slack.com",), re.compile(
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]+"), ""),
    ("anthropic-key", ("sk-ant-",), re.compile(rf"{START}sk-ant-[A-Za-z0-9_\-]{{20,}}"), ""),
    ("stripe-key", ("k_live_", "k_test_"), re.compile(rf"{START}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{{16,}}"), ""),
    ("openai-key", ("sk-",), re.compile(rf"{START}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{{20,}}"), "random"),
    ("github-token", ("gh", "github_pat_"), re.compile(
        rf"{START}(?:gh[pousr]_[A-Za-z0-9]{{30,}}|github_pat_[A-Za-z0-9_]{{40,}})"), ""),
    ("slack-token", ("xox",), re.compile(rf"{START}xox[abprs]-[A-Za-z0-9\-]{{10,}}"), ""),
    ("aws-access-key", ("akia", "asia"), re.compile(rf"{START}(?:AKIA|ASIA)[A-Z0-9]{{16}}(?![A-Za-z0-9])"), ""),
    ("aws-secret-key", ("aws_secret_access_key",), re.compile(
        r"(?P<keep>aws_secret_access_key[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])",
        re.IGNORECASE), "keep"),
    ("google-api-key", ("aiza",), re.compile(rf"{START}AIza[A-Za-z0-9_\-]{{35}}"), ""),
    ("bearer-token", ("bearer",), re.compile(r"(?P<keep>\bBearer\s+)[A-Za-z0-9\-._~+/]{16,}=*", re.IGNORECASE), "keep"),
    ("generic-secret-assignment", ("key", "secret", "token", "passw"), re.compile(
        rf"(?P<name>\b{SECRET_NAME})(?P<sep>[\"']?[ \t]*[:=][ \t]*)(?P<quote>[\"']?)"
        r"(?P<value>[^\s\"'\\,;()\[\]{}]+)(?=(?P=quote))(?![^\s\"'\\,;})\]])",
        re.IGNORECASE), _assignment),
]


def _replacer(kind: str, how: Callable[[re.Match[str]], str] | str) -> Callable[[re.Match[str]], str] | str:
    if how == "keep":
        return _keep_prefix(kind)
    if how == "random":
        return _random_only(kind)
    return how if callable(how) else marker(kind)


COMPILED = [(hints, pattern, _replacer(kind, how)) for kind, hints, pattern, how in RULES]


def redact(text: str) -> str:
    """The text with every secret the rules recognize replaced by `[REDACTED:<kind>]`."""
    lower = text.lower()
    for hints, pattern, replacement in COMPILED:
        if any(hint in lower for hint in hints):
            text = pattern.sub(replacement, text)
            lower = text.lower()
    return text


def _secret_field(key: object, value: str) -> bool:
    """`{"api_key": "…"}` once parsed: the name is a key and the value a separate string."""
    if not isinstance(key, str) or not SECRET_NAME_ONLY.fullmatch(key) or any(c.isspace() for c in value):
        return False
    return _plausible_value(value, quoted=True)


def redact_value(value: Any) -> Any:
    """A copy of a JSON-like structure with every string redacted (and secret-named fields blanked)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {
            k: marker("generic-secret-assignment") if isinstance(v, str) and _secret_field(k, v) else redact_value(v)
            for k, v in value.items()
        }
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


def redact_jsonl(text: str) -> str:
    """Redact each line of a JSONL file; JSON lines are walked value by value and stay valid JSON."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            decoded = json.loads(line)
        except (ValueError, RecursionError):
            lines[index] = redact(line)
            continue
        cleaned = redact_value(decoded)
        if cleaned != decoded:
            lines[index] = json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"))
    return "\n".join(lines)
