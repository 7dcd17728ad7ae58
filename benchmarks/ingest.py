"""`memory-pipeline bench ingest`: N generated sessions end to end, and embedding throughput.

Prints sessions/s and messages/s for emit → sensor intake → Dagster run (sessions,
observations, observation_index), and the pipeline's embedding throughput as a ratio to a raw
sentence-transformers encode (torch, CPU) of the same texts.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from memory_pipeline.config import Settings, set_process_environment


def _step_seconds(instance, run_id: str) -> dict[str, float]:
    return {s.step_key: (s.end_time or 0) - (s.start_time or 0) for s in instance.get_run_step_stats(run_id)}


def bench_ingest(load_definitions, sessions: int = 50, turns: int = 8, repeats: int = 3) -> dict:
    from benchmarks.synthetic import write_sessions
    from memory_pipeline.flows.intake.emit import emit_session_event
    from memory_pipeline.flows.intake.ingest import ingest
    from memory_pipeline.flows.runs import get_instance
    from memory_pipeline.resources.embedding.embedder import get_embedder
    from memory_pipeline.resources.files.observation_files import load_observations
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
    from memory_pipeline.resources.workspace import Workspace
    from memory_pipeline.stages.index.observation_docs import observation_points

    day = datetime(2026, 11, 2, tzinfo=timezone.utc)
    with tempfile.TemporaryDirectory(prefix="mp-bench-") as tmp:
        root = Path(tmp)
        set_process_environment(MEMORY_WORKSPACE=str(root / "ws"), DAGSTER_HOME=str(root / "dagster"))
        workspace = Workspace(root / "ws").create()
        definitions = load_definitions()  # after the environment names this workspace: settings bind at build
        paths = write_sessions(root / "transcripts", sessions, day, turns=turns)
        settings = Settings.from_env()  # once, after the environment names this workspace
        model = settings.embedding_model
        pipeline_embedder, raw_model = embedder_for(model, settings), get_embedder(model, device="cpu").model
        pipeline_embedder.encode(["warm up"])  # model load is not throughput
        started = time.perf_counter()
        messages = 0
        for path in paths:
            result = emit_session_event(workspace, path, trigger="shutdown", captured_at=day, settings=settings)
            messages += result.event.data.message_count
        emitted = time.perf_counter()
        report = ingest(workspace, definitions, settings)
        finished = time.perf_counter()
        if not report.success:
            raise RuntimeError(f"ingest failed: {[d.error for d in report.days]}")
        steps = _step_seconds(get_instance(workspace, settings), report.days[0].run_id)
        texts = [p.text for o in load_observations(workspace, day.date().isoformat()) for p in observation_points(o)]
        raw = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            raw_model.encode(texts, batch_size=64, normalize_embeddings=True)
            raw.append(time.perf_counter() - t0)
        raw_rate = len(texts) / statistics.median(raw)
        index_seconds = steps.get("observation_index", 0.0)
        pipeline_rate = len(texts) / index_seconds if index_seconds else 0.0
        total = finished - started
        return {
            "sessions": sessions,
            "embedding_device": pipeline_embedder.device,
            "messages": messages,
            "points": len(texts),
            "wall_seconds": round(total, 2),
            "emit_seconds": round(emitted - started, 2),
            "run_seconds": round(finished - emitted, 2),
            "steps_seconds": {k: round(v, 2) for k, v in steps.items()},
            "sessions_per_second": round(sessions / total, 2),
            "messages_per_second": round(messages / total, 1),
            "index_points_per_second": round(pipeline_rate, 1),
            "raw_encode_texts_per_second": round(raw_rate, 1),
            "embedding_ratio_pipeline_to_raw": round(pipeline_rate / raw_rate, 2) if raw_rate else None,
        }
