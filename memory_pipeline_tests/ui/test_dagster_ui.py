"""The Dagster UI as a person sees it: `dagster dev` on a demo workspace, in headless Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from memory_pipeline.config import Settings
from memory_pipeline_tests.ui.dagster_server import dagster_dev, graphql
from memory_pipeline_tests.support.doors import redis_limits

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (make install installs it as root)"),
]
CHAIN = ["transcripts", "sessions", "observations", "reflections", "proposals", "memory_md"]
LINEAGE_QUERY = "{ assetNodes { assetKey { path } groupName description dependencyKeys { path } } }"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memory_pipeline.cli", *args], capture_output=True, text=True,
                          timeout=600, env={**os.environ})


@pytest.fixture
def demo_workspace(workspace, monkeypatch):
    """The demo's workspace, reflected for 2026-11-21, with one proposal approved into MEMORY.md. The
    demo runs in a workspace of its own (never the user's) with its own Dagster home: point both here."""
    from memory_pipeline.defs.resources import build_resources
    from memory_pipeline.resources.redis.proposals import ProposalStore
    from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
    from memory_pipeline_tests.support.dagster_defs import assets

    monkeypatch.setenv("MEMORY_WORKSPACE", str(workspace.root.parent / "users-workspace"))
    assert cli("demo", "--workspace", str(workspace.root)).returncode == 0
    monkeypatch.setenv("MEMORY_WORKSPACE", str(workspace.root))
    monkeypatch.setenv("DAGSTER_HOME", str(workspace.state_path("dagster")))
    with dg.DagsterInstance.get() as instance:
        reflect = dg.materialize(assets("reflections", "proposals", "memory_md"), partition_key="2026-11-21",
                                 resources=build_resources(Settings.from_env()), instance=instance)
        assert reflect.success
        pending = ProposalStore(RedisStore(connect_redis(None, workspace.state, *redis_limits()))).pending()
        assert pending, "the demo's reflection staged no proposal"
        approved = pending[0]
        assert cli("review", "approve", approved.id).returncode == 0
        assert dg.materialize(assets("memory_md"), partition_key="2026-11-21", resources=build_resources(Settings.from_env()),
                              instance=instance).success
    return workspace, approved


def screenshot_dir(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("MEMORY_UI_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_ui_shows_assets_lineage_automation_and_memory_preview(demo_workspace, tmp_path):
    from playwright.sync_api import sync_playwright

    workspace, approved = demo_workspace
    shots = screenshot_dir(tmp_path)
    with dagster_dev(tmp_path / "dagster-dev.log") as base:
        graphql(base, "mutation { setNuxSeen }")  # dismiss the 'community' dialog before screenshots
        nodes = {tuple(n["assetKey"]["path"]): n for n in graphql(base, LINEAGE_QUERY)["data"]["assetNodes"]}
        for upstream, downstream in zip(CHAIN, CHAIN[1:]):
            assert [upstream] in [d["path"] for d in nodes[(downstream,)]["dependencyKeys"]], downstream
        assert all(n["description"] and "<" not in n["description"] for n in nodes.values())
        assert {n["groupName"] for n in nodes.values()} >= {"ingest", "reflect"}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
            page = browser.new_page(viewport={"width": 1600, "height": 1000})

            def visit(path: str, name: str, expect: list[str]) -> str:
                page.goto(base + path)
                for text in expect:
                    page.get_by_text(text, exact=False).first.wait_for(timeout=60_000)
                page.wait_for_timeout(1500)
                page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
                return page.inner_text("body")

            visit("/asset-groups", "asset-graph", ["ingest", "reflect"])
            lineage = visit("/assets/memory_md?view=lineage&lineageScope=upstream&lineageDepth=10",
                            "memory_md-lineage", CHAIN)
            assert all(name in lineage for name in CHAIN)
            page_text = visit("/assets/memory_md", "memory_md", ["Description", "Metadata", approved.text[:40]])
            assert approved.section in page_text
            assert "state/memory_snapshots/YYYY-MM-DD.md" in page_text
            observations = visit("/assets/observations", "observations", ["facts_high", "prompt_sha"])
            assert "observations/YYYY-MM-DD/" in observations
            automation = visit("/automation", "automation", ["inbox_sensor"])
            for name in ("inbox_sensor", "review_sensor", "reflect_threshold_sensor", "reflect_schedule",
                         "unreflected_days_sensor", "follow_upstream_sensor"):
                assert name in automation
            browser.close()
    assert {p.name for p in shots.glob("*.png")} >= {"asset-graph.png", "memory_md.png", "automation.png"}
