"""The task checkpoint as a search document (stages/hooks/checkpoint_doc.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from memory_pipeline.models import TaskCheckpoint
from memory_pipeline.stages.hooks.checkpoint_doc import checkpoint_document, checkpoint_id
from memory_pipeline.stages.recall.rank import display_text

AT = datetime(2026, 11, 29, 9, 30, tzinfo=UTC)
KEY = "ghp_" + "Zq8vN2kLmP4xR7tY1wB6cD9fH3jS5gA0eU2i"


def test_one_point_per_session_with_the_users_words_redacted():
    checkpoint = TaskCheckpoint(current_task=f"rotate the deploy token {KEY} and fix the parser",
                                user_messages=["first look at the parser", f"rotate the deploy token {KEY}"],
                                files_modified=["/home/me/shop/lib/parser.py"], context_percent=61.2,
                                reason="hot-zone", captured_at=AT, project="shop")
    doc = checkpoint_document(checkpoint, "sess-1", checkpoint.project)
    later = checkpoint_document(checkpoint.model_copy(update={"current_task": "another task"}), "sess-1", "shop")
    assert doc.id == later.id == checkpoint_id("sess-1") != checkpoint_id("sess-2")
    assert KEY not in doc.text and KEY not in doc.payload["message"] and "[REDACTED:" in doc.payload["message"]
    payload = doc.payload
    assert payload["tier"] == "messages" and payload["kind"] == "checkpoint" and payload["provenance"] == "user"
    assert payload["project"] == "shop" and payload["date"] == "2026-11-29" and "role" not in payload
    assert doc.text.startswith("[29 November 2026] Task in progress: rotate the deploy token")
    assert "parser.py" in doc.text and "/home/me" not in doc.text  # files by their short names
    shown = display_text(payload)  # no speaker label: it reads as what it is
    assert shown.startswith("Task in progress: rotate") and "files: /home/me/shop/lib/parser.py" in shown
    assert shown.endswith("(checkpoint in the hot zone, 2026-11-29 09:30, 61.2 % of the context)")


def test_a_checkpoint_with_nothing_to_find_it_by_is_not_indexed():
    empty = TaskCheckpoint(reason="pre-compact", captured_at=AT)
    assert checkpoint_document(empty, "sess-1", "") is None
