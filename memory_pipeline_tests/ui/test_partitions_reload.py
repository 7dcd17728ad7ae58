"""An import that moves the partitions' first day back while `memory-pipeline ui` runs: the running
UI reloads its definitions and shows the older days (no restart, no environment variable). The
UI also shows the condition that reruns a stage after a new code version."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from datetime import date, timedelta
from pathlib import Path

import pytest

from memory_pipeline.resources.processes import stop_group
from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli
from memory_pipeline_tests.support.friction_sessions import FILLER, claude_session
from memory_pipeline_tests.ui.dagster_server import free_port, graphql

pytestmark = pytest.mark.slow
KEYS = '{ assetNodes(assetKeys: [{path: ["observations"]}]) { partitionKeys } }'
CONDITIONS = '{ assetNodes { assetKey { path } automationCondition { label } } }'


def partition_keys(base: str) -> list[str]:
    return graphql(base, KEYS)["data"]["assetNodes"][0]["partitionKeys"]


def test_an_import_reloads_the_running_ui_with_the_older_days(tmp_path: Path):
    env = hook_env(tmp_path / "workspace", DAGSTER_HOME=str(tmp_path / "dagster"))
    env.pop("MEMORY_PARTITIONS_START")
    old = (date.today() - timedelta(days=400)).isoformat()
    (tmp_path / "t").mkdir()
    claude_session(tmp_path / "t" / "old.jsonl", "s-old", "/home/dev/src/shop", old,
                   [("user", "We deploy the shop with fly, never heroku"), *FILLER])
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with open(tmp_path / "ui.log", "w") as log:
        ui = subprocess.Popen([sys.executable, "-m", "memory_pipeline.cli", "ui", "--port", str(port)], env=env,
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                urllib.request.urlopen(f"{base}/server_info", timeout=2)
                break
            except OSError:
                assert ui.poll() is None and time.monotonic() < deadline, (tmp_path / "ui.log").read_text()[-3000:]
                time.sleep(0.5)
        assert old not in partition_keys(base)
        labels = {node["assetKey"]["path"][-1]: (node["automationCondition"] or {}).get("label")
                  for node in graphql(base, CONDITIONS)["data"]["assetNodes"]}
        assert labels["observations"] == labels["reflections"] == "new code version: runs again over the last 7 days"
        assert labels["observation_index"] == "follows its upstream, or runs again after a new code version"
        done = run_cli(["import", str(tmp_path / "t"), "--json"], env, timeout=300)
        report = json.loads(done.stdout)
        assert report["imported"] == 1 and report["partitions_start"] == old and report["ui_reloaded"] == base
        assert partition_keys(base)[0] == old
    finally:
        stop_group(ui.pid, grace=20.0)
        ui.wait()
        run_cli(["stop"], env)
