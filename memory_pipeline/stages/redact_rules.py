"""What a secret looks like: the replacement marker, the tests a value must pass to be taken for a
secret, and the rules for tokens with a known prefix (Anthropic, OpenAI, GitHub, GitLab, Slack,
Stripe, Google, AWS, npm, PyPI, Hugging Face, SendGrid, Twilio, Mailgun, Shopify, DigitalOcean,
Vault, age, Databricks, Linear, Postman, Doppler, Notion, Telegram, Discord, Teams, 1Password, JWTs,
PEM blocks, and the other prefixed formats of gitleaks' rules, as their issuers publish them).

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


def mixed_case(token: str) -> bool:
    return any(c.isupper() for c in token) and any(c.islower() for c in token)


def random_letters(token: str) -> bool:
    """A run of random letters (a Hugging Face token has no digit): upper and lower case each a quarter
    or more of it; a CamelCase name has one capital a word, a snake_case one none."""
    letters = [c for c in token if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    return len(letters) >= 20 and 0.25 <= upper / len(letters) <= 0.75


def random_body(token: str) -> bool:
    """A token that mixes cases, or digits and letters (a hex or lower-case body)."""
    return mixed_case(token) or (any(c.isdigit() for c in token) and any(c.isalpha() for c in token))


AWS_KEY_ID = ("akia", "asia", "abia", "acca", "a3t")
KNOWN_PREFIXES = re.compile(  # the prefixes of the api-token rule below, lower case: one search finds any
    r"duffel_|dt0c01\.|flw(?:seck|pubk)_|ico-|nr(?:ak|js|ii)-|pplx-|pscale_|pnu_|pul-|rdme_|shippo_|tfp_|p8e-|ltai|"
    r"akcp|cmvmd|4b1d|clojars_|ez[at]k|eaa[acm]|fo1_|fm[12]|fio-u-|hrku-aa|_mmk|sha256~|rubygems_|tk-us-|"
    r"xkeysib-|sntry[su]_|sm_[aps]at_|sq0(?:atp|csp)-|dp\.pt\.|\.atlasv1\.|s-s4t2|api-[a-z0-9]{26}")


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
    if how == "random_or_long":  # a made-up name that happens to fit (API-ENDPOINTS…) is one case, no digits
        return lambda match: marker(kind) if random_body(match[0]) else match[0]
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
    ("telegram-bot-token", re.compile(r"\d{5}:"), re.compile(  # the bot's id and its secret: 5-16 digits, 34-35 characters
        rf"(?<!\d)\d{{5,16}}:(?P<body>[A-Za-z0-9_\-]{{34,35}}){END}"), lambda m: marker("telegram-bot-token")
     if mixed_case(m["body"]) else m[0]),
    ("teams-webhook", ("webhook.office.com",), re.compile(
        r"https://[A-Za-z0-9\-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@\-]+/IncomingWebhook/[A-Za-z0-9/\-]+"), ""),
    ("anthropic-key", ("sk-ant-",), re.compile(rf"{START}sk-ant-[A-Za-z0-9_\-]{{20,}}"), ""),
    ("stripe-key", ("k_live_", "k_test_", "k_prod_"), re.compile(
        rf"{START}(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{{10,}}"), ""),
    ("stripe-webhook-secret", ("whsec_",), re.compile(rf"{START}whsec_[A-Za-z0-9+/=]{{24,}}"), ""),
    ("openai-key", ("sk-",), re.compile(rf"{START}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{{20,}}"), "random"),
    ("github-token", ("gh", "github_pat_"), re.compile(
        rf"{START}(?:gh[pousr]_[A-Za-z0-9]{{30,}}|github_pat_[A-Za-z0-9_]{{40,}})"), ""),
    ("slack-token", ("xox", "xapp-"), re.compile(rf"{START}(?:xox[abeoprs]|xapp)-[A-Za-z0-9\-]{{10,}}"), ""),
    ("aws-secret-key", AWS_KEY_ID, re.compile(  # credentials.csv: the key id, then its secret
        r"(?P<keep>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}[\"']?[ \t]*[,;|\t:][ \t]*[\"']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])"),
     "keep"),
    ("aws-access-key", AWS_KEY_ID, re.compile(
        rf"{START}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{{16}}(?![A-Za-z0-9])"), ""),
    ("aws-bedrock-key", ("absk",), re.compile(rf"{START}ABSK[A-Za-z0-9+/]{{109,269}}={{0,2}}"), ""),
    ("aws-secret-key", ("aws_secret_access_key",), re.compile(  # `= VALUE`, `: VALUE` or `set … VALUE`
        r"(?P<keep>aws_secret_access_key[\"']?(?:\s*[:=]\s*|\s+)[\"']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])",
        re.IGNORECASE), "keep"),
    ("aws-session-token", ("aws_session_token",), re.compile(
        r"(?P<keep>aws_session_token[\"']?(?:\s*[:=]\s*|\s+)[\"']?)[A-Za-z0-9/+=]{16,}", re.IGNORECASE), "keep"),
    ("jwt", ("eyj",), re.compile(
        rf"{START}eyJ[A-Za-z0-9_\-]{{8,}}\.eyJ[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]{{8,}}"), ""),
    ("gitlab-token", ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "glagent-", "gloas-",
                      "glsoat-", "glffct-", "gr1348941"), re.compile(
        rf"{START}(?:(?:glpat|gldt|glrt|glptt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct)-|GR1348941)"
        r"[A-Za-z0-9_\-]{20,}(?:\.[0-9a-z]{9})?"), ""),
    ("huggingface-token", ("hf_", "api_org_"), re.compile(rf"{START}(?:hf_|api_org_)[A-Za-z0-9]{{30,40}}{END}"),
     lambda m: marker("huggingface-token") if looks_random(m[0]) or random_letters(m[0].partition("_")[2]) else m[0]),
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
    ("mailchimp-key", re.compile(r"-us\d"), re.compile(rf"{START}[0-9a-f]{{32}}-us\d{{1,2}}{END}"), ""),
    ("one-password", ("a3-", "ops_eyj"), re.compile(
        rf"{START}(?:A3-[A-Z0-9]{{6}}-(?:[A-Z0-9]{{11}}|[A-Z0-9]{{6}}-[A-Z0-9]{{5}})(?:-[A-Z0-9]{{5}}){{3}}{END}|"
        r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3})"), ""),
    ("azure-ad-secret", ("q~",), re.compile(
        r"(?<![A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])"), ""),
    ("airtable-token", re.compile(r"pat[a-z0-9]{14}\."), re.compile(rf"{START}pat[A-Za-z0-9]{{14}}\.[a-f0-9]{{64}}{END}"),
     ""),
    ("harness-key", re.compile(r"[ps]at\.[\w\-]{22}\."), re.compile(
        rf"{START}(?:pat|sat)\.[A-Za-z0-9_\-]{{22}}\.[A-Za-z0-9]{{24}}\.[A-Za-z0-9]{{20}}{END}"), ""),
    ("grafana-token", ("glc_", "glsa_", "eyjrijoi"), re.compile(
        rf"{START}(?:glc_[A-Za-z0-9+/]{{32,400}}={{0,3}}|glsa_[A-Za-z0-9]{{32}}_[A-Fa-f0-9]{{8}}|"
        r"eyJrIjoi[A-Za-z0-9]{70,400}={0,3})"), ""),
    ("gitlab-session", ("_gitlab_session=",), re.compile(r"(?P<keep>_gitlab_session=)[0-9a-z]{32}"), "keep"),
    ("nuget-password", ("<add key=",), re.compile(
        r"(?P<keep><add key=\"(?:ClearText)?Password\"\s*value=\")(?P<value>[^\"]{4,})(?=\")", re.IGNORECASE),
     named("nuget-password", literal_value)),
    # a prefix, then a body of a known alphabet and length (gitleaks' rules of the same names)
    ("api-token", KNOWN_PREFIXES, re.compile(
        rf"{START}(?:duffel_(?:test|live)_[A-Za-z0-9_\-=]{{43}}|dt0c01\.[A-Za-z0-9]{{24}}\.[A-Za-z0-9]{{64}}|"
        r"FLW(?:SECK|PUBK)_TEST-[a-hA-H0-9]{12,32}(?:-X)?|ico-[A-Za-z0-9]{32}|NR(?:AK|JS|II)-[A-Za-z0-9\-]{19,32}|"
        r"pplx-[A-Za-z0-9]{48}|pscale_(?:tkn|pw|oauth)_[\w=.\-]{32,64}|pnu_[A-Za-z0-9]{36}|pul-[a-f0-9]{40}|"
        r"rdme_[a-z0-9]{70}|shippo_(?:live|test)_[a-fA-F0-9]{40}|tfp_[A-Za-z0-9_\-.=]{59}|p8e-[A-Za-z0-9]{32}|"
        r"LTAI[A-Za-z0-9]{20}|AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59}|4b1d[A-Za-z0-9]{38}|CLOJARS_[A-Za-z0-9]{60}|"
        r"EZ[AT]K[A-Za-z0-9]{54}|EAA[CM][A-Za-z0-9]{100,}|fo1_[\w\-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}|"
        r"fio-u-[A-Za-z0-9_\-=]{64}|HRKU-AA[A-Za-z0-9_\-]{58}|[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk|"
        r"sha256~[\w\-]{43}|rubygems_[a-f0-9]{48}|tk-us-[\w\-]{48}|xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}|"
        r"sntryu_[a-f0-9]{64}|sntrys_eyJpYXQiO[A-Za-z0-9+/=_]{40,}|sm_[aps]at_[A-Za-z0-9]{16}|"
        r"(?:EAAA|sq0atp-)[\w\-]{22,60}|sq0csp-[\w\-]{43}|dp\.pt\.[A-Za-z0-9]{43}|"
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,70}|s-s4t2(?:ud|af)-[a-f0-9]{64}|API-[A-Z0-9]{26})(?![A-Za-z0-9_\-])"),
     "random_or_long"),
]
