"""A proposal the user asked as a question and the agent agreed to: "actually, i think AgentSessionConfig should
take a resolveApiKey(provider: string)?" answered "Good idea. …" is a decision the user made, though its words
end with a question mark (and questions are never facts on their own). Asked of work on software only: in a chat
"Should I get a Fitbit?" answered "Yes!" is advice taken, no decision of a project."""

from __future__ import annotations

import re

from memory_pipeline.stages.offline import distil as shape
from memory_pipeline.stages.offline import observer_cues as cues
from memory_pipeline.stages.offline import observer_rules as rules

# the reply opens by agreeing: "Good idea.", "You're absolutely right.", "Yes, …", "That's cleaner"
AGREES = re.compile(
    r"^\W*(?:(?:yes|yep|yeah|exactly|correct|agreed|absolutely)\b|you'?re (?:absolutely |totally |completely |quite )?"
    r"right\b|(?:good|great|nice) (?:idea|call|point|catch|thinking)\b|makes sense\b|"
    r"that(?:'?s| is| would be) (?:cleaner|better|simpler|a (?:good|great|better|cleaner) (?:idea|approach|call))\b)",
    re.IGNORECASE)
# "well, i think …", "actually, maybe …": the hedge a proposal is asked with
_HEDGE_LEAD = re.compile(r"^(?:(?:well|actually|ok|okay|so|hm+|also|and),?\s+)*"
                         r"(?:i think|i guess|i believe|i suppose|i(?: would|'d) think(?: that)?|maybe|perhaps)\s+", re.IGNORECASE)
# ", no?", ", right?", "?": the tag that makes a statement a question
_TAG = re.compile(r"[\s,]*(?:\b(?:no|right|yes|correct|or not|isn'?t it|don'?t you think))?\s*\?+$", re.IGNORECASE)
# "should we X" proposes X for the work: the statement is "We should X" ("should I X?" asks for advice)
_INVERTED = re.compile(r"^(?:should|shall) we ", re.IGNORECASE)
# what a part of the work should do, with its subject named ("it should be …" points at the chat)
_MODAL = re.compile(r"^(?!(?:that|this|it|which|they|there|you)\b)[^?]{0,140}?\b(?:should|needs? to|has to|have to|must)"
                    r"\s+\w+", re.IGNORECASE)


def proposal(question: str) -> str | None:
    """The statement a proposal asked as a question makes ("i think X should take Y?" → "X should take Y"), or
    None when the question asks something else ("what about split turns?", "can we add X?")."""
    text = _TAG.sub("", _HEDGE_LEAD.sub("", shape.distil(question).lstrip("-* "))).strip(" ,")
    text = _INVERTED.sub("We should ", text)
    if not _MODAL.match(text) or not cues.is_self_contained(text):
        return None
    return text[:1].upper() + text[1:]


def agreed(asked: str, reply: str) -> list[str]:
    """What the user proposed as a question (`asked`) when the agent's `reply` opens by agreeing."""
    if not AGREES.match(reply.strip()):
        return []
    return [made for sentence in rules.sentences(asked) if cues.is_question(sentence)
            and (made := proposal(sentence))]
