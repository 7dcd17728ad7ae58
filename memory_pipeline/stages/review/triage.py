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

from memory_pipeline.stages.guard import hold_reasons

PROMOTE, REJECT, NEEDS_REVIEW = "promote", "reject", "needs-review"

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
    if reasons := hold_reasons(body):  # the one guard the briefing and the hooks use too
        return Triage(NEEDS_REVIEW, "held: " + "; ".join(reasons))
    words = re.findall(r"\w+", body)
    if quotes_transcript and len(words) >= 3:  # a person judges what the transcript tried to have remembered
        return Triage(NEEDS_REVIEW, "quotes the transcript: check it says something durable")
    if len(words) < 3 or (len(words) < 5 and not DURABLE.search(body)):  # "Prefers small commits" stays
        return Triage(REJECT, "a fragment, not a statement")
    if body.endswith("?"):
        return Triage(REJECT, "a question, not a fact")
    if STATUS_LINE.search(body):
        return Triage(REJECT, "a status line")
    if ERROR_LINE.search(body):
        return Triage(REJECT, "error output")
    if QUOTE_START.search(body):
        return Triage(REJECT, "a quote of the conversation")
    if DURABLE.search(body):
        return Triage(PROMOTE, "a durable rule, preference or decision")
    return Triage(NEEDS_REVIEW, "no sign of a rule, preference or decision")
