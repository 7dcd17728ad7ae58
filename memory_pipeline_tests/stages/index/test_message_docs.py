"""Message documents: which messages are indexed, their text, ids and payload."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_pipeline.models import Message, ToolCall, ToolResult, Transcript
from memory_pipeline.stages.index.message_docs import (
    LONG_TURN_CHARS,
    DocOptions,
    keyword_parts,
    keyword_text,
    message_documents,
    stream_message_documents,
)
from memory_pipeline.stages.index.sparse import weighted_counts
from memory_pipeline.stages.recall.rewrite import parse_rewrite, rewrite_offline

WHEN = datetime(2026, 11, 2, 9, 30, tzinfo=timezone.utc)


def transcript(*messages: Message) -> Transcript:
    return Transcript(format="claude-code", session_id="s1", messages=list(messages))


def sample() -> Transcript:
    return transcript(
        Message(id="u1", role="user", timestamp=WHEN, text="Why does the Redis pool time out?"),
        Message(id="a1", role="assistant", timestamp=WHEN, text="",
                tool_calls=[ToolCall(id="t1", name="Read", input="pool.py")]),
        Message(id="r1", role="tool", timestamp=WHEN, tool_results=[ToolResult(call_id="t1", text="code")]),
        Message(id="a2", role="assistant", timestamp=WHEN, text="max_connections is 10 for 32 workers."),
        Message(id="c1", role="system", timestamp=WHEN, text="Summary of the session", is_compaction_summary=True),
        Message(id="u2", role="user", timestamp=None, text="Raise it to 64."),
    )


def test_only_user_and_assistant_words_are_indexed():
    docs = message_documents(sample(), day="2026-11-02", session_id="s1")
    assert [d.payload["source_message_ids"] for d in docs] == [["u1"], ["a2"], ["u2"]]
    assert {d.payload["tier"] for d in docs} == {"messages"}
    assert [d.payload["role"] for d in docs] == ["user", "assistant", "user"]


def test_text_has_date_and_previous_turn_and_payload_is_complete():
    docs = message_documents(sample(), day="2026-11-02", session_id="s1")
    assert docs[1].text.startswith("[2 November 2026] max_connections is 10")
    assert "(after: Why does the Redis pool time out?)" in docs[1].text
    payload = docs[1].payload
    assert payload["date"] == "2026-11-02" and payload["session_id"] == "s1" and payload["time"] == "09:30"
    assert payload["stale"] is False and payload["created_ts"] == WHEN.timestamp()
    assert docs[2].payload["created_ts"] == datetime(2026, 11, 2, tzinfo=timezone.utc).timestamp()
    bare = message_documents(sample(), day="2026-11-02", session_id="s1",
                             options=DocOptions(context_chars=0, with_date=False, with_role=True))
    assert bare[1].text == "Assistant: max_connections is 10 for 32 workers."


def test_ids_are_stable_and_change_with_content():
    first = message_documents(sample(), day="2026-11-02", session_id="s1")
    again = message_documents(sample(), day="2026-11-02", session_id="s1")
    assert [d.id for d in first] == [d.id for d in again]
    assert len({d.id for d in first}) == 3
    edited = sample()
    edited.messages[3].text = "max_connections is 12."
    changed = message_documents(edited, day="2026-11-02", session_id="s1")
    assert changed[0].id == first[0].id and changed[1].id != first[1].id
    assert message_documents(sample(), day="2026-11-02", session_id="s2")[0].id != first[0].id


def test_offline_rewriter_keeps_content_words():
    prompt = "<query>\nWhat did we decide about the Redis pool timeout?\n</query>\n"
    assert rewrite_offline("system", prompt) == "decide Redis pool timeout"
    assert parse_rewrite('\n  "redis pool timeout"  \nextra') == "redis pool timeout"


def test_keyword_text_of_a_long_turn_leaves_out_the_previous_turns_tail():
    long_turn = "I finally finished reading The Nightingale by Kristin Hannah this weekend. " * 6
    turns = transcript(Message(id="a0", role="assistant", timestamp=WHEN, text="Happy to help with anything else."),
                       Message(id="u1", role="user", timestamp=WHEN, text=long_turn),
                       Message(id="u2", role="user", timestamp=WHEN, text="Yes, last Tuesday."))
    long_doc, short_doc = message_documents(turns, day="2026-11-02", session_id="s1")[1:]
    assert len(long_turn) >= LONG_TURN_CHARS and "(after: Happy to help" in long_doc.text
    own_words = f"[2 November 2026] {' '.join(long_turn.split())}"
    assert keyword_text(long_doc.payload | {"text": long_doc.text}) == own_words
    assert keyword_text(short_doc.payload | {"text": short_doc.text}) == short_doc.text  # it needs its question
    observation = {"tier": "observations", "text": "x\n(after: y)", "message": long_turn}
    assert keyword_text(observation) == "x\n(after: y)"


def test_a_short_turn_borrows_the_previous_turns_tail_apart_from_its_own_words():
    turns = transcript(Message(id="a0", role="assistant", timestamp=WHEN, text="Which book did you finish?"),
                       Message(id="u1", role="user", timestamp=WHEN, text="Yes, last Tuesday."))
    short_doc = message_documents(turns, day="2026-11-02", session_id="s1")[1]
    payload = short_doc.payload | {"text": short_doc.text}
    assert keyword_parts(payload) == ("[2 November 2026] Yes, last Tuesday.", "Which book did you finish?")
    long_turn = "I finally finished reading The Nightingale by Kristin Hannah this weekend. " * 6
    assert keyword_parts({"tier": "messages", "text": f"{long_turn}\n(after: hi)", "message": long_turn}) == (
        long_turn, "")
    assert keyword_parts({"tier": "observations", "text": "x\n(after: y)"}) == ("x\n(after: y)", "")


def test_borrowed_words_count_their_weight_in_frequency_and_length():
    counts, length = weighted_counts("book finished", "which book", 0.5)
    assert counts == {"book": 1.5, "finish": 1.0}  # "which" is a stop word
    assert length == 2.5


def test_documents_are_made_as_the_messages_are_read_one_message_ahead():
    read: list[str] = []

    def messages():
        for message in sample().messages:
            read.append(message.id)
            yield message

    docs = stream_message_documents(messages(), day="2026-11-02", session_id="s1",
                                    options=DocOptions(next_chars=40))
    first = next(docs)
    assert first.payload["source_message_ids"] == ["u1"] and read == ["u1", "a1", "r1", "a2"]
    assert "(before: max_connections is 10" in first.text  # the one message read ahead is the next turn
    rest = list(docs)
    assert [first, *rest] == message_documents(sample(), day="2026-11-02", session_id="s1",
                                               options=DocOptions(next_chars=40))
