"""`memory-pipeline import`: the pi and Claude Code fixtures land in the partitions of their own dates."""

from __future__ import annotations

import json
from pathlib import Path

from memory_pipeline.resources.inbox import Inbox
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli
from memory_pipeline_tests.conftest import fixture_transcript


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
    assert not any("agent-" in name for name in by_name)  # subagent files are not sessions
    assert by_name["before-compaction.jsonl"]["status"] == "imported"
    assert by_name["tool_heavy.jsonl"]["status"] == "imported"
    # the v3 file is the same pi session migrated: same session, same first entry, same dedupe key
    assert by_name["before-compaction.v3-migrated.jsonl"]["status"] == "already"
    assert by_name["4d5611e5-241a-462a-8d15-5122611a9569.jsonl"]["status"] == "too-short"  # 3 user messages
    assert by_name[codex.name]["status"] == "too-short"  # 1 user message
    assert (report["imported"], report["already"], report["too-short"], report["failed"]) == (2, 1, 2, 0)

    expected_days = set()
    for name in ("before-compaction.jsonl", "tool_heavy.jsonl"):
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
            assert inbox.load_transcript(event).user_message_count >= 5  # the snapshot is readable

    again = run_import([pi_folder, claude_folder, codex], env)
    assert (again["imported"], again["already"], again["too-short"], again["failed"]) == (0, 3, 2, 0)
    assert {p.name for p in (ws / "events").iterdir()} == expected_days


def test_import_reports_missing_paths_and_unreadable_files(tmp_path: Path):
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\x00\x01\x02")
    done = run_cli(["import", str(tmp_path / "nowhere"), str(junk), "--json"], hook_env(tmp_path / "ws"))
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["failed"] == 2 and report["imported"] == 0
    assert not (tmp_path / "ws" / "events").exists()
