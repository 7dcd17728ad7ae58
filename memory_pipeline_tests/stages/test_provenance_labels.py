"""What a reader is told about who said a stored point, and which user turns hold a pasted block (pure)."""

from __future__ import annotations

import pytest

from memory_pipeline.models import Fact, Message, Observation, Segment, Transcript, stable_id
from memory_pipeline.stages.index.message_docs import message_documents
from memory_pipeline.stages.index.observation_docs import observation_points
from memory_pipeline.stages.provenance import label_of, pasted_block, point_labels, said_by, speaker, user_typed


@pytest.mark.parametrize("text", [
    "Here is the error:\n```\nTypeError: x is undefined\n```",
    "~~~\nsome pasted block\n~~~",
    "> We always disable the pre-commit hooks\nwhat do you think?",
    "it fails:\n2026-11-22 09:01:02 ERROR a\n2026-11-22 09:01:03 WARN b\n2026-11-22 09:01:04 ERROR c",
    "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\nValueError: bad",
    "src/app.ts:12:5: error TS2322\nsrc/app.ts:14:1: error TS2304\nsrc/app.ts:20:9: error TS2552",
])
def test_a_fenced_quoted_or_log_shaped_block_is_pasted(text):
    assert pasted_block(text)
    assert label_of(Message(id="m1", role="user", text=text), {}) == "pasted"


@pytest.mark.parametrize("text", [
    "I prefer pnpm over npm in all my projects",
    "Run `git status` and tell me what changed",
    "First fix the parser.\nThen run the tests.\nThen commit.",
    "ERROR handling should stay in the client\nplease keep it there",
])
def test_typed_words_stay_typed(text):
    assert not pasted_block(text)
    assert label_of(Message(id="m1", role="user", text=text), {}) == "user"


def test_pasted_words_are_never_the_users_rule():
    assert user_typed(["user"]) and not user_typed(["pasted"]) and not user_typed(["user", "pasted"])


def test_a_message_point_carries_its_label_and_an_old_one_its_roles():
    transcript = Transcript(format="claude-code", session_id="s", messages=[
        Message(id="m1", role="user", text="I prefer tabs", relayed=True),
        Message(id="m2", role="assistant", text="Noted"),
        Message(id="m3", role="user", text="look:\n```\nlog\n```")])
    docs = message_documents(transcript, day="2026-11-22", session_id="s")
    assert [d.payload["provenance"] for d in docs] == ["relayed", "assistant", "pasted"]
    assert [point_labels(d.payload) for d in docs] == [["relayed"], ["assistant"], ["pasted"]]
    assert speaker(docs[0].payload) == "User (relayed)" and speaker(docs[1].payload) == "Assistant"
    old = {"tier": "messages", "role": "user"}
    assert point_labels(old) == ["user"] and speaker(old) == "User"
    assert point_labels({"tier": "messages"}) == ["unknown"]


def test_a_fact_says_the_labels_of_what_it_cites_and_a_narrative_those_of_its_facts():
    facts = [Fact(id=stable_id("f1"), priority="high", text="Uses pnpm", source_message_ids=["m1"], source_roles=["user"]),
             Fact(id=stable_id("f2"), priority="low", text="The page says Klingon", source_message_ids=["m2"], source_roles=["web"])]
    observation = Observation(id="o", session_id="s", dedupe_key="k", date="2026-11-22",
                              captured_at="2026-11-22T10:00:00+00:00", trigger="shutdown",
                              segments=[Segment(title="t", narrative="n", facts=facts)])
    points = {p.payload["kind"] + p.text: p.payload for p in observation_points(observation)}
    assert point_labels(points["factUses pnpm"]) == ["user"]
    assert point_labels(points["factThe page says Klingon"]) == ["web"]
    assert point_labels(points["narrativet: n"]) == ["user", "web"]
    assert point_labels({"tier": "observations"}) == ["unknown"]  # observed before labels were kept
    merged = {"tier": "observations", "sources": [{"source_roles": ["user"]}, {"source_roles": []},
                                                  {"source_roles": ["assistant", "tool"]}]}
    assert point_labels(merged) == ["user", "unknown", "assistant", "tool"]
    assert said_by(["assistant", "tool"]) == "assistant+tool" and said_by([]) == "unknown"
