"""The Observer/Reflector quality benches on tiny data written here: the scorers' arithmetic with the real
embedding model, and a synthetic LoCoMo-style conversation through the offline Observer end to end."""

from __future__ import annotations

import json

import pytest

from benchmarks.observe_coding import LABELS, SESSIONS_DIR, LabelledSentence, load_labels, score_fixture
from memory_pipeline.stages.transcripts.parse import parse_transcript
from benchmarks.observe_quality import FactView, Reference, bench_observe_quality, noise_kind, score_session
from benchmarks.observe_run import BenchRunner
from benchmarks.pack_quality import load_pack_labels, pack_lines, score_pack
from benchmarks.reflect_quality import LABELS as PROPOSAL_LABELS
from benchmarks.reflect_quality import ProposalLabel, ProposalView, load_proposal_labels, score_proposals
from memory_pipeline.config import Settings
from memory_pipeline.resources.embedding.embedder import get_embedder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def embed():
    return get_embedder().encode


def turn(dia_id: str, speaker: str, text: str) -> dict:
    return {"speaker": speaker, "dia_id": dia_id, "text": text}


# Written for this test (not LoCoMo text): one session, two speakers, reference facts citing their turns.
SYNTHETIC = [{
    "sample_id": "syn-1",
    "conversation": {
        "speaker_a": "Dana", "speaker_b": "Sam",
        "session_1_date_time": "3:10 pm on 4 March, 2024",
        "session_1": [
            turn("D1:1", "Dana", "Hey Sam! How have you been?"),
            turn("D1:2", "Sam", "Hi Dana! I just moved to Lisbon for a new job at a design studio."),
            turn("D1:3", "Dana", "Wow, congrats! What's the studio like?"),
            turn("D1:4", "Sam", "It's small and friendly. My brother helped me find an apartment by the river."),
            turn("D1:5", "Dana", "I started a pottery class last month and I really love it."),
            turn("D1:6", "Sam", "That sounds lovely!"),
        ],
    },
    "observation": {"session_1_observation": {
        "Dana": [["Dana recently started taking pottery classes and loves them.", "D1:5"]],
        "Sam": [["Sam moved to Lisbon for a job at a design studio.", "D1:2"],
                ["Sam's brother helped Sam find an apartment near the river.", "D1:4"],
                ["Sam plays the cello in an orchestra.", "D1:6"]],
    }},
    "qa": [],
}]


def test_noise_classes():
    assert noise_kind('User asked: "Is this your painting?"') == "question"
    assert noise_kind("Where did the team go for the offsite?") == "question"
    assert noise_kind("Hey Sam, good to see you again today!") == "greeting"
    assert noise_kind("(10:02) Sounds good.") == "short"
    assert noise_kind("Sam asked for help moving the piano and it went well.") is None


def test_session_scorer_needs_the_cited_turn_and_the_same_meaning(embed):
    references = [Reference("Sam moved to Lisbon for a job at a design studio.", ["D1:2"]),
                  Reference("Dana started a pottery class.", ["D1:5"])]
    facts = [FactView("Sam just moved to Lisbon for a new job at a design studio.", ["D1:2"]),
             FactView("Dana started a pottery class last month.", ["D1:9"]),  # right words, wrong turn
             FactView("Hi!", ["D1:1"])]
    tally = score_session(facts, references, turns=6, embed=embed)
    figures = tally.figures()
    assert (tally.covered, tally.noisy) == (1, 1)
    assert figures["coverage"] == 0.5 and figures["facts_per_turn"] == 0.5 and figures["noise"] == 0.333


def test_the_offline_observer_on_a_synthetic_conversation(tmp_path, embed):
    data = tmp_path / "conversations.json"
    data.write_text(json.dumps(SYNTHETIC), encoding="utf-8")
    runner = BenchRunner(Settings.from_env({"MEMORY_LLM_PROVIDER": "offline", "MEMORY_WORKSPACE": str(tmp_path)}))

    result = bench_observe_quality(runner, embed, data)

    figures = result["conversations"]["syn-1"]
    assert result["provider"] == "offline"
    assert figures["references"] == 4 and figures["turns"] == 6
    assert figures["coverage"] == 0.75  # the cello is never mentioned: it cannot be covered
    assert figures["noise"] == 0.0 and figures["facts"] == 3


def test_coding_scorer_counts_facts_for_precision_and_sentences_for_recall(embed):
    labels = [LabelledSentence("m4", "The root cause is a stale DNS cache in the resolver sidecar.", True),
              LabelledSentence("m5", "All 40 tests pass.", False),
              LabelledSentence("m9", "Always pin urllib3 below 2.0 for the legacy client.", True)]
    facts = [FactView("The root cause is a stale DNS cache in the resolver sidecar.", ["m4"]),
             FactView("All 40 tests pass.", ["m5"]),
             FactView("Modified `resolver/cache.py`", ["m4"])]
    counts = score_fixture(facts, labels, embed)
    assert (counts["labelled_facts"], counts["true_positives"], counts["unlabelled_facts"]) == (2, 1, 1)
    assert (counts["durable"], counts["durable_kept"]) == (2, 1)


def test_reflector_scorer_checks_the_section_and_lists_unlabelled_lines(embed):
    labels = [ProposalLabel("Never run the seed script against production.", True, ["Hard Rules"]),
              ProposalLabel("All 40 tests pass.", False, [])]
    proposals = [ProposalView("Hard Rules", "[quoted] Never run the seed script against production."),
                 ProposalView("Patterns", "All 40 tests pass."),
                 ProposalView("User", "Prefers tabs over spaces in Makefiles.")]
    figures = score_proposals(proposals, labels, sessions=4, embed=embed)
    assert (figures["labelled"], figures["good"], figures["precision"]) == (2, 1, 0.5)
    assert figures["useful_per_10_sessions"] == 2.5 and figures["unlabelled"] == ["User: Prefers tabs over spaces in Makefiles."]
    assert figures["recall"] == 1.0 and figures["change_logs"] == 0


def test_recall_counts_facts_once_and_change_logs_apart(embed):
    labels = [ProposalLabel("Use uv, not pip.", True, ["Hard Rules"], fact="uv"),
              ProposalLabel("No, use uv, not pip: uv add --dev pytest-httpx.", True, ["Hard Rules"], fact="uv"),
              ProposalLabel("Tests never call the real billing API.", True, ["Hard Rules"]),
              ProposalLabel("`config.ts` moved to `src/`, all imports updated.", False, [], "a change log of it")]
    proposals = [ProposalView("Hard Rules", "Use uv, not pip."),
                 ProposalView("System Architecture", "`config.ts` moved to `src/`, all imports updated.")]
    figures = score_proposals(proposals, labels, sessions=2, embed=embed)
    assert (figures["recall"], figures["facts"], figures["change_logs"]) == (0.5, 2, 1)


def test_pack_lines_are_read_by_section_and_scored(embed):
    text = ("# Recall Pack — 2026-11-25\n\n## 📋 OPEN COMMITMENTS — Oldest first, with status and age\n"
            "- [EVT-20251209-009] i can live with main-new.ts in src/ — open, 351 days (P1)\n\n"
            "## 📚 PROCEDURES — Key operational procedures\n- [EVT-20261124-010] Ran `git add -A` (git)\n"
            "- [EVT-20261124-011] Every CI job waits on pg_isready first. (ci)\n")
    lines = pack_lines(text)
    assert [(s, t, d) for s, t, d, _ in lines] == [
        ("commitments", "i can live with main-new.ts in src/", 351), ("procedures", "Ran `git add -A`", None),
        ("procedures", "Every CI job waits on pg_isready first.", None)]
    labels = [ProposalLabel("Every CI job waits on pg_isready first.", True, ["procedures"]),
              ProposalLabel("i can live with main-new.ts in src/", True, ["context"])]
    figures = score_pack(lines, labels, embed)
    assert figures["commands_in_procedures"] == ["Ran `git add -A`"]
    assert figures["stale_commitments_unmarked"] == ["i can live with main-new.ts in src/"]
    assert (figures["precision"], figures["recall"]) == (0.5, 0.5) and figures["sections"]["commitments"]["good"] == 0


def test_label_files_load():
    fixtures = load_labels(LABELS)
    transcripts, proposals = load_proposal_labels(PROPOSAL_LABELS)
    assert all(s.message_id and s.text for sentences in fixtures.values() for s in sentences)
    # The Reflector's and the pack's labels cover a subset of the Observer's sessions (the three
    # sessions recorded with the real clients are labelled for the Observer only, so far).
    assert set(transcripts) <= set(fixtures) and len(transcripts) >= 8
    assert any(p.good for p in proposals) and any(not p.good for p in proposals)
    pack_transcripts, lines = load_pack_labels()
    assert pack_transcripts == transcripts and all(line.sections for line in lines if line.good)


def test_recorded_coding_sessions_hold_every_labelled_message():
    """The sessions of bench/sessions/ (recorded by support/coding_sessions.py with Claude Code, pi and
    Codex) cite real ids."""
    recorded = {path: sentences for path, sentences in load_labels(LABELS).items() if path.startswith("bench:")}
    assert len(recorded) == 10 and sum(s.durable for sentences in recorded.values() for s in sentences) >= 63
    for path, sentences in recorded.items():
        messages = {m.id: m.text for m in parse_transcript(SESSIONS_DIR / path.removeprefix("bench:")).messages}
        assert all(s.text in messages[s.message_id] for s in sentences), path
