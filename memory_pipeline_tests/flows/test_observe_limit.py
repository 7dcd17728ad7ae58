"""A window longer than the Observer reads is not cut silently: the observation says how much was not read."""

from __future__ import annotations

from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.observe.session import MAX_TRANSCRIPT_CHARS
from memory_pipeline_tests.flows.ledger_sessions import observe_text

DAY = "2026-11-20"


def test_the_observer_says_how_much_of_a_long_window_it_did_not_read(workspace_dir, tmp_path):
    workspace = Workspace(workspace_dir).create()
    line = "[{day} 10:%02d] [User]: The staging cluster number %d keeps its own replica of the orders database.\n"
    turns = MAX_TRANSCRIPT_CHARS // 80 + 200
    observe_text(workspace, tmp_path, DAY, "long", "".join(line % (n % 60, n) for n in range(turns)))
    observe_text(workspace, tmp_path, DAY, "short", "[{day} 11:00] [User]: Always run the migrations first.\n")
    unread = {o.session_id: o.unread_chars for o in load_observations(workspace, DAY)}
    assert unread["long"] > 0 and unread["short"] == 0
