"""Replace secrets with `[REDACTED:<kind>]` before anything is stored or sent to a model.

The one redaction function, applied wherever text is written or leaves the process. Three classes:
known prefixes (Anthropic, OpenAI, GitHub, GitLab, Slack, Stripe, Google, AWS, npm, PyPI, Hugging
Face, JWTs, PEM blocks); names and flags (`KEY=…`, `--password …`, `aws configure set … VALUE`,
`Authorization: …`, URLs with credentials, "the token is …" in prose); and high-entropy tokens in
prose (redact_entropy.py). The replacement never contains quotes or backslashes, so redacting
inside JSON keeps it valid. uuids, git SHAs, hashes, paths and identifiers are left alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from memory_pipeline.models import Message, ToolCall, ToolResult, Transcript
from memory_pipeline.stages.redact_entropy import redact_random_tokens

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


_CODE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|[A-Za-z_]\w*\(\)")
_PLACEHOLDER = ("$", "%", "{", "<", "[REDACTED", "*", "-", "/", "~", "./", "http", "(")


def _plausible_secret_word(value: str) -> bool:
    """A value named as a secret in prose or a flag: not a placeholder, path or plain word."""
    if len(value) < 6 or value.startswith(_PLACEHOLDER) or value.lower() in ("true", "false", "null", "none"):
        return False
    if value.isdigit():
        return len(value) >= 8
    if _CODE.fullmatch(value):  # options.apiKey, settings.db_password, getToken()
        return False
    return any(c.isdigit() for c in value) or any(c in "!@#$%^&*+=?" for c in value)


def _named_value(kind: str) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        value = match["value"]
        trimmed = value.rstrip(".,:;!?")
        if not _plausible_secret_word(trimmed):
            return match[0]
        return f"{match['keep']}{marker(kind)}{value[len(trimmed):]}"

    return replace


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
    ("aws-secret-key", ("aws_secret_access_key",), re.compile(  # `= VALUE`, `: VALUE` or `set … VALUE`
        r"(?P<keep>aws_secret_access_key[\"']?(?:\s*[:=]\s*|\s+)[\"']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])",
        re.IGNORECASE), "keep"),
    ("aws-session-token", ("aws_session_token",), re.compile(
        r"(?P<keep>aws_session_token[\"']?(?:\s*[:=]\s*|\s+)[\"']?)[A-Za-z0-9/+=]{16,}", re.IGNORECASE), "keep"),
    ("jwt", ("eyj",), re.compile(rf"{START}eyJ[A-Za-z0-9_\-]{{8,}}\.eyJ[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]{{8,}}"), ""),
    ("gitlab-token", ("glpat-", "gldt-", "glrt-", "glptt-"), re.compile(
        rf"{START}(?:glpat|gldt|glrt|glptt)-[A-Za-z0-9_\-]{{20,}}"), ""),
    ("huggingface-token", ("hf_",), re.compile(rf"{START}hf_[A-Za-z0-9]{{30,}}"), "random"),
    ("npm-token", ("npm_",), re.compile(rf"{START}npm_[A-Za-z0-9]{{36}}"), ""),
    ("pypi-token", ("pypi-",), re.compile(rf"{START}pypi-AgE[A-Za-z0-9_\-]{{40,}}"), ""),
    ("google-oauth", ("ya29.", "gocspx-"), re.compile(
        rf"{START}(?:ya29\.[A-Za-z0-9_\-]{{20,}}|GOCSPX-[A-Za-z0-9_\-]{{20,}})"), ""),
    ("slack-token", ("xapp-",), re.compile(rf"{START}xapp-[A-Za-z0-9\-]{{10,}}"), ""),
    ("auth-header", ("authorization",), re.compile(
        r"(?P<keep>\bAuthorization[\"']?\s*[:=]\s*[\"']?(?:Basic|Token|Digest|ApiKey)\s+)[A-Za-z0-9\-._~+/=]{8,}",
        re.IGNORECASE), "keep"),
    ("basic-auth", ("-u ", "--user"), re.compile(
        r"(?P<keep>(?<![\w-])(?:-u|--user)[ =][^\s:\"']+:)(?P<value>[^\s\"'@]+)"), "named"),
    ("secret-flag", ("--", "-p"), re.compile(
        r"(?P<keep>(?<![\w-])--?(?:password|passwd|pass|token|api-?key|secret|access-key|secret-key|auth-token|"
        r"client-secret|private-key)(?:\s+|=)[\"']?)(?P<value>[^\s\"'`]+)", re.IGNORECASE), "named"),
    ("google-api-key", ("aiza",), re.compile(rf"{START}AIza[A-Za-z0-9_\-]{{35}}"), ""),
    ("bearer-token", ("bearer",), re.compile(r"(?P<keep>\bBearer\s+)[A-Za-z0-9\-._~+/]{16,}=*", re.IGNORECASE), "keep"),
    ("generic-secret-assignment", ("key", "secret", "token", "passw"), re.compile(
        rf"(?P<name>\b{SECRET_NAME})(?P<sep>[\"']?[ \t]*[:=][ \t]*)(?P<quote>[\"']?)"
        r"(?P<value>[^\s\"'\\,;()\[\]{}]+)(?=(?P=quote))(?![^\s\"'\\,;})\]])",
        re.IGNORECASE), _assignment),
    ("secret-in-prose", ("key", "token", "passw", "secret", "credential", "passphrase"), re.compile(
        r"(?P<keep>\b(?:(?:api|access|secret|private|deploy|auth|signing|master)[ _\-]?key|"
        r"(?:(?:auth|access|api|bearer|refresh|bot|personal access)[ _\-]?)?token|password|passwd|passphrase|"
        r"secret(?:[ _\-]access[ _\-]key)?|credentials?)s?"
        r"(?:\s+(?:is|was|are|were|reads|is now|now is|will be|should be)\s+|\s*[:=]\s*)[`\"']?)"
        r"(?P<value>[^\s`\"',;()\[\]{}<>]{6,})", re.IGNORECASE), "named"),
]


def _replacer(kind: str, how: Callable[[re.Match[str]], str] | str) -> Callable[[re.Match[str]], str] | str:
    if how == "keep":
        return _keep_prefix(kind)
    if how == "random":
        return _random_only(kind)
    if how == "named":
        return _named_value(kind)
    return how if callable(how) else marker(kind)


COMPILED = [(hints, pattern, _replacer(kind, how)) for kind, hints, pattern, how in RULES]


def redact(text: str, *, entropy: bool = True) -> str:
    """The text with every secret the rules recognize replaced by `[REDACTED:<kind>]`
    (`entropy=False` leaves unnamed random tokens: a field that is a signature or an id)."""
    lower = text.lower()
    for hints, pattern, replacement in COMPILED:
        if any(hint in lower for hint in hints):
            text = pattern.sub(replacement, text)
            lower = text.lower()
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
