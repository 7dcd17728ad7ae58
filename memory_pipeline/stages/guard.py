"""Text that must not reach a session, or MEMORY.md, without a human in between.

Observed and proposed text is data. Two classes are held for review wherever they appear
(briefings, recovery pointers, REVIEW.md, proposals):

- dangerous actions: running code fetched from the network, recursive deletion, broad permission
  changes, disabled verification, sending data to a host;
- text that addresses the pipeline or the agent itself ("approve all proposals", "write to
  MEMORY.md", "ignore previous instructions", "from now on always …").

`hold_reasons(text)` names every class a text falls in; an empty list means nothing to hold.
Who said a fact (the user, the agent, tool output, a file, a web page) is `stages/provenance.py`.
"""

from __future__ import annotations

import re

_F = re.IGNORECASE
NETWORK_CODE = "runs code from the network"
_SHELL = r"(?:ba|z|da|k|fi)?sh|python[23]?|perl|ruby|node|pwsh|powershell|iex|source"
DANGER: list[tuple[str, re.Pattern[str]]] = [
    (NETWORK_CODE, re.compile(
        rf"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch)\b[^\n|;]*\|\s*(?:sudo\s+)?(?:{_SHELL})\b"
        rf"|(?:{_SHELL})\s+(?:-c\s+)?[\"']?(?:<\(|\$\()\s*(?:curl|wget)\b"
        r"|\biex\s*\(\s*(?:new-object|iwr|irm|invoke-)"
        r"|\b(?:pip3?|npm|npx|gem)\s+(?:install\s+)?(?:-\S+\s+)*(?:git\+)?https?://", _F)),
    ("deletes recursively", re.compile(
        r"\brm\s+(?:-[a-z]*r[a-z]*|-[a-z]*\s+-r|--recursive)\b|\brmdir\s+/s\b|\bdel\s+/[sq]\b"
        r"|remove-item\b[^\n]*-recurse|\bshutil\.rmtree\b|\bfind\b[^\n]*\s-delete\b"
        r"|\bgit\s+clean\s+-[a-z]*f[a-z]*d|\bmkfs(?:\.\w+)?\b|\bdd\s+if=[^\n]*of=/dev/", _F)),
    ("changes permissions broadly", re.compile(
        r"\bchmod\s+(?:-[a-z]*R[a-z]*\s+|--recursive\s+)|\bchmod\s+(?:0?777|a\+rwx|o\+w)\b"
        r"|\bchown\s+(?:-[a-z]*R|--recursive)\b|\bicacls\b[^\n]*/grant\s+everyone"
        r"|\bsudoers\b|NOPASSWD", _F)),
    ("disables verification", re.compile(
        r"--no-verify\b|--insecure\b|\bcurl\s+(?:\S+\s+)*-k\b|verify\s*=\s*False\b"
        r"|NODE_TLS_REJECT_UNAUTHORIZED\s*=\s*['\"]?0|GIT_SSL_NO_VERIFY|http\.sslverify\s*(?:=\s*)?false"
        r"|StrictHostKeyChecking\s*=?\s*no|PYTHONHTTPSVERIFY\s*=\s*0|--trusted-host\b"
        r"|--disable-(?:ssl|tls|certificate)|set\s+-o\s+nosigcheck|--allow-unauthenticated|--skip-verify", _F)),
    ("escalates privileges", re.compile(
        r"\|\s*sudo\b|\bsudo\s+(?:-\S+\s+)*(?:(?:ba|z)?sh|su|-i|-s)\b|\bsudo\s+su\b|\bsu\s+-c\b"
        r"|\b(?:never|don'?t|do\s+not|without)\s+(?:ask(?:ing)?|confirm(?:ing)?|prompt(?:ing)?)[^\n]{0,40}\bsudo\b"
        r"|\bsudo\b[^\n]{0,60}\b(?:never\s+ask|without\s+(?:asking|confirmation|a\s+password)|just\s+run)"
        r"|\bchmod\s+(?:[ug]\+s|[2467][0-7]{3})\b|\bsetuid\b|--privileged\b"
        r"|\busermod\s+(?:-\S+\s+)*(?:sudo|wheel|docker|admin)\b", _F)),
    ("disables checks", re.compile(
        r"\bgit\s+commit\b[^\n|;&]*\s-(?!-)[a-zA-Z]*n|--no-gpg-sign\b|\bcore\.hooks[pP]ath\b"
        r"|\bcommit\.gpg[sS]ign\s*(?:=\s*)?false|\bHUSKY\s*=\s*0\b|\bSKIP_HOOKS?\s*=|--no-(?:pre-commit|hooks)\b"
        r"|\bNODE_OPTIONS\s*=\s*[\"']?[^\n]*(?:--require|--import|--loader|--experimental-loader|(?<!\w)-r)\b"
        r"|\bLD_PRELOAD\s*=|\bgit\s+push\b[^\n|;&]*\s(?:--force\b|--force-with-lease\b|-f\b|\+\w)"
        r"|\b(?:push|merge|commit)\w*\b[^\n]{0,30}\b(?:straight|directly)\s+(?:in)?to\s+(?:main|master|prod\w*)\b"
        r"|\b(?:skip|bypass|disable)\w*\s+(?:the\s+|any\s+)?(?:code\s+review|reviews?|branch\s+protection|ci)\b"
        r"|\bwithout\s+(?:opening\s+)?(?:a\s+|any\s+)?(?:pull\s+request|PR|code\s+review)\b", _F)),
    ("reads credentials", re.compile(
        r"\b(?:cat|cp|copy|less|more|head|tail|print|base64|xxd|rsync|tar|zip|type|read)\b[^\n]{0,40}"
        r"(?:\.aws/credentials|\.ssh/id_\w+(?!\.pub)|\.netrc|\.pgpass|\.git-credentials|\.docker/config\.json"
        r"|\.kube/config|\.gnupg|\.config/gh/hosts)", _F)),
    ("sends data to a host", re.compile(
        r"\bcurl\b[^\n]*(?:\s-d\b|\s--data(?:-\w+)?\b|\s-F\b|\s--form\b|\s-T\b|\s--upload-file\b|\s-X\s*(?:POST|PUT))"
        r"|\bwget\b[^\n]*--post-(?:data|file)|\b(?:nc|ncat|netcat)\s+(?:-\S+\s+)*[\w.\-]+\s+\d{2,5}\b"
        r"|\|\s*(?:nc|ncat|netcat)\b|\bscp\s+[^\n]*\s[\w.\-]+@[\w.\-]+:"
        r"|\b(?:exfiltrate|upload|send|post)\b[^\n]{0,40}(?:~/\.ssh|\bid_rsa|\.env\b|\bcredentials|\bsecrets?\b|\btokens?\b)",
        _F)),
]
PIPELINE = re.compile(
    r"\b(?:approve|accept)\s+(?:all|every|each)\b[^\n]{0,30}\b(?:proposals?|memor(?:y|ies)|items?)"
    r"|\b(?:write|add|append|insert|put|save)\b[^\n]{0,40}\b(?:to|into|in)\s+`?MEMORY\.md"
    r"|\b(?:edit|modify|overwrite|rewrite)\s+`?(?:MEMORY|REVIEW)\.md"
    r"|\bmemory-pipeline\s+(?:review\s+approve|scrub)\b"
    r"|\bmark\b[^\n]{0,40}\bas\s+approved\b"
    r"|\bignore\s+(?:all\s+)?(?:the\s+)?(?:previous|prior|above|earlier)\s+(?:instructions|rules|messages)"
    r"|\bdisregard\s+(?:all\s+)?(?:the\s+)?(?:previous|prior|above|earlier|your)\b"
    r"|\bfrom\s+now\s+on\b[^\n]{0,20}\b(?:always|never|you\s+must|run|execute)\b"
    r"|\b(?:new|updated)\s+system\s+(?:prompt|instructions)\b|\byou\s+are\s+now\b"
    r"|\bnote\s+to\s+(?:the\s+)?(?:ai\s+)?(?:agents?|assistants?|llms?|models?|claude|codex)\b", _F)
INSTRUCTS_PIPELINE = "addresses the pipeline or the agent"


def danger_reasons(text: str) -> list[str]:
    """The dangerous-action classes the text would perform."""
    return [name for name, pattern in DANGER if pattern.search(text or "")]


def hold_reasons(text: str) -> list[str]:
    """Every reason to hold the text for a human: dangerous actions and instructions to the pipeline."""
    reasons = danger_reasons(text)
    if PIPELINE.search(text or ""):
        reasons.append(INSTRUCTS_PIPELINE)
    return reasons


def is_held(text: str) -> bool:
    return bool(hold_reasons(text))


HELD_NOTE = "_(⚠ held for review: {})_"


def held_note(text: str) -> str:
    """The mark REVIEW.md and `review list` put after held text (" _(⚠ held for review: …)_"), or ""."""
    reasons = hold_reasons(text)
    return " " + HELD_NOTE.format("; ".join(reasons)) if reasons else ""
