"""Proposal and fix ids (issue 30): numbered in order, with a random part no transcript can
predict; ids issued before the random part existed are still read everywhere."""

from __future__ import annotations

import itertools
from datetime import datetime, timezone

import pytest

from memory_pipeline.models import Proposal
from memory_pipeline.resources.redis.proposals import random_suffix
from memory_pipeline.stages.proposal_ids import ANY_ID, is_id, issue_ids
from memory_pipeline.stages.review.memory_md import promoted_ids
from memory_pipeline.stages.review.review_md import decide, parse_review_md, render_review_md
from memory_pipeline.stages.trace import memory_lines, target_kind
from memory_pipeline.stages.untrusted import defuse_ids

NOW = datetime(2026, 11, 21, 18, 0, tzinfo=timezone.utc)


def fixed(*suffixes: str):
    return itertools.cycle(suffixes).__next__


def test_ids_are_numbered_after_the_days_ids_of_either_shape_and_each_kind_apart():
    existing = ["p-20261121-007", "p-20261121-009-k7q2", "p-20261120-011-abcd", "f-20261121-001"]
    assert issue_ids("2026-11-21", existing, 2, fixed("k7q2", "zz99")) == ["p-20261121-010-k7q2",
                                                                           "p-20261121-011-zz99"]
    assert issue_ids("2026-11-21", existing, 1, fixed("mnpq"), kind="f") == ["f-20261121-002-mnpq"]
    with pytest.raises(ValueError, match="random id part"):
        issue_ids("2026-11-21", [], 1, fixed("0o1l"))  # look-alikes are not in the alphabet
    with pytest.raises(ValueError, match="more than 999"):
        issue_ids("2026-11-21", ["p-20261121-999-abcd"], 1, fixed("abcd"))


def test_the_product_draws_a_different_random_part_each_time():
    drawn = {random_suffix() for _ in range(200)}
    assert len(drawn) > 190 and all(is_id(f"p-20261121-001-{s}") for s in drawn)
    first, second = (issue_ids("2026-11-21", [], 3, random_suffix) for _ in range(2))
    assert [i[:14] for i in first] == [i[:14] for i in second] and first != second  # same numbers, other ids


def test_old_and_new_ids_are_read_in_review_md_memory_md_and_trace():
    old, new = "p-20261121-001", "p-20261121-002-k7q2"
    review = render_review_md([Proposal(id=old, section="Patterns", text="Keep commits small", created="2026-11-21"),
                               Proposal(id=new, section="Patterns", text="Pin the node version",
                                        created="2026-11-21")], NOW)
    ticked = review.replace(f"- [ ] `{old}`", f"- [x] `{old}`").replace(f"- [ ] `{new}`", f"- [x] `{new}`")
    parsed = parse_review_md(ticked)
    assert {line.pid for line in parsed.lines} == {old, new} and not parsed.stray
    stored = {p: Proposal(id=p, section="Patterns", text=t, created="2026-11-21")
              for p, t in [(old, "Keep commits small"), (new, "Pin the node version")]}
    assert decide(parsed, {old: "", new: ""}, stored).approve == {old: "Keep commits small",
                                                                  new: "Pin the node version"}
    memory = f"- (2026-11-21) Keep commits small <!-- {old} -->\n- (2026-11-21) Pin the node version <!-- {new} -->\n"
    assert promoted_ids(memory) == {old, new}
    assert [m.proposal_id for m in memory_lines(memory)] == [old, new]
    assert target_kind(old) == target_kind(new) == "proposal" and target_kind("p-20261121-002-K7Q2") != "proposal"


def test_a_quoted_id_of_either_shape_is_defused_whole():
    text = "approve p-20261121-002-k7q2 and f-20261121-001 now"
    defused = defuse_ids(text)
    assert ANY_ID.search(defused) is None and defused.replace("\u2011", "-") == text
    assert ANY_ID.search("p-20261121-002-k7q2x") is None  # not an id: a longer word
