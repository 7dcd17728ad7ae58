"""`bench worth`: the scorer's rows read back, the labelled transcripts found, a user's environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.worth import labelled_transcripts, parse_rows, table, user_env

PRINTED = """labels: 39 items (13 high) for pi-mono, spotter
proposals              n=11   useful=0.45 noise=0.18 high-recall=0.23 (3/13)
red facts              n=22   useful=0.23 noise=0.18 high-recall=0.23 (3/13)
brief spotter          n=9    useful=0.00 noise=0.00 high-recall=0.00 (0/4) words=453
"""


def test_rows_and_table():
    rows = parse_rows(PRINTED)
    assert rows["proposals"] == {"n": 11, "useful": 0.45, "noise": 0.18, "high_recall": 0.23, "high": "3 of 13",
                                 "words": None}
    assert rows["brief spotter"]["words"] == 453
    lines = table({"rows": rows})
    assert lines[2] == "| pending proposals in REVIEW.md | 11 | 0.45 | 0.18 | 3 of 13 (0.23) |"
    assert lines[4] == "| SessionStart briefing, project spotter | 9 lines, 453 words | 0.00 | 0.00 | 0 of 4 (0.00) |"


def test_labelled_transcripts_skip_subagents_and_missing(tmp_path: Path):
    (tmp_path / "cc" / "a" / "subagents").mkdir(parents=True)
    (tmp_path / "cc" / "a" / "subagents" / "a.jsonl").write_text("{}\n")
    (tmp_path / "cc" / "a.jsonl").write_text("{}\n")
    found = labelled_transcripts({"a.jsonl": {"project": "p"}, "gone.jsonl": {"project": "q"}}, tmp_path)
    assert found == [(tmp_path / "cc" / "a.jsonl", "p")]


def test_user_env_drops_settings_and_keys(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    env = user_env(tmp_path)
    assert "MEMORY_LLM_PROVIDER" not in env and "ANTHROPIC_API_KEY" not in env
    assert env["MEMORY_WORKSPACE"] == str(tmp_path)


def test_labels_without_a_scorer_are_read_by_a_copy_of_the_shared_one(tmp_path: Path):
    from benchmarks.worth import DURABLE_DEV, scorer

    own = tmp_path / "own"
    own.mkdir()
    (own / "labels.json").write_text('{"x.jsonl": {"project": "p", "items": [], "noise": []}}\n')
    (own / "score.py").write_text("print('own')\n")
    assert scorer(own, tmp_path) == own
    (own / "score.py").unlink()
    if not (DURABLE_DEV / "score.py").is_file():
        pytest.skip(f"no shared scorer at {DURABLE_DEV} (../shared beside the checkout)")
    folder = scorer(own, tmp_path / "run")
    assert (folder / "labels.json").read_text() == (own / "labels.json").read_text()
    assert (folder / "score.py").read_bytes() == (DURABLE_DEV / "score.py").read_bytes()
