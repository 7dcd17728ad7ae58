"""Whose words a question asks about (pure): the user's, the assistant's, or either.

"How many doctor's appointments did I go to?" asks what the user did, and the user is the one who
said it: the answer is in the user's own turns, not in the assistant's long replies on the same
subject. "Can you remind me of the hostel you recommended?" asks for the assistant's words. A
question in neither voice ("the Redis port", "how did we fix the flaky test") prefers no speaker.
"""

from __future__ import annotations

import re

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
