"""What a secret looks like: the replacement marker, the tests a value must pass to be taken for a
secret, and the rules for tokens with a known prefix (Anthropic, OpenAI, GitHub, GitLab, Slack,
Stripe, Google, AWS, npm, PyPI, Hugging Face, SendGrid, Twilio, Mailgun, Shopify, DigitalOcean,
Vault, age, Databricks, Linear, Postman, Doppler, Notion, Telegram, Discord, JWTs, PEM blocks).

A rule is (kind, hints, pattern, how): one of the lower-case `hints` must occur in the text for
the pattern to run, or, where a literal says too little (`key`, `:`), `hints` is a pattern
that finds, in the lower-cased text, a part every match holds (cheaper to look for than the
rule's own); `how` is "" (the whole match is the secret), "keep" (the `keep` group stays),
"random" (only when the match mixes digits and upper case), "named" (the `value` group, when it
passes `plausible_secret_word`) or a function of the match.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# start of a token: not preceded by a word character, or right after a literal \n, \r or \t escape
START = r"(?:(?<![A-Za-z0-9_])|(?<=\\[nrt]))"
END = r"(?![A-Za-z0-9_\-])"
PLACEHOLDER = ("$", "%", "{", "<", "[REDACTED", "*", "=")
Replacement = Callable[[re.Match[str]], str] | str
Rule = tuple[str, tuple[str, ...] | re.Pattern[str], re.Pattern[str], Replacement]


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def looks_random(token: str) -> bool:
    """Real keys mix digits and upper case; hyphenated prose (`sk-learn-style-…`) does not."""
    return any(c.isdigit() for c in token) and any(c.isupper() for c in token)


_CODE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|[A-Za-z_]\w*\(\)")
_NOT_A_WORD = ("$", "%", "{", "<", "[REDACTED", "*", "-", "/", "~", "./", "http", "(")


def plausible_secret_word(value: str) -> bool:
    """A value named as a secret in prose or a flag: not a placeholder, path or plain word."""
    if len(value) < 6 or value.startswith(_NOT_A_WORD) or value.lower() in ("true", "false", "null", "none"):
        return False
    if value.isdigit():
        return len(value) >= 8
    if _CODE.fullmatch(value):  # options.apiKey, settings.db_password, getToken()
        return False
    return any(c.isdigit() for c in value) or any(c in "!@#$%^&*+=?" for c in value)


def literal_value(value: str) -> bool:
    """A value where only a password can stand (`-pVALUE`, `Pwd=VALUE`): anything but a placeholder
    or a reference to one (`$PASS`, `{password}`, `<password>`, `***`)."""
    return bool(value) and not value.startswith(PLACEHOLDER) and not _CODE.fullmatch(value)


def named(kind: str, test: Callable[[str], bool] = plausible_secret_word) -> Callable[[re.Match[str]], str]:
    """Replace the `value` group (trailing punctuation kept) when it passes `test`."""
    def replace(match: re.Match[str]) -> str:
        value = match["value"]
        trimmed = value.rstrip(".,:;!?)")
        quoted = len(trimmed) >= 2 and trimmed[0] == trimmed[-1] and trimmed[0] in "'\""
        if not test(trimmed[1:-1] if quoted else trimmed):
            return match[0]
        start, end = match.start("value") - match.start(), match.end("value") - match.start()
        return f"{match[0][:start]}{marker(kind)}{value[len(trimmed):]}{match[0][end:]}"

    return replace


def replacer(kind: str, how: Replacement) -> Replacement:
    if how == "keep":
        return lambda match: f"{match['keep']}{marker(kind)}"
    if how == "random":
        return lambda match: marker(kind) if looks_random(match[0]) else match[0]
    if how == "named":
        return named(kind)
    return how if callable(how) else marker(kind)


PREFIXED: list[Rule] = [
    ("private-key", ("private key-----",), re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----", re.DOTALL), ""),
    ("private-key", ("private key-----",), re.compile(  # a block cut off before its END line
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:\\[nr]|[\sA-Za-z0-9+/=:\-,])*"), ""),
    ("slack-webhook", ("hooks.slack.com",), re.compile(
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]+"), ""),
    ("discord-webhook", ("discord",), re.compile(
        r"https://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d+/[A-Za-z0-9_\-]+"), ""),
    ("telegram-bot-token", re.compile(r"\d{8}:"), re.compile(
        rf"(?P<keep>\b(?:bot)?\d{{8,10}}:)[A-Za-z0-9_\-]{{35}}{END}"), "keep"),
    ("anthropic-key", ("sk-ant-",), re.compile(rf"{START}sk-ant-[A-Za-z0-9_\-]{{20,}}"), ""),
    ("stripe-key", ("k_live_", "k_test_"), re.compile(rf"{START}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{{16,}}"), ""),
    ("openai-key", ("sk-",), re.compile(rf"{START}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{{20,}}"), "random"),
    ("github-token", ("gh", "github_pat_"), re.compile(
        rf"{START}(?:gh[pousr]_[A-Za-z0-9]{{30,}}|github_pat_[A-Za-z0-9_]{{40,}})"), ""),
    ("slack-token", ("xox", "xapp-"), re.compile(rf"{START}(?:xox[abprs]|xapp)-[A-Za-z0-9\-]{{10,}}"), ""),
    ("aws-secret-key", ("akia", "asia"), re.compile(  # credentials.csv: the key id, then its secret
        r"(?P<keep>(?:AKIA|ASIA)[A-Z0-9]{16}[\"']?[ \t]*[,;|\t:][ \t]*[\"']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])"),
     "keep"),
    ("aws-access-key", ("akia", "asia"), re.compile(rf"{START}(?:AKIA|ASIA)[A-Z0-9]{{16}}(?![A-Za-z0-9])"), ""),
    ("aws-secret-key", ("aws_secret_access_key",), re.compile(  # `= VALUE`, `: VALUE` or `set … VALUE`
        r"(?P<keep>aws_secret_access_key[\"']?(?:\s*[:=]\s*|\s+)[\"']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])",
        re.IGNORECASE), "keep"),
    ("aws-session-token", ("aws_session_token",), re.compile(
        r"(?P<keep>aws_session_token[\"']?(?:\s*[:=]\s*|\s+)[\"']?)[A-Za-z0-9/+=]{16,}", re.IGNORECASE), "keep"),
    ("jwt", ("eyj",), re.compile(
        rf"{START}eyJ[A-Za-z0-9_\-]{{8,}}\.eyJ[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]{{8,}}"), ""),
    ("gitlab-token", ("glpat-", "gldt-", "glrt-", "glptt-"), re.compile(
        rf"{START}(?:glpat|gldt|glrt|glptt)-[A-Za-z0-9_\-]{{20,}}"), ""),
    ("huggingface-token", ("hf_",), re.compile(rf"{START}hf_[A-Za-z0-9]{{30,}}"), "random"),
    ("npm-token", ("npm_",), re.compile(rf"{START}npm_[A-Za-z0-9]{{36}}"), ""),
    ("pypi-token", ("pypi-",), re.compile(rf"{START}pypi-AgE[A-Za-z0-9_\-]{{40,}}"), ""),
    ("google-oauth", ("ya29.", "gocspx-"), re.compile(
        rf"{START}(?:ya29\.[A-Za-z0-9_\-]{{20,}}|GOCSPX-[A-Za-z0-9_\-]{{20,}})"), ""),
    ("google-api-key", ("aiza",), re.compile(rf"{START}AIza[A-Za-z0-9_\-]{{35}}"), ""),
    ("sendgrid-key", ("sg.",), re.compile(rf"{START}SG\.[A-Za-z0-9_\-]{{16,32}}\.[A-Za-z0-9_\-]{{16,64}}"), ""),
    ("twilio-key", ("sk",), re.compile(rf"{START}SK[0-9a-fA-F]{{32}}{END}"), ""),
    ("mailgun-key", ("key-",), re.compile(rf"{START}key-[0-9a-zA-Z]{{32}}{END}"), ""),
    ("shopify-token", ("shp",), re.compile(rf"{START}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{{32}}{END}"), ""),
    ("digitalocean-token", ("_v1_",), re.compile(rf"{START}do[opr]_v1_[a-f0-9]{{64}}{END}"), ""),
    ("vault-token", ("hvs.", "hvb.", "hvr."), re.compile(rf"{START}hv[sbr]\.[A-Za-z0-9_\-]{{20,}}"), ""),
    ("age-key", ("age-secret-key-",), re.compile(r"AGE-SECRET-KEY-1[0-9A-Z]{58}"), ""),
    ("databricks-token", ("dapi",), re.compile(rf"{START}dapi[0-9a-f]{{32}}(?:-\d)?{END}"), ""),
    ("linear-key", ("lin_api_",), re.compile(rf"{START}lin_api_[A-Za-z0-9]{{40}}{END}"), ""),
    ("postman-key", ("pmak-",), re.compile(rf"{START}PMAK-[0-9a-f]{{24}}-[0-9a-f]{{34}}{END}"), ""),
    ("doppler-token", ("dp.",), re.compile(rf"{START}dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{{40,}}"), ""),
    ("notion-token", ("ntn_", "secret_"), re.compile(
        rf"{START}(?:ntn_[A-Za-z0-9]{{40,}}|secret_[A-Za-z0-9]{{43}}{END})"), ""),
]
