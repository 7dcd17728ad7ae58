"""Run the Observer and Reflector the way ingest and reflect do, on transcripts a benchmark supplies.

The LLM is whatever the settings choose (offline unless an Anthropic key is set), the prompts
are the shipped prompt files, and `observe_session` / `reflect_observations` / the ledger flow's
typing and `derive_events` are the very functions the ingest, reflect and ledger steps call: a
benchmark measures the product's default path.
"""

from __future__ import annotations

from datetime import datetime, timezone

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.models import EventData, Observation, ProposalDraft, SessionEvent, Transcript
from memory_pipeline.resources.llm import build_llm_client
from memory_pipeline.stages.observe.session import observe_session
from memory_pipeline.stages.redact import redact_transcript
from memory_pipeline.stages.reflect.reflector import reflect_observations


def _event(transcript: Transcript, session_id: str, captured_at: datetime) -> SessionEvent:
    data = EventData(sessionId=session_id, dedupeKey=f"bench-{session_id}", trigger="shutdown",
                     messageCount=len(transcript.messages), userMessageCount=transcript.user_message_count,
                     capturedAt=captured_at, schemaVersion=1, sessionName=session_id,
                     filesRead=transcript.files_read, filesModified=transcript.files_modified)
    return SessionEvent(name="memory/session.ended", data=data)


def _last_time(transcript: Transcript) -> datetime:
    times = [m.timestamp for m in transcript.messages if m.timestamp]
    return max(times) if times else datetime(2026, 1, 1, tzinfo=timezone.utc)


class BenchRunner:
    """One LLM client and the shipped prompts, shared by every session a benchmark observes."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings.from_env()
        self.llm = build_llm_client(self.settings, None)
        self.observer_prompt = pipeline.stage_prompt("observer", self.settings)
        self.reflector_prompt = pipeline.stage_prompt("reflector", self.settings)

    @property
    def provider(self) -> str:
        return self.settings.llm_provider

    def observe(self, transcript: Transcript, session_id: str) -> Observation:
        event = _event(transcript, session_id, _last_time(transcript))
        return observe_session(redact_transcript(transcript), event, llm=self.llm, prompt=self.observer_prompt,
                               model=self.settings.observer_model)

    def reflect(self, observations: list[Observation]) -> list[ProposalDraft]:
        day = max(o.date for o in observations)
        reflection, _ = reflect_observations(
            observations, day=day, memory_md="", observer_instructions=self.observer_prompt.system,
            llm=self.llm, prompt=self.reflector_prompt, model=self.settings.reflector_model)
        return list(reflection.proposals)

    def ledger_events(self, observations: list[Observation], embed) -> list:
        """The ledger events the `ledger` step appends for these observations, day by day."""
        from memory_pipeline.flows.ledger.events import fact_inputs, type_facts
        from memory_pipeline.stages.ledger.classify import by_provenance
        from memory_pipeline.stages.ledger.derive import derive_events
        from memory_pipeline.stages.ledger.state import LedgerState
        from memory_pipeline.stages.vectors import cosine

        def similarity(text: str, others: list[str]) -> list[float]:
            first, *rest = embed([text, *others])
            return [max(0.0, cosine(first, other)) for other in rest]

        state, numbers, events = LedgerState.of([]), {}, []
        for day in sorted({o.date for o in observations}):
            facts = fact_inputs(day, [o for o in observations if o.date == day])
            if not facts:
                continue
            kinds, _ = type_facts(facts, self.llm, pipeline.stage_prompt("ledger", self.settings), pipeline.model_for(self.settings, "ledger"))
            kinds = [by_provenance(kind, fact.roles) for kind, fact in zip(kinds, facts)]
            events += derive_events(facts, kinds, state, similarity, numbers)
        return events
