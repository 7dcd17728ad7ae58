"""A real session of each client (Claude Code with the hooks, pi, Codex) against the loopback model;
`import` of each client's own session folder, `ingest`, then `recall` from the project folder finds
what was said in each."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import pytest

from memory_pipeline_tests.support.agent_clients import ClientHome
from memory_pipeline_tests.support.loopback_models import LoopbackModels

pytestmark = pytest.mark.slow  # ingest runs Dagster and the embedding model

SAID = {  # client → (what the user says, what the model answers)
    "claude-code": ("The staging server for orders-api listens on port 8471.",
                    "Noted: orders-api staging listens on port 8471."),
    "pi": ("The nightly billing cron for orders-api runs at 04:15 UTC.",
           "Noted: the billing cron runs at 04:15 UTC."),
    "codex": ("The feature flag for the new checkout is called orders_v2_rollout.",
              "Noted: the checkout flag is orders_v2_rollout."),
}
QUERIES = {"claude-code": "staging server port", "pi": "billing cron time", "codex": "checkout feature flag name"}
NEEDLES = {"claude-code": "8471", "pi": "04:15", "codex": "orders_v2_rollout"}


def ran(done: subprocess.CompletedProcess, reply: str) -> None:
    assert done.returncode == 0, done.stderr[-2000:]
    assert reply in done.stdout


@pytest.fixture(scope="module")
def history(clients, models: LoopbackModels, module_tmp: Path):
    for said, reply in SAID.values():
        models.answer_when(said, reply)
    home = ClientHome(clients, module_tmp / "home", models.url, module_tmp / "workspace")
    project = module_tmp / "orders-api"
    project.mkdir()
    assert home.install_hooks(project).returncode == 0
    try:
        ran(home.claude(["-p", SAID["claude-code"][0], "--session-id", str(uuid.uuid4())], cwd=project),
            SAID["claude-code"][1])
        ran(home.pi(["-p", SAID["pi"][0]], cwd=project), SAID["pi"][1])
        ran(home.codex(["exec", "--skip-git-repo-check", SAID["codex"][0]], cwd=project), SAID["codex"][1])
        home.settle()
        folders = [home.claude_projects, home.pi_sessions, home.codex_sessions]
        imported = home.memory(["import", *map(str, folders), "--json"], cwd=project)
        assert imported.returncode == 0, imported.stderr[-2000:]
        ingested = home.memory(["ingest", "--json"], cwd=project, timeout=900)
        assert ingested.returncode == 0, ingested.stderr[-2000:]
        yield home, project, json.loads(imported.stdout)
    finally:
        home.memory(["stop"], cwd=project, timeout=60)


def test_each_clients_session_folder_is_imported(history):
    home, _, report = history
    taken = [Path(item["path"]) for item in report["items"] if item["status"] in ("imported", "already")]
    for folder in (home.claude_projects, home.pi_sessions, home.codex_sessions):
        assert any(folder in path.parents for path in taken), (folder, report["items"])
    assert report["failed"] == 0, report["items"]


@pytest.mark.parametrize("client", sorted(SAID))
def test_recall_from_the_project_folder_finds_what_was_said(history, client):
    home, project, _ = history
    done = home.memory(["recall", QUERIES[client], "--json"], cwd=project, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    hits = json.loads(done.stdout)["hits"]
    assert any(NEEDLES[client] in hit["text"] for hit in hits[:5]), [hit["text"] for hit in hits]
