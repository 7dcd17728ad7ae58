"""The recall quality bench's pieces: the BM25-over-turns anchor, lme-dev's questions, the per-type summary."""

from __future__ import annotations

import json

import pytest

from benchmarks.bm25_turns import TurnBM25, words
from benchmarks.lme import first_day, load_questions
from benchmarks.locomo_eval import BenchQuestion, Variant, evaluate
from benchmarks.recall_quality import ANCHOR, PRODUCT, summary


def test_anchor_ranks_the_turn_sharing_the_rare_words_first():
    turns = [(["m1"], "I adopted a cat named Luna last spring"), (["m2"], "The weather is nice and the cat sleeps"),
             (["m3"], "We talked about the weather again"), (["m4"], "")]
    bm25 = TurnBM25(turns)
    hits = bm25.search("What is the name of my cat, Luna?", limit=2)
    assert [h.source_message_ids for h in hits] == [["m1"], ["m2"]]
    assert hits[0].score > hits[1].score > 0
    assert bm25.search("nothing matches zebra") == []
    assert words("The Cats are running") == ["cats", "running"]  # stop words out, no stemming


def test_lme_questions_and_first_day_from_a_folder(tmp_path):
    (tmp_path / "transcripts").mkdir()
    (tmp_path / "questions.jsonl").write_text(
        json.dumps({"id": "q1", "query": "Where did I go?", "type": "multi-session", "evidence": ["u1", "u2"]})
        + "\n\n",
        encoding="utf-8")
    for name, stamp in (("a", "2025-03-26T17:17:00.000Z"), ("b", "2024-04-12T21:10:00.000Z")):
        (tmp_path / "transcripts" / f"{name}.jsonl").write_text(json.dumps({"timestamp": stamp}) + "\n",
                                                                encoding="utf-8")
    assert load_questions(tmp_path) == [BenchQuestion("Where did I go?", "multi-session", ("u1", "u2"))]
    assert first_day(tmp_path) == "2024-04-12"
    with pytest.raises(FileNotFoundError):
        first_day(tmp_path / "transcripts")


def test_summary_puts_the_product_beside_the_anchor_per_type():
    bm25 = TurnBM25([(["u1"], "paris trip"), (["u2"], "paris again later"), (["u3"], "cooking pasta")])
    questions = [BenchQuestion("paris trip", "multi-session", ("u1", "u2")),
                 BenchQuestion("cooking", "single-session-user", ("u3",))]
    product = {"paris trip": [], "cooking": bm25.search("cooking pasta")}
    variants = [Variant(PRODUCT, through_cli=True), Variant(ANCHOR, anchor=True)]

    def search(query, variant):
        return product[query] if variant.through_cli else bm25.search(query)

    rows = summary("lme-dev", evaluate(questions, search, variants, overall="all"),
                   ("all", "single-session-user", "multi-session"))
    assert [(r["type"], r["n"], r["recall@10"], r["bm25 recall@10"]) for r in rows] == [
        ("all", 2, 0.5, 1.0), ("single-session-user", 1, 1.0, 1.0), ("multi-session", 1, 0.0, 1.0)]
