"""Control characters out of transcript text, where it enters (parsed, snapshotted).

A NUL, an escape sequence or a bell in a message (a JSON `\\u0000`, a terminal's colour codes in tool output)
is nothing a reader needs, and one NUL in the daily log once made `secrets check` and `secrets scrub` take the
whole log for binary. Tab and newline stay; a carriage return becomes a newline (`\\r\\n` one newline).
"""

from __future__ import annotations

import re

from memory_pipeline.models import Message, Transcript

CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # C0 but tab, newline, CR; DEL; C1


def without_controls(text: str) -> str:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return CONTROL.sub("", text) if CONTROL.search(text) else text


def _has_controls(text: str) -> bool:
    return "\r" in text or CONTROL.search(text) is not None


def _message(message: Message) -> Message:
    texts = [message.text, *(c.input for c in message.tool_calls), *(c.name for c in message.tool_calls),
             *(r.text for r in message.tool_results)]
    if not any(_has_controls(t) for t in texts):
        return message  # most messages: no copy
    return message.model_copy(update={
        "text": without_controls(message.text),
        "tool_calls": [c.model_copy(update={"name": without_controls(c.name), "input": without_controls(c.input)})
                       for c in message.tool_calls],
        "tool_results": [r.model_copy(update={"text": without_controls(r.text)}) for r in message.tool_results],
    })


def transcript_without_controls(transcript: Transcript) -> Transcript:
    """The transcript with control characters removed from every message and its title."""
    return transcript.model_copy(update={
        "title": without_controls(transcript.title) if transcript.title else transcript.title,
        "messages": [_message(m) for m in transcript.messages],
    })

