"""Observer messages, the Observation record, the daily-log section and the 🔴-only briefing text."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from memory_pipeline.errors import MemoryPipelineError
from memory_pipeline.models import EventData, LLMUsage, Segment, SerializedTranscript, SessionEvent, stable_id
from memory_pipeline.prompts import PROJECT_PROMPTS as PROMPTS
from memory_pipeline.prompts import load_prompt
from memory_pipeline.stages.observe.format import format_fact
from memory_pipeline.stages.observe.observer import (
    build_observer_messages,
    format_segments_for_log,
    observation_from_output,
    optimize_for_context,
    parse_observer_output,
    transcript_tag,
)
from memory_pipeline.stages.tokens import estimate_tokens
from memory_pipeline_tests.support.review_fixtures import fact, observation

SEGMENTED = """<observations>
Date: 2026-02-15
<segment>
<title>Debugged Inngest worker registration</title>
<narrative>Debugged the registration failure. Root cause: duplicate event trigger. Fixed by removing it.</narrative>
<facts>
* 🔴 (09:15) Inngest rejects two functions sharing one event trigger [m1]
* 🔴 (09:20) The fix was removing `video.requested` from video-download.ts [m2]
* 🟡 (09:25) Docker logs show registration errors that worker stderr does not [m3]
</facts>
</segment>
<segment>
<title>Routine cleanup</title>
<narrative>Tidied imports.</narrative>
<facts>
* 🟢 Considered sorting imports with ruff [m4]
</facts>
</segment>
</observations>
<current-task>
Primary: Building comprehensive memory system ADR
Secondary: none
</current-task>
<suggested-response>Session completed normally.</suggested-response>"""

FLAT = """<observations>
Date: 2026-02-15
* 🔴 (09:15) slog is for infrastructure changes only [m1]
* 🟡 (09:25) Session-lifecycle extension v0.3.0 handles briefing [m2]
</observations>"""

REFS = {"m1": "src-a", "m2": "src-b", "m3": "src-c", "m4": "src-d"}


def make_event(**overrides) -> SessionEvent:
    data = {
        "sessionId": "sess-1",
        "dedupeKey": "key-abc",
        "trigger": "shutdown",
        "messageCount": 12,
        "userMessageCount": 6,
        "capturedAt": datetime(2026, 2, 15, 10, 30, tzinfo=timezone(timedelta(hours=-8))),
        "schemaVersion": 1,
        "sessionName": "memory-adr",
        "filesRead": ["a.py", "b.py", "c.py"],
        "filesModified": ["a.py"],
    }
    data.update(overrides)
    return SessionEvent(name="memory/session.ended", data=EventData(**data))


def observe(raw: str, **event_overrides):
    output = parse_observer_output(raw, REFS)
    usage = LLMUsage(input_tokens=100, output_tokens=20, calls=1)
    return observation_from_output(output, event=make_event(**event_overrides), code_version="v123", usage=usage)


def test_log_section_has_the_segment_aware_shape():
    observation = observe(SEGMENTED)
    expected = f"""### 🔭 Observations (session: memory-adr, 10:30)

**Trigger**: shutdown
**Files**: 1 modified, 3 read

#### Debugged Inngest worker registration
*Debugged the registration failure. Root cause: duplicate event trigger. Fixed by removing it.*

* 🔴 (09:15) Inngest rejects two functions sharing one event trigger
* 🔴 (09:20) The fix was removing `video.requested` from video-download.ts
* 🟡 (09:25) Docker logs show registration errors that worker stderr does not

#### Routine cleanup
*Tidied imports.*

* 🟢 Considered sorting imports with ruff

**Current task**: Building comprehensive memory system ADR

<!-- dedupeKey: key-abc observation: {observation.id} version: v123 -->
"""
    assert format_segments_for_log(observation, time_label="10:30") == expected


def test_flat_log_section_lists_bullets_under_the_date_and_falls_back_to_the_session_id():
    observation = observe(FLAT, sessionName=None)
    section = format_segments_for_log(observation, time_label="09:00")

    assert section.startswith("### 🔭 Observations (session: sess-1, 09:00)\n\n**Trigger**: shutdown\n")
    assert "\nDate: 2026-02-15\n\n* 🔴 (09:15) slog is for infrastructure changes only\n* 🟡 (09:25)" in section
    assert "####" not in section and "**Current task**" not in section
    assert section.rstrip().endswith(f"observation: {observation.id} version: v123 -->")


def test_empty_observation_still_renders_a_marked_section():
    section = format_segments_for_log(observe("nothing useful"), time_label="08:00")
    assert "*No observations extracted.*" in section and "<!-- dedupeKey: key-abc" in section


def test_optimize_for_context_keeps_only_high_facts_under_their_titles():
    text = optimize_for_context(parse_observer_output(SEGMENTED, REFS))

    assert text.splitlines() == [
        "Date: 2026-02-15",
        "",
        "#### Debugged Inngest worker registration",
        "*Debugged the registration failure.*",
        "* 🔴 (09:15) Inngest rejects two functions sharing one event trigger",
        "* 🔴 (09:20) The fix was removing `video.requested` from video-download.ts",
    ]
    assert optimize_for_context(observe(SEGMENTED)) == text


def test_optimize_for_context_handles_flat_output_and_returns_empty_without_high_facts():
    assert optimize_for_context(parse_observer_output(FLAT)) == (
        "Date: 2026-02-15\n\n* 🔴 (09:15) slog is for infrastructure changes only"
    )
    assert optimize_for_context(parse_observer_output("* 🟡 only medium\n* 🟢 and low")) == ""
    assert optimize_for_context(parse_observer_output("")) == ""


def test_a_narrative_quoting_its_title_shows_what_the_agent_did_instead():
    """The offline Observer's narrative opens with the request its title already is ('The user wrote:
    "…".'): the briefing shows what came after it, the agent's doing (said by the assistant); a
    narrative that opens otherwise is shown as before."""
    ask = "Slight steering: why does unsubscribe clear the event listeners?"
    def shown(title: str, narrative: str) -> list[str]:
        said = fact("high", "I would assume a user sets up their listener once").model_copy(
            update={"source_roles": ["user"]})
        segment = Segment(title=title, narrative=narrative, facts=[said])
        return optimize_for_context(observation("2025-12-09", "s", [segment]), said=True).splitlines()[2:4]

    did = f'The user wrote: "{ask}". The agent modified `agent-session.ts` (48 tool calls). Outcome: Fixed it.'
    assert shown("Slight steering: why does unsubscribe clear the event…", did) == [
        "#### Slight steering: why does unsubscribe clear the event…",
        "*(said by assistant) The agent modified `agent-session.ts` (48 tool calls).*"]
    assert shown(ask, f'The user wrote: "{ask}". Outcome: The listeners now survive unsubscribe.')[1] == (
        "*(said by assistant) Outcome: The listeners now survive unsubscribe.*")
    assert shown(ask, f'The user wrote: "{ask}".')[1].startswith("* 🔴")  # nothing after the quote: no line
    assert shown("Another request", did)[1] == f'*(said by user) The user wrote: "{ask}".*'  # not its title
    assert shown(ask, "Debugged the listeners. Root cause: a clear() call.")[1] == "*(said by user) Debugged the listeners.*"


def test_observation_ids_are_content_derived_and_facts_deduplicated():
    raw = SEGMENTED.replace("* 🟢 Considered sorting imports with ruff [m4]", "* 🟡 (09:16) Inngest rejects two functions sharing one event trigger [m4]")
    observation = observe(raw)

    assert observation.id == stable_id("key-abc")
    assert observe(raw).model_dump() == observation.model_dump()
    texts = [f.text for f in observation.facts]
    assert len(texts) == len(set(texts)) == 3
    merged = observation.facts[0]
    assert merged.id == stable_id("key-abc", merged.text)
    assert (merged.priority, merged.time, merged.source_message_ids) == ("high", "09:15", ["src-a", "src-d"])
    assert observation.segments[1].facts == []


def test_observation_carries_provenance_usage_and_token_count():
    observation = observe(SEGMENTED)

    assert (observation.session_id, observation.session_name, observation.trigger) == ("sess-1", "memory-adr", "shutdown")
    assert observation.date == "2026-02-15" and observation.format == "segments"
    assert observation.files_modified == ["a.py"] and len(observation.files_read) == 3
    assert observation.usage.input_tokens == 100 and observation.code_version == "v123"
    facts_text = "\n".join(format_fact(f) for f in observation.facts)
    assert observation.token_count == estimate_tokens(facts_text) > 0
    assert observation.current_task.startswith("Primary: Building")


def test_observer_prompt_renders_strictly_with_its_five_variables():
    prompt = load_prompt("observer")
    assert prompt.variables == {"trigger_description", "session_label", "date", "transcript_tag", "transcript"}
    with pytest.raises(MemoryPipelineError):
        prompt.render(trigger_description="session", session_label="x", date="2026-02-15")
    with pytest.raises(MemoryPipelineError):
        prompt.render(trigger_description="s", session_label="x", date="d", transcript="t", extra="e")


def test_build_observer_messages_puts_the_transcript_between_markers():
    prompt = load_prompt("observer")
    serialized = SerializedTranscript(text="[09:15] [User] (m1): hello {{date}}", refs={"m1": "u1"})
    system, user = build_observer_messages(prompt, serialized, trigger="compaction", session_name=None, day="2026-02-15")

    assert "<segment>" in system and "{{" not in system
    assert "pre-compaction transcript (session: unnamed)" in user
    assert "Date: 2026-02-15" in user
    tag = transcript_tag(serialized)
    assert re.fullmatch(r"transcript-[0-9a-f]{12}", tag)
    assert f"<{tag}>\n[09:15] [User] (m1): hello {{{{date}}}}\n</{tag}>" in user
    _, shutdown_user = build_observer_messages(prompt, serialized, trigger="shutdown", session_name="s1", day="2026-02-15")
    assert "Observe this session transcript (session: s1)" in shutdown_user


def test_code_version_follows_prompt_model_and_prompt_folder(tmp_path):
    from memory_pipeline import pipeline
    from memory_pipeline.config import Settings

    anthropic = Settings.from_env({"MEMORY_LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "k"})
    version = pipeline.code_version("observe", anthropic)
    assert version == load_prompt("observer").code_version("claude-haiku-4-5")
    assert version != pipeline.code_version("observe", anthropic.replace(observer_model="other"))
    assert version != pipeline.code_version("observe", Settings.from_env({}))  # the offline model
    edited = tmp_path / "prompts"
    edited.mkdir()
    for name in ("observer", "reflector", "rewrite"):
        (edited / f"{name}.md").write_text((PROMPTS / f"{name}.md").read_text() + "\nBe brief.\n")
    assert version != pipeline.code_version("observe", anthropic.replace(prompts_dir=edited))
    assert pipeline.code_version("sessions", anthropic) == pipeline.FIXED_VERSIONS["sessions"]


def test_a_fact_said_again_in_other_words_is_one_fact_with_both_sources():
    raw = """<observations>
Date: 2026-01-06
<segment>
<title>Session storage</title>
<narrative>Checked what sessions need.</narrative>
<facts>
* 🔴 (09:26) Finding: The SQLite database is NOT required for session functionality! [m1]
* 🔴 (09:27) Finding: The SQLite database (`__store.db`) is NOT required. [m2]
* 🔴 (09:28) Finding: The SQLite database (`__store.db`) is required. [m3]
* 🟡 (09:29) The worker pool runs 4 threads [m4]
* 🟡 (09:30) The worker pool runs 8 threads [m4]
</facts>
</segment>
</observations>"""
    facts = observe(raw).segments[0].facts
    assert [f.text for f in facts] == [
        "Finding: The SQLite database (`__store.db`) is NOT required.",  # the wording that names more of it
        "Finding: The SQLite database (`__store.db`) is required.",  # the other polarity: another statement
        "The worker pool runs 4 threads", "The worker pool runs 8 threads"]  # other numbers: another statement
    assert facts[0].source_message_ids == ["src-a", "src-b"] and facts[0].time == "09:26"
    assert len({f.id for f in facts}) == 4


def test_one_message_saying_a_rule_twice_in_other_words_is_one_fact():
    """A user's message: "The game is lost when the king is captured. There is also no concept of "check". The game
    simply end if the king is captured." Two facts of one message that share most of the shorter's words are one
    rule; the same two words from two messages, or two rules of one message, stay apart."""
    raw = """<observations>
Date: 2026-01-06
<segment>
<title>Rules</title>
<narrative>The user set the game's rules.</narrative>
<facts>
* 🔴 (22:34) User stated: "The game is lost when the king is captured." [m1]
* 🔴 (22:34) User stated: "There is also no concept of check." [m1]
* 🔴 (22:34) User stated: "The game simply ends if the king is captured." [m1]
* 🔴 (23:38) User stated: "If a piece is ready (no cooldown), then it moves instantly." [m2]
* 🔴 (23:38) User stated: "If a piece is on cooldown, moving it queues a pre-move." [m2]
* 🔴 (23:40) User stated: "The round is lost when the queen is captured." [m3]
* 🔴 (23:41) User stated: "The round simply ends if the queen is captured." [m4]
</facts>
</segment>
</observations>"""
    texts = [f.text for f in observe(raw).segments[0].facts]
    assert texts == ['User stated: "The game is lost when the king is captured."',
                     'User stated: "There is also no concept of check."',
                     'User stated: "If a piece is ready (no cooldown), then it moves instantly."',
                     'User stated: "If a piece is on cooldown, moving it queues a pre-move."',
                     'User stated: "The round is lost when the queen is captured."',
                     'User stated: "The round simply ends if the queen is captured."']
