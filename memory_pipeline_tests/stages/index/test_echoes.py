"""What the agent wrote from memory is marked as an echo, and its narration as narration."""

from __future__ import annotations

import pytest

from memory_pipeline.models import Message, ToolCall, ToolResult, Transcript
from memory_pipeline.stages.index.echoes import cites_memory, is_acknowledgement, is_narration
from memory_pipeline.stages.index.message_docs import message_documents
from memory_pipeline.stages.recall.rank import DAY_SECONDS, RankOptions, fuse, rank

NOW = 1_800_000_000.0


def test_an_answer_from_memory_is_an_echo_and_a_step_announcement_is_narration():
    assert cites_memory("Memory says the orders service runs on Postgres 16.")
    assert cites_memory("According to the briefing, staging reads from the replica.")
    assert cites_memory("MEMORY.md says we never force-push main.")
    assert not cites_memory("The orders service runs on Postgres 16.")
    assert not cites_memory("I added a memory limit of 512 MB to the container.")
    assert is_narration("Let me check the docker-compose file.", "assistant")
    assert is_narration("Now I'll run the tests.", "assistant")
    assert is_narration("Good question! Let me check what happens:", "assistant")  # a remark before the step
    assert is_narration("Perfect! Now let me update the README to mention this:", "assistant")
    assert not is_narration("Let me check the docker-compose file.", "user")
    assert not is_narration("The root cause is a missing index on orders.created_at.", "assistant")


@pytest.mark.parametrize("said", ["Got it.", "Noted, I will keep that in mind.", "Sure, will do!", "Thanks!", "OK"])
def test_an_acknowledgement_alone_is_narration(said):
    assert is_narration(said, "assistant") and not is_narration(said, "user")
    assert is_acknowledgement(said, "assistant") and not is_acknowledgement(said, "user")


@pytest.mark.parametrize("said", ["Got it, I updated the compose file to postgres:17.", "Great, the tests pass now.",
                                  "Nate: Thanks! Talk to you later!"])  # what it did or found; a dialogue's turn
def test_an_acknowledgement_with_what_was_done_is_not(said):
    assert not is_narration(said, "assistant") and not is_acknowledgement(said, "assistant")
    assert not is_acknowledgement("Let me check the docker-compose file.", "assistant")  # narration, not an ack


def test_turns_after_a_memory_tool_call_are_indexed_as_echoes_until_the_user_speaks():
    messages = [
        Message(id="u1", role="user", text="Which Postgres version does the orders service run on?"),
        Message(id="a1", role="assistant", text="", tool_calls=[ToolCall(id="t1", name="mcp__memory__search",
                                                                        input='{"query": "postgres version"}')]),
        Message(id="r1", role="user", tool_results=[ToolResult(call_id="t1", text="… Postgres 16 …")]),
        Message(id="a2", role="assistant", text="The orders service runs on Postgres 16."),
        Message(id="u2", role="user", text="We moved to Postgres 17 last week."),
        Message(id="a3", role="assistant", text="Got it, I updated the compose file to postgres:17."),
        Message(id="a4", role="assistant", text="Memory says staging reads from the replica."),
    ]
    docs = message_documents(Transcript(format="claude-code", session_id="s1", messages=messages),
                             day="2026-11-27", session_id="s1")
    echo = {doc.payload["source_message_ids"][0]: bool(doc.payload.get("echo")) for doc in docs}
    assert echo == {"u1": False, "a2": True, "u2": False, "a3": False, "a4": True}


def test_an_echo_and_narration_rank_below_what_was_said():
    def turn(text, role, echo=False):
        return {"tier": "messages", "text": text, "message": text, "role": role, "date": "2026-11-20",
                "session_id": "s1", "source_message_ids": [text[:8]], "created_ts": NOW - DAY_SECONDS,
                **({"echo": True} if echo else {})}

    payloads = {"echo": turn("Memory says the orders service runs on Postgres 16.", "assistant"),
                "tool": turn("Postgres sixteen is what that service uses.", "assistant", echo=True),
                "step": turn("Let me check which Postgres the orders service runs on.", "assistant"),
                "said": turn("The orders service runs on Postgres 16.", "user")}
    options = RankOptions(fusion="weighted", now_ts=NOW, collapse_jaccard=1.1)
    order = [("echo", 0.95), ("tool", 0.93), ("step", 0.9), ("said", 0.8)]
    fused = fuse(order, [(pid, 5.0 - n) for n, (pid, _) in enumerate(order)], options)
    assert [h.id for h in rank(payloads, fused, options)] == ["said", "step", "echo", "tool"]
