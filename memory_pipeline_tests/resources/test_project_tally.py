"""The tally of sessions per project: kept per day, and counted from the observation files of a
workspace written before it existed (whether a reader or the observations asset comes first)."""

from __future__ import annotations

import json

from memory_pipeline.models import Segment
from memory_pipeline.resources.files.project_tally import ProjectTally, has_memories
from memory_pipeline_tests.support.review_fixtures import fact, observation


def write_observation(workspace, day: str, session: str, project: str) -> None:
    item = observation(day, session, [Segment(title="t", narrative="n", facts=[fact("high", f"rule of {session}")])])
    item = item.model_copy(update={"project": project})
    folder = workspace.observations_dir(day)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{item.dedupe_key}.json").write_text(item.model_dump_json())


def test_an_older_workspace_is_counted_whether_a_reader_or_a_day_comes_first(workspace):
    write_observation(workspace, "2026-01-02", "a", "shop")
    write_observation(workspace, "2026-01-03", "b", "api")
    ProjectTally(workspace).set_day("2026-01-04", {"shop": 1, "": 2})
    assert ProjectTally(workspace).totals() == {"shop": 2, "api": 1, "": 2}
    workspace.state_path("project_tally").unlink()
    assert ProjectTally(workspace).totals() == {"shop": 1, "api": 1}  # counted from the files, then kept
    assert json.loads(workspace.state_path("project_tally").read_text())["days"]["2026-01-03"] == {"api": 1}
    assert has_memories(workspace, "api") and not has_memories(workspace, "scratch")
    ProjectTally(workspace).set_day("2026-01-03", {})  # the day's sessions are gone: the day says so
    assert not has_memories(workspace, "api")
