"""Auto-triage of staged proposals (ADR-0068), pure: promote, reject or needs-review, with a reason.

Reject is for what can never be memory: quotes of the conversation, status lines, error output,
questions, fragments, and what is transient (issue 52): the agent's narration, test counts, a
passing state, a pointer to something only that session shows, its own tool failing, a
checker's report, a change it made, a fix it proposed before making it. Needs-review is for what a
person must see: anything that would run code
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
from memory_pipeline.stages.offline import distil as shape
from memory_pipeline.stages.offline import observer_cues as cues

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


NARRATION = re.compile(rf"^(?:now,? |next,? |first,? )?(?:let me|(?!{shape.LETS_CHOOSE})let's|i'll|i will|i'm going to|"
                       r"i need to|i am going to)\b", re.I)
TEST_COUNT = re.compile(r"^(?:added|wrote|removed|fixed)\s+\d+\b[^.]{0,40}\btests?\b|"
                        r"\b\d+\s+(?:new\s+)?(?:tests?|specs?|doctests?|checks?|assertions?)\b[^.]{0,40}\b(?:pass\w*|"
                        r"green|fail\w*|added|written)\b|\b\d+ (?:passed|failed|failures?)\b", re.I)
LESSON = re.compile(r"\b(?:root cause|caused by|fixed by|the fix (?:was|is)|turned out|turns out|because)\b", re.I)
CAUSE = re.compile(r"\b(?:root cause|caused by|fixed by|the fix (?:was|is)|turned out|turns out)\b", re.I)
RULE_WORDS = re.compile(r"\b(?:always|never|must|don'?t|do not|avoid|only)\b", re.I)
SETUP = re.compile(r"\b(?:runs? on|lives? in|is configured|listens on|is stored|is called|uses|depends on)\b", re.I)


def transient(body: str, quoted: bool) -> str | None:
    """Why the line is of that session only, or None; the agent's shapes only when the words are not
    the user's."""
    if NARRATION.match(body):
        return "narration of that session's work"
    if TEST_COUNT.search(body):
        return "a test count: a one-off status"
    if shape.POINTER.search(body):
        return "points at something only that session shows"
    if quoted:
        return None
    checks = ((shape.is_proposed_fix, "a fix proposed before it was made"),
              (shape.is_session_change, "a change made in that session (its narrative keeps it)"),
              (shape.is_own_tool_failure, "the agent's own tool failing"),
              (shape.is_tool_report, "what a checker reported that day"),
              (lambda text: bool(shape.PASSING.search(text)) and not CAUSE.search(text), "a passing state"))
    return next((why for check, why in checks if check(body)), None)


def worth(body: str, quoted: bool) -> str:
    """Why a kept line is worth a look: the kind of durable statement it is."""
    if quoted and shape.is_stated_rule(body):
        return "a rule the user stated"
    if LESSON.search(body) and re.search(r"\b(?:fix\w*|so|instead|now)\b", body, re.I):
        return "a lesson: a cause and its fix"
    if re.search(r"\b(?:because|so that|since)\b", body, re.I):
        return "a statement with its reason"
    if RULE_WORDS.search(body):
        return "a rule"
    if re.search(r"\bprefer", body, re.I):
        return "a preference"
    if SETUP.search(body):
        return "a fact about the project's setup"
    return "a durable rule, preference or decision"


def users_words(body: str) -> str:
    """Why a line in the user's own words is worth a look, by its shape; a person approves it."""
    if shape.is_stated_rule(body):
        return "a rule the user stated, in their words: approve it to make it standing"
    if body.startswith("User answered") or "(the user's answer to: " in body:
        return "the user's answer to the agent's question: approve it if it is how work is done here"
    if shape.is_how_to(body):
        return "how to use a named command, in the user's words"
    if re.match(r'^"?(?:no|nope|actually)\b', body, re.I):
        return "a correction the user made: check it still holds"
    if shape.is_rule(body):
        return "an instruction the user gave: approve it if it holds beyond that task"
    if re.search(r"\b(?:i (?:would )?(?:only )?(?:want|prefer|like|assume)|i'?d rather)\b", body, re.I):
        return "what the user wants or expects: approve it if it holds beyond that session"
    if cues.CHOSE.search(body) and cues.decision_kind(body) == "decided":  # "let's go with Postgres 17 …, because …"
        return "a decision the user made: approve it while it still stands"
    if re.search(r"^cause:|\b(?:reason being|because|the (?:issue|problem|cause) (?:is|was))\b", body, re.I) or (
            cues.CAUSE_FOUND.match(body)):
        return "a cause the user gave: keep it if it explains something that can happen again"
    if re.search(r"(?:->|→)", body):
        return "where things go, as the user laid it out: check it is still the layout"
    return "the user's words: check they say something that stays true"


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
    if len(words) >= 3 and (why := transient(body, quotes_transcript)):
        return Triage(REJECT, why)
    if quotes_transcript and len(words) >= 3:  # a person judges what the transcript tried to have remembered
        return Triage(NEEDS_REVIEW, users_words(body))
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
        return Triage(PROMOTE, worth(body, quotes_transcript))
    if cues.ROOT_CAUSE.search(body) or re.search(r"\bthe cause (?:is|was)\b", body, re.I):  # "the bug was", "…fixed it"
        return Triage(NEEDS_REVIEW, "a cause found in that work: keep it if it can happen again")
    return Triage(NEEDS_REVIEW, "no sign of a rule, preference or decision: keep it only if it stays true")
