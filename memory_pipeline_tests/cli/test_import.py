"""`memory-pipeline import`: the pi and Claude Code fixtures land in the partitions of their own dates."""

from __future__ import annotations

import json
from pathlib import Path

from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline_tests.cli.hook_helpers import first_user_turns, hook_env, hook_state, payload, run_cli, run_hook
from memory_pipeline_tests.support.friction_sessions import claude_session
from memory_pipeline_tests.support.paths import fixture_transcript


def run_import(paths: list[Path], env: dict[str, str]) -> dict:
    done = run_cli(["import", *map(str, paths), "--json"], env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_import_dates_sessions_by_their_transcripts_and_skips_them_the_second_time(tmp_path: Path):
    pi_folder = fixture_transcript("pi/before-compaction.jsonl").parent
    claude_folder = fixture_transcript("claude-code/tool_heavy.jsonl").parent
    codex = fixture_transcript("codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl")
    ws = tmp_path / "workspace"
    env = hook_env(ws)

    report = run_import([pi_folder, claude_folder, codex], env)
    by_name = {Path(item["path"]).name: item for item in report["items"]}
    subagent = by_name["agent-acompact-e1f845.jsonl"]  # part of its parent session, not a session
    assert subagent["status"] == "skipped" and subagent["reason"].startswith("subagent transcript")
    # observed by the work in them: the agentic Claude Code session (2 user messages, 150 tool calls),
    # the pi session, the Codex session that modified a file
    for name in ("before-compaction.jsonl", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl", codex.name):
        assert (by_name[name]["status"], by_name[name]["observed"]) == ("imported", True)
    # the v3 file is the same pi session migrated: same session, same first entry, same dedupe key
    assert by_name["before-compaction.v3-migrated.jsonl"]["status"] == "already"
    # a short session, long over, is remembered (its messages get indexed) but not worth an Observer run
    item = by_name["tool_heavy.jsonl"]
    assert (item["status"], item["observed"]) == ("imported", False)
    assert item["reason"].startswith("indexed, not observed: 2 user messages, 6 tool calls, 0 modified files")
    assert (report["imported"], report["indexed_not_observed"], report["already"], report["skipped"],
            report["failed"]) == (4, 1, 1, 1, 0)

    expected_days = set()
    for name in ("before-compaction.jsonl", "tool_heavy.jsonl", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl", codex.name):
        item = by_name[name]
        ended = parse_transcript(Path(item["path"])).ended_at.astimezone().date().isoformat()
        assert item["day"] == ended
        assert (ws / "events" / ended / f"{item['dedupe_key']}.json").is_file()
        expected_days.add(ended)
    assert {p.name for p in (ws / "events").iterdir()} == expected_days == set(report["days"])
    assert list((ws / "inbox").glob("*.json")) == []  # accepted straight into the partitions

    inbox = Inbox(Workspace(ws))
    for day in expected_days:
        for event in inbox.accepted(day):
            assert event.name == "memory/session.ended"
            transcript = inbox.load_transcript(event)  # the snapshot is readable
            assert transcript.user_message_count == event.data.user_message_count > 0

    again = run_import([pi_folder, claude_folder, codex], env)
    assert (again["imported"], again["already"], again["skipped"], again["failed"]) == (0, 5, 1, 0)
    assert {p.name for p in (ws / "events").iterdir()} == expected_days


def test_import_reports_missing_paths_and_unreadable_files(tmp_path: Path):
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\x00\x01\x02")
    done = run_cli(["import", str(tmp_path / "nowhere"), str(junk), "--json"], hook_env(tmp_path / "ws"))
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["failed"] == 2 and report["imported"] == 0
    assert not (tmp_path / "ws" / "events").exists()


def test_a_session_captured_live_is_imported_only_from_where_the_hooks_stopped(tmp_path: Path):
    session = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
    ws = tmp_path / "workspace"
    env = hook_env(ws)
    growing = tmp_path / "live" / "tool_heavy.jsonl"
    growing.parent.mkdir()
    first_user_turns("claude-code/tool_heavy.jsonl", 1, growing)
    ended = run_hook(payload("SessionEnd", growing, session_id=session, reason="exit"), env)
    assert ended.returncode == 0 and b"wait to be observed with the session's next window" in ended.stderr
    try:
        assert run_cli(["ingest", "--json"], env, timeout=300).returncode == 0
    finally:
        assert run_cli(["stop"], env).returncode == 0  # ingest started the workspace's redis-server
    [live] = [e for day in (ws / "events").iterdir() for e in Inbox(Workspace(ws)).accepted(day.name)]

    report = run_import([growing], env)
    assert report["already"] == 1 and report["imported"] == 0, report
    assert "captured up to message" in report["items"][0]["reason"]

    # the session went on after the hooks last saw it: the import takes only the rest
    full = fixture_transcript("claude-code/tool_heavy.jsonl")
    growing.write_text(full.read_text(encoding="utf-8"), encoding="utf-8")
    report = run_import([growing], env)
    assert report["imported"] == 1, report
    item = report["items"][0]
    [rest] = [e for e in Inbox(Workspace(ws)).accepted(item["day"]) if e.data.dedupe_key == item["dedupe_key"]]
    assert rest.data.session_id == live.data.session_id == session
    assert rest.data.window_start_id is not None
    assert rest.data.message_count + live.data.message_count == len(parse_transcript(full).messages)
    state = hook_state(ws, session)
    assert state["last_event_message_id"] == parse_transcript(full).messages[-1].id
    # the session is long over and showed little work: the rest is indexed only, nothing waits any more
    assert rest.data.observing == "skipped" and state["waiting_from_id"] is None
    assert run_import([growing], env)["already"] == 1


def test_a_two_line_session_that_states_something_to_keep_is_observed_and_reaches_the_ledger(tmp_path: Path):
    """"Remember: …" and the agent's "On it." is no work, but it is what memory is for: the session is
    observed and the rule reaches the ledger; a greeting of the same length stays indexed only."""
    folder, ws = tmp_path / "projects" / "-src-orders", tmp_path / "workspace"
    folder.mkdir(parents=True)
    env = hook_env(ws)
    said = {"note": "Remember: never deploy the billing service on Fridays.", "hello": "hi there, are you up?"}
    for name, text in said.items():
        claude_session(folder / f"{name}.jsonl", f"session-{name}", "/src/orders", "2026-03-02", [("user", text)])
    report = run_import([folder], env)
    by_name = {Path(item["path"]).stem: item for item in report["items"]}
    assert (by_name["note"]["status"], by_name["note"]["observed"]) == ("imported", True)
    assert (by_name["hello"]["status"], by_name["hello"]["observed"]) == ("imported", False)
    assert "observing needs" in by_name["hello"]["reason"] and report["indexed_not_observed"] == 1
    try:
        assert run_cli(["ingest", "--json"], env, timeout=300).returncode == 0
    finally:
        assert run_cli(["stop"], env).returncode == 0
    events = [json.loads(line) for line in (ws / "memory" / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e["content"] for e in events] == ["Never deploy the billing service on Fridays."]
