"""`memory-pipeline mcp` driven by the MCP SDK's own client over stdio, on a real ingested
workspace: the pi fixture imported, observed, indexed and reflected (real Dagster runs), one
proposal approved into MEMORY.md."""

from __future__ import annotations

import re
from pathlib import Path

import dagster as dg
import pytest
from mcp import Client
from mcp_types import ListRootsResult, Root

from memory_pipeline.config import Settings
from memory_pipeline.defs.resources import build_resources
from memory_pipeline.flows.intake.importer import import_transcripts
from memory_pipeline.main import main
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
from memory_pipeline.stages.memory_tools import UNREVIEWED
from memory_pipeline_tests.support.dagster_defs import assets
from memory_pipeline_tests.support.doors import redis_limits, runtime_dir
from memory_pipeline_tests.support.mcp_door import door
from memory_pipeline_tests.support.paths import fixture_transcript

pytestmark = [pytest.mark.slow, pytest.mark.anyio]
TOOLS = {"search", "get", "timeline", "trace", "brief"}
HIT_LINE = re.compile(r"^([0-9a-f-]{36}) · (\d{4}-\d{2}-\d{2}) · (\S+) · (\S+) · said by (\S+) · [\d.]+ · (.+)$", re.MULTILINE)


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    """(workspace, day, the approved proposal, the project's folder, a folder of no project)."""
    from memory_pipeline.resources.daemons.services import stop_workspace_services
    from memory_pipeline.resources.workspace import Workspace

    tmp = tmp_path_factory.mktemp("mcp")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMORY_WORKSPACE", str(tmp / "workspace"))
        patch.setenv("DAGSTER_HOME", str(tmp / "dagster"))
        patch.setenv("MEMORY_LLM_PROVIDER", "offline")
        for name in ("REDIS_URL", "QDRANT_URL", "ANTHROPIC_API_KEY"):
            patch.delenv(name, raising=False)
        (tmp / "dagster").mkdir()
        workspace = Workspace(tmp / "workspace").create()
        [day] = import_transcripts(workspace, [fixture_transcript("pi/before-compaction.jsonl")], Settings.from_env()).days
        result = dg.materialize(assets("sessions", "observations", "observation_index", "message_index",
                                       "reflections", "proposals", "memory_md"),
                                partition_key=day, resources=build_resources(Settings.from_env()))
        assert result.success
        store = ProposalStore(RedisStore(connect_redis(None, workspace.state, *redis_limits())))
        chosen = next(p for p in store.pending() if p.source_fact_ids)
        assert main(["review", "approve", chosen.id]) == 0
        (tmp / "pi-mono").mkdir()
        (tmp / "elsewhere").mkdir()
        yield workspace, day, chosen, tmp / "pi-mono", tmp / "elsewhere"
        stop_workspace_services(workspace, runtime_dir())


def roots(folder: Path):
    async def list_roots(context) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=folder.as_uri(), name=folder.name)])
    return list_roots


async def call(client: Client, tool: str, arguments: dict) -> tuple[bool, str]:
    result = await client.call_tool(tool, arguments)
    assert result.structured_content is None and [c.type for c in result.content] == ["text"]  # the text itself
    return bool(result.is_error), result.content[0].text


def fenced_part(text: str) -> str:
    """What sits inside the answer's fence (the unreviewed data)."""
    assert UNREVIEWED in text
    match = re.search(r"^(`{3,})text\n(.*?)\n\1$", text, re.MULTILINE | re.DOTALL)
    assert match, text
    return match.group(2)


async def test_the_sdk_client_lists_the_tools_and_calls_each_on_real_memory(memory):
    workspace, day, chosen, project_folder, _ = memory
    async with Client(door(workspace, project_folder.parent), mode="legacy",
                      list_roots_callback=roots(project_folder)) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(listed) == TOOLS
        assert all(tool.output_schema is None for tool in listed.values())  # clients pass the text, not {"result": …}
        assert all(tool.annotations and tool.annotations.read_only_hint for tool in listed.values())
        assert {"query", "limit", "since", "tier", "project", "all_projects"} <= set(
            listed["search"].input_schema["properties"])

        error, text = await call(client, "search", {"query": "e2e tests for AgentSession", "limit": 5})
        assert not error and "in project pi-mono + user-level memories" in text
        hits = HIT_LINE.findall(fenced_part(text))
        assert hits and all(project == "pi-mono" and date == day for _, date, project, *_ in hits)
        assert any("e2e tests for AgentSession" in line for *_, line in hits)
        assert {said for *_, said, _ in hits} <= {"user", "assistant"}  # a real session's messages, by who said them
        hit_id = next(h[0] for h in hits if "e2e tests for AgentSession" in h[5])

        error, text = await call(client, "get", {"ids": [hit_id]})
        body = fenced_part(text)
        assert not error and f"## {hit_id}" in body and "session:" in body
        cited = re.findall(r"^▶ \[[^\]]+\] (user|assistant) \((\w+)\): (.+)$", body, re.MULTILINE)
        assert cited and any("e2e tests for AgentSession" in quote for *_, quote in cited)
        assert "event " in body and "transcripts/" in body

        error, text = await call(client, "timeline", {"target": hit_id, "around": 2})
        body = fenced_part(text)
        assert not error and "# messages" in body and "# observations of this session" in body
        assert re.search(r"^▶ .*e2e tests for AgentSession", body, re.MULTILINE)
        assert len(re.findall(r"^[ ▶] \[", body, re.MULTILINE)) <= 2 * 2 + len(cited)
        assert f"# {day}:" in body

        error, text = await call(client, "timeline", {"target": day, "days": 0})
        assert not error and f"# {day}: 1 observation" in fenced_part(text)

        number = next(n for n, line in enumerate(workspace.memory_md.read_text().splitlines(), start=1)
                      if chosen.id in line)
        error, text = await call(client, "trace", {"target": str(number)})
        assert not error and "MEMORY.md (reviewed): " in text and chosen.text[:30] in text.split("```")[0]
        assert f"proposal {chosen.id}" in fenced_part(text) and "> [" in fenced_part(text)

        error, text = await call(client, "brief", {})
        assert not error and "# Session briefing" in text and "project pi-mono" in text
        assert chosen.text[:30] in text


async def test_bad_arguments_are_tool_errors_and_the_server_keeps_answering(memory):
    workspace, _, _, project_folder, _ = memory
    async with Client(door(workspace, project_folder)) as client:
        for tool, arguments, says in [
            ("search", {"query": "redis", "limit": 0}, "limit must be an integer from 1 to 50, got 0"),
            ("search", {"query": "redis", "limit": "ten"}, "limit must be an integer from 1 to 50"),
            ("search", {"query": "redis", "limit": True}, "limit must be an integer"),
            ("search", {"query": "redis", "tier": "everything"}, "tier must be one of all, observations, messages"),
            ("search", {"query": "redis", "since": 20261101}, "since must be a string or null"),
            ("search", {"query": "redis", "colour": "red"}, "unknown argument 'colour'"),
            ("search", {"query": ["redis"]}, "query must be a string"),
            ("search", {"query": "   "}, "query"),
            ("search", {"query": "redis", "since": "last tuesday"}, "since"),
            ("search", {"limit": 3}, "query"),
            ("get", {"ids": ["not-an-id"]}, "not a hit id"),
            ("get", {"ids": []}, "ids must be a list of 1 to 20 strings"),
            ("get", {"ids": "a-hit-id"}, "ids must be a list"),
            ("get", {}, "ids is required"),
            ("timeline", {"target": "2026-11-01", "around": 99}, "around must be an integer from 0 to 50"),
            ("timeline", {"target": "2026-13-45"}, "not a day"),
            ("timeline", {"target": "no-such-session"}, "no session"),
            ("trace", {"target": "999999"}, "MEMORY.md has"),
            ("brief", {"all_projects": "sometimes"}, "all_projects must be true or false"),
            ("forget", {"everything": True}, "unknown tool 'forget'"),
        ]:
            error, text = await call(client, tool, arguments)
            assert error, (tool, arguments, text)
            assert says.lower() in text.lower(), (tool, text)
            assert "Traceback" not in text
        error, text = await call(client, "search", {"query": "e2e tests for AgentSession"})
        assert not error and HIT_LINE.search(fenced_part(text))


async def test_the_project_is_the_client_root_else_the_working_folder(memory):
    workspace, _, _, project_folder, elsewhere = memory
    query = {"query": "e2e tests for AgentSession"}
    async with Client(door(workspace, elsewhere)) as client:  # no roots: the server's folder, no project's memory
        error, text = await call(client, "search", query)
        assert not error and "in project elsewhere" in text and not HIT_LINE.search(fenced_part(text))
        error, text = await call(client, "search", query | {"all_projects": True})
        assert not error and "in all projects" in text and HIT_LINE.search(fenced_part(text))
        error, text = await call(client, "search", query | {"project": "pi-mono"})
        assert not error and HIT_LINE.search(fenced_part(text))
    async with Client(door(workspace, elsewhere), mode="legacy", list_roots_callback=roots(project_folder)) as client:
        error, text = await call(client, "search", query)
        assert not error and "in project pi-mono" in text and HIT_LINE.search(fenced_part(text))


async def test_the_door_starts_the_hook_service_behind_and_a_refused_call_runs_in_a_child(memory):
    """`initialize` is answered without waiting for anything; the hook service it starts behind answers
    the calls. A call the service refuses (other settings: here a setting at its default, spelt out)
    runs in a process of its own, with the same answer."""
    from memory_pipeline import hook_entry

    workspace, _, _, project_folder, _ = memory
    hook_entry.stop_service(str(workspace.root))
    query = {"query": "e2e tests for AgentSession"}
    async with Client(door(workspace, project_folder)) as client:
        error, through_service = await call(client, "search", query)
        assert not error and HIT_LINE.search(fenced_part(through_service))
        pid = hook_entry.service_pid(str(workspace.root))
        assert pid is not None
    async with Client(door(workspace, project_folder, MEMORY_DEDUP_SIMILARITY="0.85")) as client:
        error, in_child = await call(client, "search", query)
        assert not error and HIT_LINE.findall(fenced_part(in_child)) == HIT_LINE.findall(fenced_part(through_service))
    assert hook_entry.service_pid(str(workspace.root)) == pid  # still the same service; it refused, nothing more
