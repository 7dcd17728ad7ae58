"""`redact-check` names where secrets sit (never the secret); `scrub` rewrites files and Redis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli
from memory_pipeline_tests.security.secret_samples import LOOK_ALIKES, SECRETS
from memory_pipeline_tests.support.doors import embedded_redis
from memory_pipeline_tests.support.paths import SAMPLES

KEY = SECRETS[9][1]  # "the AWS secret access key is …"


def test_redact_check_then_scrub(tmp_path):
    ws = Workspace(tmp_path / "ws").create()
    (ws.root / "memory").mkdir(exist_ok=True)
    (ws.root / "memory" / "2026-11-21.md").write_text("ok line\n" + SECRETS[9][0] + "\n" + "\n".join(LOOK_ALIKES) + "\n")
    ws.state_path("hooks").mkdir(parents=True, exist_ok=True)
    (ws.state_path("hooks") / "s.json").write_text(json.dumps({"user_messages": [f"the token is {SECRETS[11][1]}"]}))
    env = hook_env(ws.root)
    done = run_cli(["redact-check"], env)
    out = done.stdout.decode()
    assert done.returncode == 1 and KEY not in out and SECRETS[11][1] not in out
    assert "2026-11-21.md:2: secret-in-prose" in out and "s.json:1:" in out and "2 place(s)" in out
    assert "checking" in done.stderr.decode() and "checking" not in out  # the progress bar, on stderr only
    try:
        scrub = run_cli(["scrub"], env, timeout=180)
    finally:
        embedded_redis(ws.state).stop()  # scrub started the workspace's redis-server
    assert scrub.returncode == 0, scrub.stderr
    assert KEY not in (ws.root / "memory" / "2026-11-21.md").read_text()
    assert json.loads((ws.state_path("hooks") / "s.json").read_text())["user_messages"][0].startswith("the token is [RED")
    again = run_cli(["redact-check", str(ws.root / "memory"), str(ws.state_path("hooks"))], env)
    assert again.returncode == 0 and "no secrets found" in again.stdout.decode()
    assert all(line in (ws.root / "memory" / "2026-11-21.md").read_text() for line in LOOK_ALIKES)


@pytest.mark.slow
def test_the_shipped_samples_ingested_leave_nothing_to_flag(tmp_path):
    """Issue 30 (class 8): `redact-check` once flagged 46 "secrets" in a workspace holding only the
    shipped samples (pickled payloads, a thinking block's signature, Dagster's runs.db). The
    samples through `import` and `ingest` with the offline provider, then `secrets check`: the fake
    key and the database password in the samples were redacted, and the decoded stores hold nothing."""
    ws = Workspace(tmp_path / "ws").create()
    (tmp_path / "dagster").mkdir()
    env = hook_env(ws.root, DAGSTER_HOME=str(tmp_path / "dagster"), MEMORY_LLM_PROVIDER="offline",
                   MEMORY_PARTITIONS_START="2026-11-01")
    samples = sorted(str(p) for p in SAMPLES.glob("*.jsonl"))
    assert any("hunter2" in Path(p).read_text() for p in samples)  # the samples hold a secret to redact
    try:
        imported = run_cli(["import", *samples], env, timeout=300)
        assert imported.returncode == 0, imported.stderr.decode()[-2000:]
        ingested = run_cli(["ingest"], env, timeout=900)
        assert ingested.returncode == 0, ingested.stderr.decode()[-2000:]
        checked = run_cli(["secrets", "check", "--json"], env, timeout=300)
    finally:
        embedded_redis(ws.state).stop()
    report = json.loads(checked.stdout)
    assert report["findings"] == [] and report["unreadable"] == [] and checked.returncode == 0
    assert report["files"] >= 20  # the stores were read: sessions, observations, vectors, Redis, runs
    assert len(list(ws.root.joinpath("memory").glob("2026-11-2*.md"))) == 2  # both sample days were ingested
