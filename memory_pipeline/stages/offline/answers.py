"""The user's answer to a question the agent asked with a question tool (Claude Code's
AskUserQuestion): one decision, in the words of both sides.

The parser adds the question and its options to the asking message ("Q? (options: A; B)", the
agent's words) and the structured answer as a user message after it
(stages/transcripts/claude_code.py). The decision reads as what was chosen, why, and over what:
"Pre-commit hook blocks on pre-existing dialyzer/credo issues (not our code): fix the issues (main
was clean), not skip hook (--no-verify)." A bare "yes" or "continue" decides only what comes next
and is no decision worth keeping.
"""

from __future__ import annotations

import re

from memory_pipeline.stages.offline import distil as shape
from memory_pipeline.stages.offline.observer_rules import ASIDE, content_words, sentences

ASK_TOOLS = frozenset({"askuserquestion"})
_ASKED = re.compile(r"^(?P<question>.+\?)\s*\(options: (?P<options>.+)\)\s*$")
_AFFIRMATIVE = frozenset("yes yeah yep yup sure okay proceed continue go ahead please".split())
# words that open an option or answer in lower case mid-sentence; anything else may be a name
_COMMON = frozenset("skip fix use keep run add remove drop leave ignore stop start continue wait revert commit "
                    "push merge rebase write delete move rename make do go try accept reject allow block disable "
                    "enable update upgrade downgrade install pin".split())
CHOSEN_SHARE = 0.5  # an option counts as the one chosen when the answer holds half its words
# "Given this explanation, should I proceed with the hands-on testing?": whether to go on with the work, which
# decides only what comes next, whatever option is picked ("How should we proceed?" asks how)
_GO_ON = re.compile(r"(?<!how )\b(?:should|shall|can|may) (?:i|we) (?:proceed|continue|go ahead|start|begin|move on)\b"
                    r"(?: (?:with|to) [^,;?]+)?\?$|\b(?:want|like) me to (?:proceed|continue|go ahead|start|begin)\b",
                    re.IGNORECASE)


def asked_with_tool(calls: list[tuple[str, str]]) -> bool:
    """The message called a question tool: the user's next words answer it."""
    return any(name.rsplit("__", 1)[-1].lower() in ASK_TOOLS for name, _ in calls)


def asked_question(text: str) -> tuple[str, list[str]] | None:
    """(question, option labels) of the last "Q? (options: A; B)" line of the asking message."""
    for line in reversed(text.splitlines()):
        found = _ASKED.match(line.strip())
        if found:
            return found.group("question").strip(), [o.strip() for o in found.group("options").split(";") if o.strip()]
    return None


def _verb(text: str) -> str:
    return text.split(" ", 1)[0].lower() if text else ""


def _chosen(option: str, answer: str, doing: str) -> bool:
    """The option the answer takes: it holds half the option's words, or does what it does ("fix them"
    for "Fix the lint findings")."""
    said = content_words(option)
    shared = bool(said) and len(said & content_words(answer)) / len(said) >= CHOSEN_SHARE
    return shared or (_verb(option) in _COMMON and _verb(option) == _verb(doing))


def _decision_and_reason(answer: str) -> tuple[str, str]:
    """"main was clean; fix the issues" → ("fix the issues", "main was clean"): the clauses that
    say what to do, then the others as its reason."""
    text = shape.distil(answer)
    text = text[:1].lower() + text[1:] if answer.strip()[:1].islower() else text  # as typed
    parts = [p.strip(" .") for p in re.split(r"\s*[;\n]\s*|\.\s+", text) if p.strip(" .")]
    doing = [p for p in parts if shape.is_rule(p) or shape.is_plan_step(p)]
    because = [p for p in parts if p not in doing]
    if not doing:
        return "; ".join(parts), ""
    return "; ".join(doing), "; ".join(because)


def _lower_first(text: str) -> str:
    """"Skip hook" → "skip hook"; a name ("Postgres 16", "TranscriptView", "API") keeps its case."""
    first = text.split(" ", 1)[0]
    if first.isalpha() and first[1:].islower() and first.lower() in _COMMON:
        return text[:1].lower() + text[1:]
    return text


def decision(question_text: str, answer: str) -> str | None:
    """The decision an answer makes, or None when it decides nothing that lasts."""
    asked = asked_question(question_text)
    if asked is None or not answer.strip():
        return None
    question, options = asked
    if _GO_ON.search(question):
        return None
    words = content_words(answer)
    picked = [o for o in options if o.lower() == answer.strip().lower()]
    if not picked and (len(words - _AFFIRMATIVE) < 2 or answer.rstrip().endswith("?")):
        return None  # "yes", "go ahead": what comes next, not how
    if picked and not content_words(picked[0]) - _AFFIRMATIVE:
        return None  # "Yes" / "No" picked
    doing, because = _decision_and_reason(answer)
    # an option's detail left out: the line names what was not chosen, briefly
    rejected = [ASIDE.sub("", o).strip() for o in options if not _chosen(o, answer, doing) and o not in picked]
    said = sentences(question)
    context = " ".join(s for s in said if not s.rstrip().endswith("?")).rstrip(" .")
    head = context or question.rstrip(" ?")
    text = f"{head}: {_lower_first(doing)}"
    if because:
        text += f" ({because})"
    if rejected:
        text += ", not " + " or ".join(_lower_first(r) for r in rejected)
    return text.rstrip(" .") + "."
