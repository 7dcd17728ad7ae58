"""parse_observer_output: segment format, flat format, list-item fallback, and malformed input."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_pipeline.stages.observe.observer import parse_observer_output

REFS = {"m1": "id-1", "m2": "id-2", "m3": "id-3", "m4": "id-4", "m5": "id-5", "m7": "id-7"}

SEGMENTED = """Here is what I found.
<observations>
Date: 2026-02-15

<segment>
<title>Debugged worker registration</title>
<narrative>Debugged the worker registration failure. Root cause: a duplicate event trigger.</narrative>
<facts>
* 🔴 (09:15) Two functions sharing one event trigger make registration fail silently [m3, m7]
* 🟡 (09:25) `docker logs inngest-1` shows the registration errors [m4]
- 🟢 (09:30) Considered moving the worker to the monorepo (m5)
</facts>
</segment>

<segment>
<title>Accepted past-tense naming</title>
<narrative>Accepted ADR-0019 for past-tense event names.</narrative>
<facts>
* 🔴 (10:00) Events are named in the past tense: `video.requested`, not `video.request` [m1][m2]
</facts>
</segment>
</observations>

<current-task>
Primary: Writing the memory ADR
Secondary: none
</current-task>

<suggested-response>
Session completed normally.
</suggested-response>
"""


def test_segment_format_is_read_with_titles_narratives_facts_and_mapped_refs():
    output = parse_observer_output(SEGMENTED, REFS)

    assert output.format == "segments"
    assert output.date == "2026-02-15"
    assert [s.title for s in output.segments] == ["Debugged worker registration", "Accepted past-tense naming"]
    assert output.segments[0].narrative.startswith("Debugged the worker registration failure.")
    first = output.segments[0].facts
    assert [(f.priority, f.time) for f in first] == [("high", "09:15"), ("medium", "09:25"), ("low", "09:30")]
    assert first[0].text == "Two functions sharing one event trigger make registration fail silently"
    assert first[0].source_message_ids == ["id-3", "id-7"]
    assert first[2].source_message_ids == ["id-5"]
    assert output.segments[1].facts[0].source_message_ids == ["id-1", "id-2"]
    assert output.current_task == "Primary: Writing the memory ADR\nSecondary: none"
    assert output.suggested_response == "Session completed normally."


def test_missing_closing_observations_title_and_facts_tags_are_tolerated():
    raw = (
        "<observations>\nDate: 2026-03-01\n<segment>\n<narrative>Fixed the cache.</narrative>\n"
        "* 🔴 (11:02) The cache key now includes the model name [m2]\n"
        "<segment><title>Second</title><narrative>Unclosed narrative\n* 🟡 (11:30) Ran pytest -q [m4]\n"
        "<current-task>Primary: cache</current-task>"
    )
    output = parse_observer_output(raw, REFS)

    assert output.format == "segments"
    assert [s.title for s in output.segments] == ["", "Second"]
    assert output.segments[0].facts[0].text == "The cache key now includes the model name"
    assert output.segments[1].narrative == "Unclosed narrative"
    assert output.segments[1].facts[0].time == "11:30"
    assert output.current_task == "Primary: cache"


def test_flat_observations_become_one_segment_without_narrative():
    raw = (
        "<observations>\nDate: 2026-02-15\n\n* 🔴 (09:15) slog is for infrastructure changes only [m1]\n"
        "* 🟡 (09:25) Session-lifecycle extension v0.3.0 handles briefing\n  and the compaction flush [m2]\n"
        "</observations>\n<current-task>Primary: ADR</current-task>"
    )
    output = parse_observer_output(raw, REFS)

    assert output.format == "flat"
    assert len(output.segments) == 1 and output.segments[0].narrative == "" and output.segments[0].title == ""
    texts = [f.text for f in output.facts]
    assert texts == [
        "slog is for infrastructure changes only",
        "Session-lifecycle extension v0.3.0 handles briefing and the compaction flush",
    ]
    assert output.facts[1].source_message_ids == ["id-2"]


def test_list_items_anywhere_are_the_fallback():
    raw = "Sure! Observations:\n\n- 🔴 (08:05) Always run migrations before deploys [m1]\nprose line\n🟢 maybe later\n"
    output = parse_observer_output(raw, REFS)

    assert output.format == "fallback"
    assert [(f.priority, f.time, f.text) for f in output.facts] == [
        ("high", "08:05", "Always run migrations before deploys"),
        ("low", None, "maybe later"),
    ]


def test_refs_are_kept_as_given_without_a_map_and_unknown_refs_are_dropped_with_one():
    raw = "<observations>\n* 🔴 (10:00) A fact [m2, m99] \n* 🟡 Range fact [m3-m5].\n</observations>"

    assert [f.source_message_ids for f in parse_observer_output(raw).facts] == [["m2", "m99"], ["m3", "m4", "m5"]]
    assert [f.source_message_ids for f in parse_observer_output(raw, REFS).facts] == [
        ["id-2"],
        ["id-3", "id-4", "id-5"],
    ]
    assert [f.text for f in parse_observer_output(raw, REFS).facts] == ["A fact", "Range fact"]


def test_brackets_that_are_not_refs_stay_in_the_text():
    output = parse_observer_output("* 🔴 Use list[str] (not List) [m1]", REFS)
    assert output.facts[0].text == "Use list[str] (not List)"
    assert output.facts[0].source_message_ids == ["id-1"]


def test_invalid_times_stay_in_the_text_and_short_hours_are_padded():
    raw = "* 🔴 (25:99) impossible time\n* 🟡 (9:05) padded hour\n* 🟢 (early in session) relative time"
    facts = parse_observer_output(raw).facts

    assert [(f.time, f.text) for f in facts] == [
        (None, "(25:99) impossible time"),
        ("09:05", "padded hour"),
        (None, "(early in session) relative time"),
    ]


def test_time_before_the_emoji_and_priority_words_are_accepted():
    raw = "<observations>\n* (14:30) 🔴 time first [m1]\n* [high] worded priority\n* [low] a low one\n</observations>"
    facts = parse_observer_output(raw).facts

    assert [(f.priority, f.time, f.text) for f in facts] == [
        ("high", "14:30", "time first"),
        ("high", None, "worded priority"),
        ("low", None, "a low one"),
    ]


def test_unmarked_bullets_inside_facts_are_medium():
    raw = "<observations><segment><title>T</title><facts>\n* no emoji here [m1]\n</facts></segment></observations>"
    fact = parse_observer_output(raw, REFS).facts[0]
    assert (fact.priority, fact.text, fact.source_message_ids) == ("medium", "no emoji here", ["id-1"])


def test_empty_and_none_give_an_empty_output():
    for raw in ("", None, "   \n\n"):
        output = parse_observer_output(raw)
        assert output.format == "empty" and output.segments == [] and output.current_task is None


def test_garbage_gives_empty_and_keeps_what_it_can():
    junk = [
        "<<<>>></segment><segment",
        "\x00\x01\x02\xff binary \udcff",
        "<observations><segment><title></title></segment>",
        "<current-task></current-task><suggested-response>",
        "Date: 2026-13-45\n<observations>\nno bullets",
    ]
    for raw in junk:
        output = parse_observer_output(raw)
        assert output.format == "empty", raw
        assert output.date is None


def test_a_megabyte_of_junk_is_handled_quickly():
    pieces = ["<segment>", "[m1]", "(", "🔴", "<title>", "x" * 50, "\n", "* ", "</observations>", " " * 30]
    junk = "".join(pieces[i % len(pieces)] for i in range(120_000))[:1_000_000]
    output = parse_observer_output(junk)
    assert output.format in {"segments", "flat", "fallback", "empty"}
    long_line = parse_observer_output("* 🔴 " + "[m1]" * 250_000)
    assert long_line.format == "empty" or all(len(f.text) <= 1000 for f in long_line.facts)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                ["<observations>", "</observations>", "<segment>", "</segment>", "<title>", "<facts>", "</facts>",
                 "<narrative>", "<current-task>", "* ", "- ", "🔴", "🟡", "🟢", "(09:15) ", "(99:99)", "[m1, m2]",
                 "(m3)", "[m1-m9]", "\n", "Date: 2026-02-15\n", "]", "[", ")"]
            ),
            st.text(max_size=20),
        ),
        max_size=40,
    )
)
def test_parse_never_raises_and_times_are_valid(pieces):
    output = parse_observer_output("".join(pieces), {"m1": "a", "m2": "b"})
    for fact in output.facts:
        assert fact.text
        assert fact.time is None or re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", fact.time)
        assert set(fact.source_message_ids) <= {"a", "b"}
