"""Every source of a merged memory, end to end: the same lesson stated in a Claude Code session and
in a Codex session of one project → `import` → `ingest` (the index folds a near-duplicate into the memory it repeats) → `maintain` →
`recall` (JSON and the table), `trace` and the MCP tools name both sessions, each back to its
message. Real Dagster runs, Redis, the store and MiniLM; the offline Observer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_pipeline.flows.memory_tools import get_memories, search_memory
from memory_pipeline.main import main
from memory_pipeline.stages.projects import ProjectScope
from memory_pipeline_tests.support.doors import env_settings

pytestmark = pytest.mark.slow

LESSON = "No, don't use pip here. This repo uses uv: run `uv sync` and `uv run pytest`."
FOLLOW_UPS = [("Add a timeout to every request.", "Every request now has a 10 second timeout."),
              ("Run the tests.", "Ran uv run pytest -q: 12 passed."),
              ("Commit it.", "Committed.")]  # five user messages: a session the observe rule takes


def claude_code_session(path: Path, cwd: Path, session: str, day: str) -> None:
    """A Claude Code JSONL (the lines the real client writes for user and assistant turns)."""
    turns = [("user", "Please add httpx as a dependency and write a client for the billing API."),
             ("assistant", "I'll run pip install httpx first. The install failed with externally-managed-environment."),
             ("user", LESSON), ("assistant", "Added httpx with uv add httpx and wrote billing/client.py."),
             *[(role, text) for pair in FOLLOW_UPS for role, text in zip(("user", "assistant"), pair)]]
    lines, parent = [], None
    for n, (role, text) in enumerate(turns):
        uuid = f"{session[:8]}-0000-4000-8000-{n:012d}"
        content = [{"type": "text", "text": text}]
        lines.append({"parentUuid": parent, "isSidechain": False, "type": role, "uuid": uuid,
                      "message": {"role": role, "content": content} | ({"model": "claude-sonnet-4-5", "type": "message"}
                                                                       if role == "assistant" else {}),
                      "timestamp": f"{day}T10:{n:02d}:00.000Z", "cwd": str(cwd), "sessionId": session,
                      "version": "2.1.330", "userType": "external"})
        parent = uuid
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def codex_session(path: Path, cwd: Path, session: str, day: str) -> None:
    """A Codex rollout (session_meta, turn_context, the user's and the agent's messages)."""
    def at(second: int) -> str:
        return f"{day}T09:00:{second:02d}.000Z"

    def message(role: str, text: str, second: int) -> dict:
        kind = "input_text" if role == "user" else "output_text"
        return {"timestamp": at(second), "type": "response_item",
                "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}}

    lines = [{"timestamp": at(0), "type": "session_meta", "payload": {"id": session, "timestamp": at(0), "cwd": str(cwd),
                                                                      "originator": "codex_cli_rs", "cli_version": "0.169.0"}},
             {"timestamp": at(1), "type": "turn_context", "payload": {"cwd": str(cwd), "model": "gpt-5"}},
             message("user", "Write a retry wrapper around the billing client.", 2),
             message("assistant", "I'll install tenacity with pip install tenacity. pip refused to install it.", 3),
             message("user", LESSON, 4),
             message("assistant", "Added tenacity with uv add tenacity and wrapped the client calls.", 5),
             *[message(role, text, 6 + 2 * n + k) for n, pair in enumerate(FOLLOW_UPS)
               for k, (role, text) in enumerate(zip(("user", "assistant"), pair))]]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def run_json(capsys, *args) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_lesson_from_two_clients_is_one_memory_showing_both_sources(workspace, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    project = tmp_path / "billing"
    project.mkdir()
    claude, codex = tmp_path / "claude.jsonl", tmp_path / "rollout-2026-11-21.jsonl"
    claude_code_session(claude, project, "c1a2b3c4-0000-4000-8000-000000000001", "2026-11-20")
    codex_session(codex, project, "d1a2b3c4-0000-4000-8000-000000000002", "2026-11-21")
    assert main(["import", str(claude), str(codex)]) == 0
    assert main(["ingest"]) == 0
    assert main(["maintain", "--since", "2026-11-20", "--date", "2026-11-21"]) == 0
    capsys.readouterr()

    answer = run_json(capsys, "recall", "should I use pip or uv here", "--tier", "observations", "--all-projects")
    merged = [h for h in answer["hits"] if len({s["session_id"] for s in h["sources"]}) == 2]
    assert len(merged) == 1, answer["hits"]
    hit = merged[0]
    assert "uv" in hit["text"] and hit["why"]["mentions"] == 2
    by_session = {s["session_id"][:2]: s for s in hit["sources"]}
    assert set(by_session) == {"c1", "d1"}
    assert all(s["message_ids"] and s["date"] and s["project"] == "billing" for s in hit["sources"])
    assert by_session["c1"]["date"] == "2026-11-20" and by_session["d1"]["date"] == "2026-11-21"
    assert all(s["roles"] == ["user"] for s in hit["sources"])  # the user said it, both times
    assert hit["provenance"] == ["user"]

    assert main(["recall", "should I use pip or uv here", "--tier", "observations", "--all-projects"]) == 0
    table = " ".join(capsys.readouterr().out.split())
    assert "seen in 2 sessions: c1a2b3c4 (2026-11-20), d1a2b3c4 (2026-11-21)" in table

    trace = run_json(capsys, "trace", hit["id"])
    traced = {o["session_id"][:2]: o for o in trace["observations"]}
    assert set(traced) == {"c1", "d1"}
    for prefix, observation in traced.items():  # each source back to its own message, quoted
        assert [m["id"] for m in observation["messages"]] == by_session[prefix]["message_ids"]
        assert all("uv sync" in m["quote"] and m["role"] == "user" for m in observation["messages"])
    assert any("seen in 2 sessions" in note for note in trace["notes"])

    scope = ProjectScope(None)
    found = search_memory(workspace, env_settings(), scope, "should I use pip or uv here", tier="observations")
    assert f"{hit['id']}" in found and "seen in 2 sessions" in found
    full = get_memories(workspace, env_settings(), scope, [hit["id"]])
    assert full.count("  source: session ") == 2
    for source in hit["sources"]:
        assert f"▶ [{source['date']}" in full and source["message_ids"][0] in full
