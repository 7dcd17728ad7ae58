"""The Observer stage: build its messages, parse its answer, turn the answer into an Observation.

Parsing lives in observe_parser.py and markdown rendering in observe_format.py; both are
re-exported here so callers import one module.
"""

from __future__ import annotations

import hashlib

from memory_pipeline.models import (
    PRIORITY_EMOJI,
    Fact,
    LLMUsage,
    Observation,
    ObserverOutput,
    Segment,
    SerializedTranscript,
    SessionEvent,
    stable_id,
)
from memory_pipeline.prompts import Prompt
from memory_pipeline.stages.observe.format import format_fact, format_segments_for_log, optimize_for_context
from memory_pipeline.stages.observe.parser import parse_observer_output
from memory_pipeline.stages.offline.reflector_rules import RESTATED_SHARE, specifics
from memory_pipeline.stages.restatement import says_again
from memory_pipeline.stages.tokens import estimate_tokens
from memory_pipeline.stages.untrusted import one_line

__all__ = [
    "build_observer_messages",
    "format_segments_for_log",
    "observation_from_output",
    "optimize_for_context",
    "parse_observer_output",
    "trigger_description",
]

_RANK = {p: i for i, p in enumerate(PRIORITY_EMOJI)}  # high=0, medium=1, low=2


def trigger_description(trigger: str) -> str:
    """How the user prompt names the transcript: a compaction window or a whole session."""
    return "pre-compaction" if trigger == "compaction" else "session"


def transcript_tag(serialized: SerializedTranscript) -> str:
    """The data block's tag, `transcript-` and 12 hex digits of the transcript's own hash: no text
    inside can close it (it would have to hold the hash of itself), and the same window gets the
    same prompt (the answer cache still hits)."""
    return "transcript-" + hashlib.sha256(serialized.text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def build_observer_messages(
    prompt: Prompt, serialized: SerializedTranscript, *, trigger: str, session_name: str | None, day: str
) -> tuple[str, str]:
    """(system, user) for the Observer, rendered strictly from the prompt file."""
    return prompt.render(
        trigger_description=trigger_description(trigger),
        session_label=one_line(session_name) or "unnamed",
        date=day,
        transcript_tag=transcript_tag(serialized),
        transcript=serialized.text,
    )


def with_roles(segments: list[Segment], roles: dict[str, str]) -> list[Segment]:
    """Each fact gets the roles of the messages it cites (its provenance: user, tool, …)."""
    return [
        segment.model_copy(update={"facts": [
            f.model_copy(update={"source_roles": list(dict.fromkeys(
                roles[m] for m in f.source_message_ids if m in roles))}) for f in segment.facts
        ]})
        for segment in segments
    ]


def _dedupe_facts(segments: list[Segment], dedupe_key: str) -> list[Segment]:
    """Give every fact its stable id; the same fact seen again, word for word or in other words by the same speakers
    (`restatement.says_again`), merges into the first, worded as the one that names more of it (paths,
    backticked names, numbers: the Reflector's `specifics`). Two facts of one message need share only
    `RESTATED_SHARE` of the shorter's words, as the Reflector's lines of one session: "The game is lost when the
    king is captured. […] The game simply ends if the king is captured." is one rule said twice."""
    seen: dict[str, Fact] = {}  # by every text a kept fact was given
    every: list[Fact] = []  # each kept fact once, in order
    result: list[Segment] = []
    for segment in segments:
        kept: list[Fact] = []
        for fact in segment.facts:
            first = seen.get(fact.text) or next((f for f in every if f.source_roles == fact.source_roles
                                                 and says_again(f.text, fact.text, _share(f, fact))), None)
            if first is None:
                first = fact.model_copy(update={"id": stable_id(dedupe_key, fact.text)})
                seen[fact.text] = first
                kept.append(first)
                every.append(first)
                continue
            if first.text != fact.text and specifics(fact.text) > specifics(first.text):
                first.text, first.id = fact.text, stable_id(dedupe_key, fact.text)
                seen[fact.text] = first
            if _RANK[fact.priority] < _RANK[first.priority]:
                first.priority = fact.priority
            first.time = first.time or fact.time
            first.source_message_ids = list(dict.fromkeys(first.source_message_ids + fact.source_message_ids))
            first.source_roles = list(dict.fromkeys(first.source_roles + fact.source_roles))
        result.append(segment.model_copy(update={"facts": kept}))
    return result


def _share(first: Fact, then: Fact) -> float:
    """The share of the shorter's words the other must hold to say it again: fewer for two facts of one message."""
    return RESTATED_SHARE if first.source_message_ids and first.source_message_ids == then.source_message_ids else 1.0


def observation_from_output(
    output: ObserverOutput, *, event: SessionEvent, code_version: str, usage: LLMUsage,
    roles: dict[str, str] | None = None,
) -> Observation:
    """The stored Observation: content-derived ids, provenance from the event (and, with `roles`,
    message id -> role, the role of every fact's sources), tokens of its facts."""
    data = event.data
    segments = _dedupe_facts(with_roles(output.segments, roles or {}), data.dedupe_key)
    facts_text = "\n".join(format_fact(f) for s in segments for f in s.facts)
    return Observation(
        id=stable_id(data.dedupe_key),
        dedupe_key=data.dedupe_key,
        session_id=data.session_id,
        session_name=data.session_name,
        trigger=data.trigger,
        date=event.day,
        captured_at=data.captured_at,
        segments=segments,
        current_task=output.current_task,
        suggested_response=output.suggested_response,
        format=output.format,
        files_read=list(data.files_read),
        files_modified=list(data.files_modified),
        token_count=estimate_tokens(facts_text),
        usage=usage,
        code_version=code_version,
    )
