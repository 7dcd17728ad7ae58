"""The recall service process: `python -m memory_pipeline.services.recall_server --workspace DIR`.

Loads the embedder and opens the store once, then answers `status`, `recall`, `points`, `release`
(a writer needs the Edge shard: it is closed until the next request) and `stop` requests.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from pathlib import Path

from memory_pipeline.config import Settings, configure_process
from memory_pipeline.errors import BadInputError, MemoryPipelineError
from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest
from memory_pipeline.flows.recall.protocol import (
    PointsReply,
    PointsRequest,
    RecallReply,
    RecallRequest,
    RecallTimings,
    parse_request,
    reply,
)
from memory_pipeline.resources.daemons.recall_service import DEFAULT_IDLE_TIMEOUT, serve
from memory_pipeline.resources.embedding.embedder import Embedder
from memory_pipeline.resources.workspace import Workspace


class RecallHandler:
    def __init__(self, engine: RecallEngine, idle_timeout: float, startup: dict | None = None) -> None:
        """`startup`: the seconds the service took to start (imports, model, shard; `status` says them)."""
        self.engine = engine
        self.startup = startup or {}
        self.idle_timeout = idle_timeout
        self.started = time.time()
        self.requests = 0

    def status(self) -> dict:
        index = self.engine.index()
        points = index.points_held()  # never waits for a writer
        return {"ok": True, "pid": os.getpid(), "points": points, "generation": index.generation,
                "model": self.engine.settings.embedding_model, "uptime_s": round(time.time() - self.started, 1),
                "requests": self.requests, "idle_timeout_s": self.idle_timeout,
                "reload_error": self.engine.reload_error, "store": self.engine.store_where(),
                "startup": self.startup,
                **({"paged_in_s": index.paged_in_s, "paged_in_mb": index.paged_in_mb}
                   if hasattr(index, "paged_in_s") and hasattr(index, "paged_in_mb") else {})}  # an Edge shard's

    def __call__(self, payload: dict) -> dict:
        op = payload.get("op")
        try:
            if op == "status":
                return self.status()
            if op == "stop":
                return {"ok": True, "stopping": True}
            if op == "release":  # a writer needs the Edge shard: close it; the next request opens it again
                return {"ok": True, "released": self.engine.release_shard()}
            if op == "recall":
                self.requests += 1
                request = parse_request(RecallRequest, payload.get("args"))
                hits = self.engine.search(SearchRequest.of(request), wait=request.wait)
                timings = self.engine.last
                return reply(RecallReply(hits=hits, timings=RecallTimings(
                    embed_ms=timings.embed_ms, search_ms=timings.search_ms, total_ms=timings.total_ms)))
            if op == "points":
                points = parse_request(PointsRequest, payload.get("args"))
                return reply(PointsReply(points=self.engine.points(points.ids, points.session_id)))
            return {"ok": False, "kind": "bad_input", "error": f"unknown op {op!r}"}
        except BadInputError as exc:
            return {"ok": False, "kind": "bad_input", "error": str(exc)}
        except MemoryPipelineError as exc:
            return {"ok": False, "kind": "service", "error": str(exc)}
        except Exception as exc:  # the service must keep answering; the log keeps the trace
            traceback.print_exc()
            return {"ok": False, "kind": "internal", "error": f"{type(exc).__name__}: {exc}"}


def limit_torch_threads(settings: Settings) -> None:
    """One query is tiny: on 2 shared cores one torch thread answered in 14 ms p50 against 90 ms for
    two (MEMORY_RECALL_TORCH_THREADS overrides)."""
    import torch

    torch.set_num_threads(max(1, settings.recall_torch_threads))


def seconds_since_start() -> float | None:
    """Seconds since this process started (Linux's /proc, to a hundredth); None elsewhere."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return round(uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"), 2)  # field 22: the start, in ticks
    except (OSError, ValueError, IndexError):
        return None


def main(argv: list[str] | None = None) -> int:
    imported = seconds_since_start()  # the interpreter's start and this module's imports
    parser = argparse.ArgumentParser(prog="recall-service")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--idle-timeout", type=float, default=DEFAULT_IDLE_TIMEOUT)
    args = parser.parse_args(argv)
    configure_process()
    workspace = Workspace(args.workspace).create()
    settings = Settings.from_env()  # the service's door: once per process
    engine = RecallEngine(workspace, settings, service=True)
    if isinstance(engine.embedder, Embedder):  # the ONNX embedder sets its own threads, without torch
        limit_torch_threads(settings)
    try:
        engine.warm()
    except MemoryPipelineError as exc:
        print(f"recall service cannot start: {exc}", file=sys.stderr)
        return 1
    startup = {"imports_s": imported, **engine.warmed, "ready_s": seconds_since_start()}
    return serve(workspace, settings.runtime_dir, RecallHandler(engine, args.idle_timeout, startup), args.idle_timeout)


if __name__ == "__main__":
    sys.exit(main())
