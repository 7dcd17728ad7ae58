"""Secrets known by where they stand, not by their shape: credentials inside URLs, password flags
of common command-line tools, connection strings, environment variables named like a secret,
netrc entries, and passwords or passphrases said in plain words.

Where only a password can stand (`-pVALUE`, `Pwd=VALUE`, `user:VALUE@host`), any literal is
taken, whatever its characters; where prose names it ("the pw for staging is …"), anything but
the words that usually follow ("is wrong", "is in 1Password", "is required") is.
"""

from __future__ import annotations

import re

from memory_pipeline.stages.redact_entropy import looks_like_secret
from memory_pipeline.stages.redact_rules import Rule, literal_value, marker, named

# words that follow "the password is" in prose about a password rather than in one
NOT_A_PASSWORD = frozenset("""
a an the in on at to of for from by with not no any some this that it its there here also only just still now
then so too very being been be wrong invalid incorrect correct expired stored saved kept set unset missing
required needed mandatory optional empty blank same different rotated managed changed reset hashed encrypted
generated random weak strong long short ok fine available provided given shown listed above below located
defined configured documented unique case sensitive what where how your my our their his her str string bytes
bool int none null true false secret hidden masked redacted unknown visible printed logged handled sent used
""".split())
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*(?:\(\))?")


def _said_password(value: str) -> bool:
    """A value after "the password is": a literal, not one of the words prose puts there."""
    first = value.split()[0].lower() if value.split() else ""
    return len(value) >= 4 and literal_value(value) and first not in NOT_A_PASSWORD


# words that end a passphrase said in prose ("… is correct horse battery staple and you should …")
FUNCTION_WORDS = frozenset("""
a an the and or but if when while because as so than then that this these those it its is are was were be been
being has have had do does did will would can could should may might must shall to of in on at by for from with
without into over under about after before between through during not no nor only just also very too they them
their we our you your he she his her i me my what which who whom whose where how why there here all any some each
every both either neither more most less such own same other again ever never always often still yet
""".split())


def _passphrase(match: re.Match[str]) -> str:
    """The words after "the passphrase is" up to the first word of a sentence (`and`, `when`, `the`): taken when
    the first is a literal ("is tangerine orbit …"), or when four or more plain words follow ("is correct horse
    battery staple", where "correct" alone would be prose about it)."""
    value = match["value"]
    words = re.findall(r"\S+", value)
    run = 0
    while run < len(words) and words[run].lower() not in FUNCTION_WORDS:
        run += 1
    said = _said_password(value)
    if run == 0 or not (said or (run >= 4 and all(w.isalpha() for w in words[:run]))):
        return match[0]
    cut = [m.end() for m in re.finditer(r"\S+", value)][run - 1]
    start = match.start("value") - match.start()
    return f"{match[0][:start]}{marker('passphrase-in-prose')}{value[cut:]}{match[0][start + len(value):]}"


_TYPE_NAME = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]+)*|[a-z]+\.[A-Za-z_.]+")


def _yaml_value(value: str) -> bool:
    """`client_secret: itbhcnhywb` in YAML: a literal of 6+ characters, not a type (`str`, `SecretStr`), not a word
    prose puts there."""
    return len(value) >= 6 and literal_value(value) and value.lower() not in NOT_A_PASSWORD \
        and not _TYPE_NAME.fullmatch(value)


def _connection_value(value: str) -> bool:
    """`Pwd={p@ss;word}` is an ODBC literal in braces; `Pwd={password}` is a template's placeholder."""
    return literal_value(value) or (value.startswith("{") and not re.fullmatch(r"\{\w*\}", value))


def _env_value(value: str) -> bool:
    """`DEPLOY_KEY=purple-monkey-dishwasher`: any literal of 6+ characters but `true`, `none`, …"""
    return len(value) >= 6 and literal_value(value) and value.lower() not in NOT_A_PASSWORD


def _url_password(value: str) -> bool:
    """`user:VALUE@host`, not `host:8080/path@v2`."""
    return literal_value(value) and not re.match(r"\d+(?:/|$)", value)


def _cli_user_password(match: re.Match[str]) -> str:
    """`curl -u user:VALUE`; `docker run -u 1000:1000` and `-u www-data:www-data` are a user and group."""
    value = match["value"]
    if value.isdigit() or value == match["user"] or not literal_value(value):
        return match[0]
    return f"{match['keep']}{marker('basic-auth')}"


def _url_user_token(match: re.Match[str]) -> str:
    """`https://KEY@o1.ingest.sentry.io/2` (a Sentry DSN) or `https://TOKEN@github.com`."""
    user = match["user"]
    if re.fullmatch(r"[0-9a-f]{32}", user) or looks_like_secret(user):
        return f"{match['keep']}{marker('url-token')}"
    return match[0]


_VALUE = r"(?P<value>'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"`]+)"
_QUALIFIER = r"(?:\s+(?:for|of|to|on|at)\s+(?:the\s+|our\s+|my\s+)?[\w.\-]+(?:\s+[\w.\-]+)?)?"
_SAID = r"(?:\s+(?:is|was|will be|is now|should be|are)\s+|\s*[:=]\s*)[`\"']?"

SHAPES: list[Rule] = [
    ("url-password", ("://",), re.compile(  # the password runs to the last @ before a host
        r"(?P<keep>\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/@'\"\\\[\]{}]*:)(?P<value>[^\s'\"\\{}<>`]+)"
        r"(?=@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*(?::\d+)?(?:[/?#\s'\"`,;)]|$))"),
     named("url-password", _url_password)),
    ("url-token", ("://",), re.compile(
        r"(?P<keep>\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://)(?P<user>[A-Za-z0-9_\-]{20,})(?::[A-Za-z0-9_\-]*)?(?=@)"),
     _url_user_token),
    ("basic-auth", ("-u", "--user"), re.compile(
        r"(?P<keep>(?<![\w-])(?:-u[ \t]*|--user[ =])['\"]?(?P<user>[^\s:'\"$]+):)(?P<value>[^\s'\"@]+)"),
     _cli_user_password),
    ("cli-password", ("mysql", "mariadb"), re.compile(  # -pPASSWORD, attached
        r"(?P<keep>\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mariadb|mariadb-dump)\b[^\n|;&]{0,300}?"
        r"[ \t]-p)" + _VALUE), named("cli-password", literal_value)),
    ("cli-password", ("sshpass", "login"), re.compile(
        r"(?P<keep>\b(?:sshpass(?:[ \t]+-[a-oq-zA-Z]\S*)*|(?:docker|podman|helm|buildah|skopeo|oras|nerdctl)"
        r"(?:[ \t]+registry)?[ \t]+login\b[^\n|;&]{0,300}?)[ \t]-p(?:[ \t]+|=)?)" + _VALUE),
     named("cli-password", literal_value)),
    ("connection-string-password", ("pwd", "password", "accountkey", "sharedaccess"), re.compile(
        r"(?P<keep>(?:;[ \t]*(?:Password|Pwd)|\b(?:Pwd|AccountKey|SharedAccessKey|SharedAccessSignature))[ \t]*=[ \t]*)"
        r"(?P<value>\{[^}\n]*\}|[^;\"'\s][^;\"'\r\n]*)", re.IGNORECASE),
     named("connection-string-password", _connection_value)),
    ("netrc-password", ("password",), re.compile(
        r"(?P<keep>\b(?:machine[ \t]+\S+|default)\s+(?:(?:login|account)\s+\S+\s+)*password[ \t]+|"
        r"\blogin[ \t]+\S+[ \t]+password[ \t]+)(?P<value>\S+)"), named("netrc-password", literal_value)),
    ("generic-secret-assignment", re.compile(  # the name's last word and its `=`
        r"(?:key|token|secret|password|passwd|pass|pwd|auth|credentials?|dsn)[ \t]*="), re.compile(
        r"(?P<keep>(?<![\w.$\-])(?:[A-Z][A-Z0-9]*_)*[A-Z0-9]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|AUTH|"
        r"CREDENTIALS?|DSN)[ \t]*=[ \t]*)" + _VALUE), named("generic-secret-assignment", _env_value)),
    ("yaml-secret", re.compile(r"(?:secret|password|passwd|token|key)[\w.\-]*[ \t]*:[ \t]"), re.compile(
        r"^(?P<keep>[ \t]*(?:-[ \t]+)?[\w.\-]*(?:secret|password|passwd|token|api[_\-]?key|private[_\-]?key)[\w.\-]*"
        r"[ \t]*:[ \t]+)(?P<value>[^\s#'\"{}\[\]$<>*&!|,;()`]+)[ \t]*\r?$", re.IGNORECASE | re.MULTILINE),
     named("generic-secret-assignment", _yaml_value)),
    ("passphrase-in-prose", ("passphrase", "pass phrase", "passcode"), re.compile(
        rf"(?P<keep>\b(?:pass[ \-]?phrase|passcode)s?{_QUALIFIER}{_SAID})"
        r"(?P<value>[^\s.,;!?`\"']+(?:[ \t]+[^\s.,;!?`\"']+){0,7})", re.IGNORECASE),
     _passphrase),
    ("password-in-prose", ("pw", "password", "passwd"), re.compile(
        rf"(?P<keep>\b(?:pw|pwd|password|passwd)s?{_QUALIFIER}{_SAID})"
        r"(?P<value>[^\s`\"',;()\[\]{}<>]+)", re.IGNORECASE), named("password-in-prose", _said_password)),
]
