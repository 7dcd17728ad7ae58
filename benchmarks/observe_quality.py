"""Observer quality on LoCoMo: coverage of the reference observations, noise, facts per turn.

LoCoMo ships, for every session, reference facts about each speaker, each citing the dialog turn
it comes from. A reference counts as covered when a fact of the same session cites that turn in
its `source_message_ids` and says the same thing (MiniLM cosine >= COVERAGE_COSINE). Noise is
the share of facts that are questions, greetings or under NOISE_MIN_WORDS words. Each session
goes through `observe_session` with the configured LLM (offline by default), as ingest runs it.
The data is read from ../shared (CC BY-NC) and never copied into the repository.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.locomo import DEFAULT_DATA, load_conversations, session_jsonl
from memory_pipeline.stages.vectors import cosine

COVERAGE_COSINE = 0.55
NOISE_MIN_WORDS = 4
_TIME = re.compile(r"^\(\d{2}:\d{2}\)\s*")
_ASKED = re.compile(r"^(?:the\s+)?[\w ]{0,30}\basked\s*:", re.IGNORECASE)
_GREETING = re.compile(
    r"^(?:[\w ]{1,30}:\s*)?[\"']?(?:hi|hey|hello|hiya|howdy|good (?:morning|afternoon|evening|night)|"
    r"(?:thanks|thank you)(?: so much| a lot)?|bye|goodbye|see you|take care|talk (?:to you )?(?:soon|later)|"
    r"nice to (?:see|meet|hear)|good to (?:see|hear))\b",
    re.IGNORECASE,
)


@dataclass
class FactView:
    """What the scorer needs of a fact: its text and the message ids it cites."""

    text: str
    source_ids: list[str]


@dataclass
class Reference:
    text: str
    turn_ids: list[str]


@dataclass
class QualityTally:
    references: int = 0
    covered: int = 0
    facts: int = 0
    noisy: int = 0
    turns: int = 0
    noise_examples: list[str] = field(default_factory=list)

    def add(self, other: "QualityTally") -> None:
        self.references += other.references
        self.covered += other.covered
        self.facts += other.facts
        self.noisy += other.noisy
        self.turns += other.turns
        self.noise_examples += other.noise_examples[: max(0, 5 - len(self.noise_examples))]

    def figures(self) -> dict:
        ratio = lambda a, b: round(a / b, 3) if b else None  # noqa: E731
        return {"references": self.references, "coverage": ratio(self.covered, self.references),
                "facts": self.facts, "noise": ratio(self.noisy, self.facts), "turns": self.turns,
                "facts_per_turn": ratio(self.facts, self.turns)}


def noise_kind(text: str) -> str | None:
    """"question", "greeting" or "short" when a fact is noise, else None."""
    plain = _TIME.sub("", " ".join(text.split())).strip()
    if plain.rstrip(" \"'”").endswith("?") or _ASKED.match(plain):
        return "question"
    if _GREETING.match(plain):
        return "greeting"
    if len(plain.split()) < NOISE_MIN_WORDS:
        return "short"
    return None


def score_session(facts: list[FactView], references: list[Reference], turns: int, embed) -> QualityTally:
    """Coverage, noise and counts for one session; `embed(texts)` returns unit vectors."""
    tally = QualityTally(references=len(references), facts=len(facts), turns=turns)
    for fact in facts:
        if kind := noise_kind(fact.text):
            tally.noisy += 1
            tally.noise_examples.append(f"[{kind}] {fact.text[:100]}")
    if not facts or not references:
        return tally
    vectors = embed([f.text for f in facts] + [r.text for r in references])
    fact_vectors, reference_vectors = vectors[: len(facts)], vectors[len(facts):]
    for reference, ref_vector in zip(references, reference_vectors):
        wanted = set(reference.turn_ids)
        for fact, fact_vector in zip(facts, fact_vectors):
            if wanted & set(fact.source_ids) and cosine(fact_vector, ref_vector) >= COVERAGE_COSINE:
                tally.covered += 1
                break
    return tally


def _turn_ids(value) -> list[str]:
    parts = value if isinstance(value, list) else [value]
    return [p for part in parts for p in re.split(r"[;,\s]+", str(part)) if p]


def reference_observations(path: Path) -> dict[str, dict[int, list[Reference]]]:
    """sample_id → session number → reference facts (both speakers)."""
    found: dict[str, dict[int, list[Reference]]] = {}
    for sample in json.loads(Path(path).read_text(encoding="utf-8")):
        sessions: dict[int, list[Reference]] = {}
        for key, by_speaker in (sample.get("observation") or {}).items():
            number = int(key.split("_")[1])
            sessions[number] = [Reference(str(fact), _turn_ids(turn)) for facts in by_speaker.values()
                                for fact, turn in facts]
        found[sample["sample_id"]] = sessions
    return found


def bench_observe_quality(runner, embed, path: Path = DEFAULT_DATA, limit_sessions: int | None = None) -> dict:
    """Per conversation and overall: coverage, noise, facts per turn (see the module docstring)."""
    from memory_pipeline.stages.transcripts.parse import parse_transcript

    references = reference_observations(path)
    result: dict = {"provider": runner.provider, "conversations": {}}
    overall = QualityTally()
    for conversation in load_conversations(path, limit_sessions=limit_sessions):
        tally = QualityTally()
        for session in conversation.sessions:
            transcript = parse_transcript(session_jsonl(conversation, session), format="claude-code")
            observation = runner.observe(transcript, f"locomo-{conversation.sample_id}-s{session.number}")
            facts = [FactView(f.text, f.source_message_ids) for s in observation.segments for f in s.facts]
            wanted = references.get(conversation.sample_id, {}).get(session.number, [])
            tally.add(score_session(facts, wanted, len(session.turns), embed))
        result["conversations"][conversation.sample_id] = tally.figures() | {"noise_examples": tally.noise_examples}
        overall.add(tally)
    result["overall"] = overall.figures()
    return result
