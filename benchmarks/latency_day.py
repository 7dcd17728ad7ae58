"""A day of real transcripts through `ingest` (part of `bench latency`).

The shared fixtures (a 3.2 MB Claude Code session, two 2.4 MB pi sessions, a small Claude Code
and a Codex one) are emitted under distinct session ids until the day holds `sessions` sessions
and at least `megabytes` MB, the scale of the project's seed day (23 sessions, 18 MB).
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from pathlib import Path

from memory_pipeline.errors import BadInputError

BIG = ("claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", "pi/before-compaction.jsonl",
       "pi/before-compaction.v3-migrated.jsonl")
SMALL = ("claude-code/tool_heavy.jsonl",
         "codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl")


def default_fixtures() -> Path:
    """../shared/fixtures/transcripts beside the repository."""
    return Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "transcripts"


def day_files(fixtures: Path, sessions: int, megabytes: float) -> list[Path]:
    """Big transcripts until the size is reached, then small ones up to the session count."""
    missing = [name for name in BIG + SMALL if not (fixtures / name).is_file()]
    if missing:
        raise BadInputError(f"fixture transcripts missing under {fixtures}: {missing}")
    chosen: list[Path] = []
    while len(chosen) < sessions and sum(p.stat().st_size for p in chosen) < megabytes * 1e6:
        chosen.append(fixtures / BIG[len(chosen) % len(BIG)])
    while len(chosen) < sessions:
        chosen.append(fixtures / SMALL[len(chosen) % len(SMALL)])
    return chosen


def emit_fixture_day(root: Path, env: dict, sessions: int, fixtures: Path | None = None,
                     megabytes: float = 18.0) -> dict:
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.intake.emit import emit_session_event
    from memory_pipeline.resources.workspace import Workspace

    workspace = Workspace(Path(env["MEMORY_WORKSPACE"])).create()
    settings = Settings.from_env(env)  # the benchmark's door: the environment it built for its workspace
    day = (datetime.now().astimezone() - timedelta(days=1)).replace(hour=12, minute=0, second=0, microsecond=0)
    files = day_files(fixtures or default_fixtures(), sessions, megabytes)
    for n, path in enumerate(files):
        emit_session_event(workspace, path, trigger="shutdown", session_id=f"latency-{n:02d}",
                           captured_at=day + timedelta(minutes=n), settings=settings)
    return {"day": day.date().isoformat(), "sessions": len(files),
            "megabytes": round(sum(p.stat().st_size for p in files) / 1e6, 1)}


def bench_day(root: Path, env: dict, source: dict, measure_raw: bool = True) -> dict:
    from benchmarks.timing import cli

    wall = cli(env, "ingest", "--json", timeout=1800)
    figures = {**source, "ingest_wall_s": round(wall, 1), **_steps(env, source["day"])}
    if measure_raw:
        figures.update(_embedding_rates(env, source["day"], figures["steps_s"].get("message_index", 0.0),
                                        _embedding_seconds(env)))
    return figures


def _steps(env: dict, day: str) -> dict:
    from dagster import RunsFilter

    from memory_pipeline.config import Settings
    from memory_pipeline.flows.runs import get_instance
    from memory_pipeline.resources.workspace import Workspace

    instance = get_instance(Workspace(Path(env["MEMORY_WORKSPACE"])), Settings.from_env(env))
    runs = instance.get_runs(filters=RunsFilter(tags={"dagster/partition": day}))
    steps: dict[str, float] = {}
    for run in runs:
        for stat in instance.get_run_step_stats(run.run_id):
            seconds = (stat.end_time or 0) - (stat.start_time or 0)
            steps[stat.step_key] = round(steps.get(stat.step_key, 0.0) + seconds, 2)
    return {"runs": len(runs), "steps_s": steps}


def _embedding_seconds(env: dict) -> float:
    """Seconds the message_index step spent in the embedding model (its materialization's metadata)."""
    from dagster import AssetKey

    from memory_pipeline.config import Settings
    from memory_pipeline.flows.runs import get_instance
    from memory_pipeline.resources.workspace import Workspace

    event = get_instance(Workspace(Path(env["MEMORY_WORKSPACE"])), Settings.from_env(env)).get_latest_materialization_event(
        AssetKey("message_index"))
    value = event.asset_materialization.metadata.get("embedding_seconds") if event else None
    return float(value.value) if value is not None else 0.0


def _embedding_rates(env: dict, day: str, index_seconds: float, embed_seconds: float) -> dict:
    """The message index's texts per second, over its whole step (documents, embedding, upserts)
    and over its time in the model, against `SentenceTransformer.encode` (torch, CPU) of the same
    texts in this process, model already loaded."""
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.index.messages import day_message_points
    from memory_pipeline.resources.embedding.embedder import get_embedder
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
    from memory_pipeline.resources.workspace import Workspace

    texts = [p.text for p in day_message_points(Workspace(Path(env["MEMORY_WORKSPACE"])), Settings.from_env(env), day)]
    model = Settings.from_env().embedding_model
    embedder = get_embedder(model, device="cpu")
    embedder.encode(["warm up"])
    started = time.perf_counter()
    embedder.model.encode(texts, batch_size=64, normalize_embeddings=True)
    raw = time.perf_counter() - started
    pipeline_rate = len(texts) / index_seconds if index_seconds else 0.0
    return {"message_texts": len(texts), "raw_encode_s": round(raw, 1),
            "raw_encode_texts_per_s": round(len(texts) / raw, 1),
            "message_index_texts_per_s": round(pipeline_rate, 1),
            "embedding_ratio_pipeline_to_raw": round(pipeline_rate * raw / len(texts), 2) if texts else None,
            "message_index_embedding_s": round(embed_seconds, 1),
            "embedding_ratio_model_to_raw": round(raw / embed_seconds, 2) if embed_seconds else None,
            "embedding_device": embedder_for(model, Settings.from_env()).device}
