"""The Reflector stage: prompt rendering, refs, temporal gradient, parsing, compression escalation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_pipeline.errors import MemoryPipelineError
from memory_pipeline.models import Segment
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.llm import REASK_NOTE, LLMClient
from memory_pipeline.stages.reflect.reflector import (
    GUIDANCE,
    build_reflector_messages,
    needs_redistill,
    parse_reflector_output,
    redistill,
    reflect_observations,
    render_observations,
    validate_compression,
)
from memory_pipeline.stages.tokens import estimate_tokens
from memory_pipeline_tests.support.fake_llm import QueuedProvider
from memory_pipeline_tests.support.review_fixtures import fact, observation

OBSERVER = load_prompt("observer")
REFLECTOR = load_prompt("reflector")


def sample_observations():
    first = observation("2026-11-20", "orders", [Segment(title="Redis pool", narrative="Fixed pool exhaustion.", facts=[
        fact("high", "Root cause: staging Redis allows 128 clients and each request opened its own pool"),
        fact("medium", "Ran `uv run pytest -q`; all 5 tests pass"),
        fact("low", "Asked whether the pool is too small"),
    ])], current_task="Primary: document the pool")
    second = observation("2026-11-21", "catalog", [Segment(title="API", narrative="Pagination conventions.", facts=[
        fact("high", 'User stated: "every list endpoint returns {items, next_cursor, has_more}, no exceptions"'),
    ])])
    return [first, second]


def reflect(provider, observations=None, **kwargs):
    client = LLMClient(provider, cache_dir=None, sleep=lambda _: None)
    return reflect_observations(sample_observations() if observations is None else observations, day="2026-11-21",
                                memory_md="# MEMORY\n", observer_instructions=OBSERVER.system, llm=client,
                                prompt=REFLECTOR, model="test-model", **kwargs)


def test_prompt_teaches_how_observations_were_made_and_renders_strictly():
    system, user = build_reflector_messages(REFLECTOR, observer_instructions=OBSERVER.system, memory_md="",
                                            observations="<observation/>", day="2026-11-21", level=0)
    assert OBSERVER.system.strip()[:200] in system
    assert "Hard Rules" in system and "System Architecture" in system and "[quoted]" in system
    assert "(empty)" in user and "<observation/>" in user and "Compression level" not in user
    _, escalated = build_reflector_messages(REFLECTOR, observer_instructions="x", memory_md="m", observations="o",
                                            day="2026-11-21", level=2)
    assert "Compression level 2 of 3" in escalated
    with pytest.raises(MemoryPipelineError):
        build_reflector_messages(REFLECTOR, observer_instructions="x", memory_md="", observations="", day="d",
                                 level=len(GUIDANCE))
    assert len(GUIDANCE) >= 3


def test_rendered_observations_carry_refs_back_to_fact_observation_and_session_ids():
    observations = sample_observations()
    rendered = render_observations(observations, {observations[0].id})
    assert 'ref="O1" session="orders" date="2026-11-20" distilled="yes"' in rendered.text
    assert rendered.refs["F1"].fact_id == observations[0].facts[0].id
    assert rendered.refs["F4"].observation_id == observations[1].id
    assert rendered.refs["O2"].session_id == "catalog"
    assert "{F4}" in rendered.text and rendered.sessions == ["orders", "catalog"]


def test_redistill_keeps_narratives_and_red_facts_only_after_three_days():
    old = sample_observations()[0]
    assert needs_redistill(old, "2026-11-24") and not needs_redistill(old, "2026-11-23")
    distilled = redistill(old)
    assert [f.priority for f in distilled.facts] == ["high"]
    assert distilled.segments[0].narrative == "Fixed pool exhaustion."
    assert len(old.facts) == 3  # the original is untouched


def test_parser_reads_tagged_answers_with_refs_sections_and_quote_markers():
    rendered = render_observations(sample_observations(), set())
    raw = """<proposals>
## Proposed for: Joel
- (2026-11-21) Prefers small commits [F2]
## Proposed for: **Hard Rules**
- [ ] [quoted] Every list endpoint returns {items, next_cursor, has_more} {F4}
## Architecture
* Staging Redis allows 128 clients [F1, F99, O1]
1. A line citing nothing
</proposals>
<summary>
Pool fixed;   conventions set.
</summary>"""
    out = parse_reflector_output(raw, rendered.refs)
    assert out.format == "tagged" and out.summary == "Pool fixed; conventions set."
    assert [(p.section, p.text) for p in out.proposals] == [
        ("User", "Prefers small commits"),
        ("Hard Rules", "Every list endpoint returns {items, next_cursor, has_more}"),
        ("System Architecture", "Staging Redis allows 128 clients"),
        ("System Architecture", "A line citing nothing"),
    ]
    assert out.proposals[1].quotes_transcript and not out.proposals[0].quotes_transcript
    assert out.proposals[2].refs == ["F1", "O1"]  # F99 does not exist
    assert out.proposals[2].sessions == ["orders"] and out.proposals[3].source_observation_ids == []


def test_parser_tolerates_unclosed_tags_and_untagged_answers():
    unclosed = parse_reflector_output("<proposals>\n## Patterns\n- Share one pool per process [F1]\n<summary>Done")
    assert unclosed.proposals[0].section == "Patterns" and unclosed.summary == "Done"
    untagged = parse_reflector_output("Here you go:\n## Proposed for: Hard Rules\n- Never use pip")
    assert untagged.format == "untagged" and untagged.proposals[0].section == "Hard Rules"
    assert parse_reflector_output("I cannot help with that.").format == "empty"
    assert parse_reflector_output(None).proposals == []


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>/-*#[]{}()FO0123 \nproposalsummaryHardRules:`\"")), max_size=300))
def test_parser_never_raises(raw):
    parse_reflector_output(raw, render_observations(sample_observations(), set()).refs)


def test_compression_is_output_smaller_than_input():
    assert validate_compression(100, 99) and not validate_compression(100, 100)


def answer(lines: int) -> str:
    body = "\n".join(f"- Proposal number {i} about staging Redis pools and connection limits [F1]" for i in range(lines))
    return f"<proposals>\n## Proposed for: Patterns\n{body}\n</proposals>\n<summary>s</summary>"


def test_too_large_answers_escalate_guidance_level_by_level():
    provider = QueuedProvider().enqueue(answer(40), answer(30), answer(1))
    reflection, notes = reflect(provider)
    assert [("Compression level" in c["prompt"]) for c in provider.calls] == [False, True, True]
    assert "Compression level 1 of 3" in provider.calls[1]["prompt"]
    assert "Compression level 2 of 3" in provider.calls[2]["prompt"]
    assert reflection.attempts == 3 and reflection.guidance_level == 2 and len(notes) == 2
    assert reflection.output_tokens < reflection.input_tokens
    assert reflection.proposals[0].source_fact_ids == [sample_observations()[0].facts[0].id]
    assert all(c["task"] == "reflector" for c in provider.calls)


def test_when_every_level_is_too_large_the_proposals_are_trimmed_to_fit():
    provider = QueuedProvider().enqueue(*[answer(40)] * len(GUIDANCE))
    reflection, notes = reflect(provider)
    assert len(provider.calls) == len(GUIDANCE) and len(notes) == len(GUIDANCE) + 1
    assert notes[-1].startswith("every guidance level was too large") and 0 < len(reflection.proposals) < 40
    assert reflection.output_tokens < reflection.input_tokens


def test_an_unusable_answer_is_asked_again_once():
    provider = QueuedProvider().enqueue("Sorry, what?", answer(1))
    reflection, _ = reflect(provider)
    assert len(provider.calls) == 2 and REASK_NOTE.split("{")[0] in provider.calls[1]["prompt"]
    assert len(reflection.proposals) == 1


def test_no_observations_means_no_call():
    provider = QueuedProvider()
    reflection, notes = reflect(provider, observations=[])
    assert provider.calls == [] and reflection.proposals == [] and notes == []


def test_input_tokens_measure_the_observations():
    provider = QueuedProvider().enqueue(answer(1))
    reflection, _ = reflect(provider)
    assert reflection.input_tokens == estimate_tokens(render_observations(sample_observations(), set()).text)
