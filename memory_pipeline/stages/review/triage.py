"""Auto-triage of staged proposals (ADR-0068), pure: promote, reject or needs-review, with a reason.

Reject is for what can never be memory: quotes of the conversation, status lines, error output,
questions, fragments. Needs-review is for what a person must see: anything that would run code
from the network, delete recursively, open permissions, skip verification or send data away, and
text that tries to instruct the pipeline. Promote is for a durable statement a later session can
act on (a rule, a preference, a decision with its reason). Auto-reject is reversible
(`review restore`); auto-promote is off unless MEMORY_AUTO_PROMOTE=1 and never applies to a
held proposal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PROMOTE, REJECT, NEEDS_REVIEW = "promote", "reject", "needs-review"

DANGEROUS = [
    (re.compile(r"\b(curl|wget)\b[^|\n]*\|\s*(sudo\s+)?(ba|z)?sh\b", re.I), "would run code from the network"),
    (re.compile(r"\brm\s+-[a-z]*r[a-z]*f?\b|\brm\s+-[a-z]*f[a-z]*r\b", re.I), "deletes recursively"),
    (re.compile(r"\bchmod\s+(-R\s+)?(777|a\+rwx|o\+w)\b|\bchown\s+-R\b", re.I), "opens permissions broadly"),
    (re.compile(r"--no-verify\b|verify\s*=\s*false|--insecure\b|\bsslverify\s*=?\s*false|-k\s+https?://|"
                r"disable\w*\s+(ssl|tls|certificate|signature)\s+(verification|checks?)", re.I),
     "disables verification"),
    (re.compile(r"\b(curl|wget|scp|rsync|nc)\b[^\n]*(-d\s*@|--data|--upload-file|-T\s|@\S+\s+\S+:)", re.I),
     "sends data to a host"),
]
INSTRUCTS_PIPELINE = re.compile(
    r"\b(approve|promote|accept)\s+(all|every|each)\b|\bwrite\s+(this\s+)?(to|into)\s+memory\.md\b|"
    r"\b(add|save|put)\s+(this\s+)?(to|in|into)\s+(your\s+)?memory\b|\bignore\s+(all\s+)?previous\s+instructions\b|"
    r"\bmemory[- ]pipeline\s+review\b", re.I)
STATUS_LINE = re.compile(
    r"^(all\s+)?\d+\s+(tests?|checks?)\s+(pass|passed|passing|fail|failed)|^(done|fixed|ok|okay|great|perfect|"
    r"sounds good|thanks?|thank you|looks good|lgtm)\b[.!]?$|^(tests?|build|ci)\s+(is\s+)?(green|passing|passes|"
    r"fixed|red)\b", re.I)
ERROR_LINE = re.compile(r"^(error|fatal|traceback|exception|warning)\b|\b(ENOENT|EACCES|ECONNREFUSED|"
                        r"ModuleNotFoundError|TypeError|KeyError|ValueError):", re.I)
QUOTE_START = re.compile(r"^[\"“”'‘>]|^(no|yes|yeah|nope|ok|hmm|wait|actually)[,.!]\s", re.I)
DURABLE = re.compile(r"\b(always|never|prefers?|must|should|don'?t|do not|avoid|use\s+\S+\s+(instead|not|rather)|"
                     r"because|so that|decided|chose|root cause|is configured|runs on|lives in|requires?)\b", re.I)


@dataclass(frozen=True)
class Triage:
    verdict: str
    reason: str

    @property
    def held(self) -> bool:
        """Held for a person: never injected or auto-promoted before approval."""
        return self.verdict == NEEDS_REVIEW


def triage(text: str, *, quotes_transcript: bool = False) -> Triage:
    body = text.strip()
    for pattern, why in DANGEROUS:
        if pattern.search(body):
            return Triage(NEEDS_REVIEW, f"held: {why}")
    if INSTRUCTS_PIPELINE.search(body):
        return Triage(NEEDS_REVIEW, "held: tries to instruct the pipeline")
    words = re.findall(r"\w+", body)
    if len(words) < 5:
        return Triage(REJECT, "a fragment, not a statement")
    if body.endswith("?"):
        return Triage(REJECT, "a question, not a fact")
    if STATUS_LINE.search(body):
        return Triage(REJECT, "a status line")
    if ERROR_LINE.search(body):
        return Triage(REJECT, "error output")
    if QUOTE_START.search(body):
        return Triage(REJECT, "a quote of the conversation")
    if quotes_transcript:
        return Triage(NEEDS_REVIEW, "quotes the transcript: check it says something durable")
    if DURABLE.search(body):
        return Triage(PROMOTE, "a durable rule, preference or decision")
    return Triage(NEEDS_REVIEW, "no sign of a rule, preference or decision")
