"""`ledger add|show|check` and `pack`: hand-written events, an entity's history with what was
superseded, integrity failures that fail the command, the briefing that includes the pack."""

from __future__ import annotations

import json
from datetime import date

from memory_pipeline.cli import main
from memory_pipeline.flows.brief import build_brief


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_add_show_and_pack_keep_superseded_history_out_of_the_pack(workspace, capsys):
    code, out, _ = cli(capsys, "ledger", "add", "The API runs on Python 3.11", "--type", "fact", "--priority", "P1",
                       "--entity", "API", "--json")
    old = json.loads(out)
    assert code == 0 and old["id"].startswith(f"EVT-{date.today():%Y%m%d}-") and old["entity"] == "api"
    code, out, _ = cli(capsys, "ledger", "add", "The API moved to Python 3.12", "--type", "decision", "--priority",
                       "P1", "--entity", "api", "--supersedes", old["id"], "--json")
    new = json.loads(out)
    code, out, _ = cli(capsys, "ledger", "show", "api", "--json")
    history = json.loads(out)["events"]
    assert [(e["id"], e["status"], e["superseded_by"]) for e in history] == [
        (old["id"], "superseded", new["id"]), (new["id"], "active", None)]
    code, out, err = cli(capsys, "pack", "--project", "default")
    assert code == 0, err
    assert new["id"] in out and old["id"] not in out and out.startswith(f"# Recall Pack — {date.today()}\n")
    assert workspace.pack_path().read_text() == out
    code, out, err = cli(capsys, "pack")  # from a folder whose project has no memories: the user-level events only
    assert "has no memories yet: showing your user-level memories only" in err
    assert out.startswith(f"# Recall Pack — {date.today()} · user-level only") and new["id"] not in out
    code, out, err = cli(capsys, "pack", "--all-projects")
    assert "looked at all projects" in err and out.startswith(f"# Recall Pack — {date.today()} · all projects")
    assert new["id"] in out and workspace.pack_path(None).read_text() == out
    brief = build_brief(workspace)
    assert "## Recall Pack" in brief.text and new["id"] in brief.text and "### 🎯 TODAY'S FOCUS" in brief.text
    assert "_Nothing recorded yet: P0 constraints" in brief.text  # the empty parts, on one line


def test_bad_events_exit_2(workspace, capsys):
    code, _, err = cli(capsys, "ledger", "add", "x", "--type", "fact", "--priority", "P1", "--supersedes",
                       "EVT-20200101-001")
    assert code == 2 and "EVT-20200101-001 is not an event in the ledger" in err
    code, _, err = cli(capsys, "ledger", "add", "  ", "--type", "fact", "--priority", "P1")
    assert code == 2 and "empty" in err
    assert not workspace.ledger_path.exists()


def test_a_corrupted_line_fails_check_and_pack_loudly(workspace, capsys):
    cli(capsys, "ledger", "add", "Never commit secrets", "--type", "constraint", "--priority", "P0")
    with workspace.ledger_path.open("a") as handle:
        handle.write('{"id": "EVT-1", "broken\n')
    code, out, _ = cli(capsys, "ledger", "check")
    assert code == 1 and "FAILED   valid_json: 1 (line 2:" in out
    code, out, err = cli(capsys, "pack", "--project", "default")
    assert code == 1 and "integrity check failed: valid_json: 1 (line 2:" in err
    assert "Never commit secrets" in out and "⚠️ integrity: valid_json failed" in out
