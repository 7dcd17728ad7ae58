"""`memory-pipeline bench mcp`: the memory MCP server's latency as an agent sees it.

A fresh workspace gets N synthetic points (recall_speed's: random words and unit vectors, half of
them in the project "bench", half in another); `memory-pipeline mcp` is started over stdio by the
MCP SDK's own client in a folder named "bench"; every figure is measured at that client, the JSON-RPC
round trip included. Cold = the first search (it starts the recall service); warm = the next ones,
each a new sentence so the query is always embedded.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.recall_speed import fill_store, percentile, points_for, queries_for
from memory_pipeline.config import child_environment, set_process_environment
from memory_pipeline.errors import MemoryPipelineError

PROJECT = "bench"
HIT_ID = re.compile(r"^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}) · ", re.MULTILINE)


def ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def cpu_now(pids: list[int]) -> list[float]:
    """CPU seconds used so far by this process, then by each of `pids`."""
    from memory_pipeline.resources.processes import cpu_seconds

    return [time.process_time(), *(cpu_seconds(pid) or 0.0 for pid in pids)]


def cpu_per_search(before: list[float], after: list[float], searches: int) -> list[float]:
    return [round((b - a) * 1000 / searches, 1) for a, b in zip(before, after)]


def search_processes(workspace) -> list[int]:
    """The MCP door (this process's child), the hook service that runs its calls and the recall
    service: who works for a search."""
    from memory_pipeline import hook_entry
    from memory_pipeline.resources.daemons import recall_service
    from memory_pipeline.resources.processes import children_of, command_line

    servers = [pid for pid in children_of(os.getpid()) if command_line(pid)[-2:] == ["memory_pipeline.main", "mcp"]]
    services = [hook_entry.service_pid(str(workspace.root), timeout=5.0), recall_service.service_pid(workspace)]
    return servers + [pid for pid in services if pid]


async def drive(workspace, folder: Path, queries: list[str]) -> dict:
    from mcp import Client, StdioServerParameters

    env = child_environment(PYTHONPATH=os.pathsep.join(sys.path))
    server = StdioServerParameters(command=sys.executable, args=["-m", "memory_pipeline.main", "mcp"], env=env,
                                   cwd=str(folder))
    started = time.perf_counter()
    async with Client(server) as client:
        connect_ms = ms_since(started)
        await client.list_tools()
        started = time.perf_counter()
        first = await client.call_tool("search", {"query": "redis pool timeout"})
        cold_ms = ms_since(started)
        search, ids = [], []
        pids = search_processes(workspace)
        cpu_before = cpu_now(pids)
        for query in queries:
            started = time.perf_counter()
            result = await client.call_tool("search", {"query": query, "limit": 10})
            search.append(ms_since(started))
            ids += HIT_ID.findall(result.content[0].text)[:1]
        cpu_ms = cpu_per_search(cpu_before, cpu_now(pids), len(queries))
        get = []
        for hit_id in ids[:50]:
            started = time.perf_counter()
            answer = await client.call_tool("get", {"ids": [hit_id]})
            get.append(ms_since(started))
            if answer.is_error or f"## {hit_id}" not in answer.content[0].text:
                raise MemoryPipelineError(f"get({hit_id}) did not answer the hit: {answer.content[0].text[:200]}")
    return {"connect_ms": round(connect_ms, 1), "cold_search_ms": round(cold_ms, 1),
            "cold_search_error": bool(first.is_error), "search_p50_ms": percentile(search, 0.5),
            "search_p95_ms": percentile(search, 0.95), "search_cpu_ms": round(sum(cpu_ms), 1),
            "search_cpu_ms_client_server_service": cpu_ms, "get_p50_ms": percentile(get, 0.5) if get else None,
            "get_p95_ms": percentile(get, 0.95) if get else None, "searches": len(search), "gets": len(get)}


def direct_recall(workspace, settings, queries: list[str]) -> dict:
    """The same searches through `recall()` and the same service, without MCP: what MCP adds."""
    from memory_pipeline.flows.recall.client import recall

    took = []
    for query in queries:
        started = time.perf_counter()
        recall(workspace, query, settings=settings, project=PROJECT)
        took.append(ms_since(started))
    return {"recall_p50_ms": percentile(took, 0.5), "recall_p95_ms": percentile(took, 0.95)}


def bench_mcp(points: int = 10_000, queries: int = 200) -> dict:
    from memory_pipeline.config import Settings
    from memory_pipeline.resources.daemons import recall_service
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
    from memory_pipeline.resources.workspace import Workspace

    with tempfile.TemporaryDirectory(prefix="mp-mcp-") as tmp:
        workspace = Workspace(Path(tmp) / "ws").create()
        set_process_environment(MEMORY_WORKSPACE=str(workspace.root))
        settings = Settings.from_env()  # once, after the environment names this workspace
        dimension = embedder_for(settings.embedding_model, settings).dimension
        fill_s = fill_store(workspace, points_for(points, dimension, seed=points, projects=(PROJECT, "other")), dimension)
        folder = Path(tmp) / PROJECT
        folder.mkdir()
        try:
            figures = asyncio.run(drive(workspace, folder, queries_for(queries, seed=points)))
            figures |= direct_recall(workspace, settings, queries_for(queries, seed=points + 1))
        finally:
            recall_service.stop_service(workspace, settings.runtime_dir)
    load = os.getloadavg()
    return {"points": points, "fill_s": round(fill_s, 1), **figures,
            "load_avg_1m": round(load[0], 2), "cpus": os.cpu_count(),
            "note": "measured at the MCP SDK client over stdio: JSON-RPC, the server, the recall service socket, "
                    "query embedding and ranking; scope = project 'bench' + user-level (half the points); recall_* = "
                    "the same kind of searches through recall() and the same service, without MCP, just after; "
                    "search_cpu_ms = CPU per warm search of the client, the MCP door, the hook service that runs its calls and the recall service "
                    "together (what a search costs whatever the load)"}
