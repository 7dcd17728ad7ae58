"""Whose words a question asks about (pure): the user's, the assistant's, or either.

"How many doctor's appointments did I go to?" asks what the user did, and the user is the one who
said it: the answer is in the user's own turns, not in the assistant's long replies on the same
subject. "Can you remind me of the hostel you recommended?" asks for the assistant's words. A
question in neither voice ("the Redis port", "how did we fix the flaky test") prefers no speaker.

In a conversation between named people (a chat export, an imported dialogue: each turn opens with its
speaker's name, "Caroline: I went to the support group."), a question that names one of them ("What
did Melanie paint?") asks about that one's words: on LoCoMo's three dev conversations 476 of the 576
evidence turns of the questions naming one speaker are that speaker's own (83 %; each speaks half the turns).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

# the assistant's earlier words, not a request now ("can you suggest …" asks for new words): "you
# recommended", "did you say", "remind me", "our previous chat"
_SAID = r"(?:said|told|mentioned|recommended|suggested|gave|provided|listed|shared|explained|described|wrote|" \
        r"proposed|came up with|called|named)"
_SAY = r"(?:say|tell|mention|recommend|suggest|give|provide|list|share|explain|describe|write|propose|call|name)"
ASSISTANT = re.compile(
    rf"\byou(?:\s+\w+)?\s+{_SAID}\b|\bdid\s+you\s+{_SAY}\b|\bremind\s+me\b|"
    r"\b(?:our|the|that)\s+(?:previous|earlier|last)\s+(?:chat|conversation|discussion)\b",
    re.IGNORECASE)
FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b", re.IGNORECASE)
WE = re.compile(r"\b(?:we|we've|we're|us|our)\b", re.IGNORECASE)


def asked_about(query: str) -> str | None:
    """"assistant", "user", or None: the speaker whose turns hold the answer to `query`."""
    if ASSISTANT.search(query):
        return "assistant"
    if FIRST_PERSON.search(query) and not WE.search(query):
        return "user"
    return None


# "Caroline: …", "Mary Jane: …": a capitalised name of one or two words, a colon, a space
_OPENING = re.compile(r"^([A-Z][\w'’-]{1,30}(?: [A-Z][\w'’-]{1,30})?):\s")
MIN_TURNS = 3  # a name opening fewer of the candidate turns is a label ("Note: …"), not a speaker
ROLES = ("user", "assistant")


def opening_name(text: str) -> str | None:
    """The name a turn opens with ("Caroline: …" → "Caroline"), or None."""
    found = _OPENING.match(text)
    return found.group(1) if found else None


def named_speaker(query: str, turns: Iterable[str]) -> str | None:
    """The one speaker `query` names among the speakers the candidate `turns` open with (two or more,
    each opening MIN_TURNS of them), or None."""
    counts = Counter(name for text in turns if (name := opening_name(text)))
    names = [name for name, count in counts.items() if count >= MIN_TURNS]
    if len(names) < 2:
        return None
    named = [name for name in names if re.search(rf"\b{re.escape(name)}\b", query)]
    return named[0] if len(named) == 1 else None


def said_by_other(payload: dict, speaker: str) -> bool:
    """Whether a point is a turn of another speaker than the one asked about (a role, or the name the turn
    opens with); an observation, or a turn with no known speaker, is nobody's."""
    if speaker in ROLES:
        return payload.get("role") not in (None, speaker)
    name = opening_name(str(payload.get("message") or ""))
    return name is not None and name != speaker
