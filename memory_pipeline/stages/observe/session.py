"""Observe one session: serialize, ask the Observer, parse into an Observation. The transcript comes
redacted (flows/observe.collect_sessions redacts each session once, before it is stored)."""

from __future__ import annotations

from memory_pipeline.models import Observation, ObserverOutput, SessionEvent, Transcript
from memory_pipeline.ports import Completer
from memory_pipeline.prompts import Prompt
from memory_pipeline.stages.observe.grounding import ground_quotes, grounded_task, window_texts
from memory_pipeline.stages.observe.observer import (
    build_observer_messages,
    observation_from_output,
    parse_observer_output,
)
from memory_pipeline.stages.offline.observer_rules import messages_about_code
from memory_pipeline.stages.provenance import labels_of
from memory_pipeline.stages.transcripts import serialize_transcript

MAX_TRANSCRIPT_CHARS = 400_000


def _validator(refs: dict[str, str]):
    def validate(raw: str) -> ObserverOutput:
        output = parse_observer_output(raw, refs)
        if output.format == "empty" and "<observations" not in raw:
            raise ValueError("no <observations> block and no prioritized list items")
        return output

    return validate


def recent_part(text: str, limit: int) -> str:
    """The last `limit` characters of a serialized transcript, from the first whole line on: a cut
    inside a line could drop the backslash that escapes a header-like line of a message."""
    if len(text) <= limit:
        return text
    tail = text[-limit:]
    if text[-limit - 1] == "\n":
        return tail
    return tail[tail.find("\n") + 1:] if "\n" in tail else ""


def observe_session(transcript: Transcript, event: SessionEvent, *, llm: Completer, prompt: Prompt, model: str) -> Observation:
    """Run the Observer over one redacted transcript window. `llm` is an LLMClient."""
    serialized = serialize_transcript(transcript.messages)
    unread = 0
    if len(serialized.text) > MAX_TRANSCRIPT_CHARS:  # keep the most recent part: it is what compaction loses
        serialized = serialize_transcript(transcript.messages, max_tool_chars=120)
        unread = max(0, len(serialized.text) - MAX_TRANSCRIPT_CHARS)  # said: the observation and the asset's log
        serialized = serialized.model_copy(update={"text": recent_part(serialized.text, MAX_TRANSCRIPT_CHARS)})
    system, user = build_observer_messages(
        prompt, serialized, trigger=event.data.trigger, session_name=event.data.session_name, day=event.day
    )
    output, usage = llm.complete(
        task="observer", model=model, system=system, prompt=user, validate=_validator(serialized.refs)
    )
    roles = labels_of(transcript.messages)
    output = output.model_copy(update={"segments": ground_quotes(output.segments, window_texts(transcript.messages)),
                                       "current_task": grounded_task(output.current_task, serialized.refs, roles)})
    observation = observation_from_output(output, event=event, code_version=prompt.code_version(model), usage=usage,
                                          roles=roles)
    return observation.model_copy(update={"prompt_sha": prompt.sha256[:12], "model": model, "unread_chars": unread,
                                          "about_code": messages_about_code(transcript.messages)})
