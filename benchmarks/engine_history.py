"""`bench engine`'s history row: days of a heavy user's history through `import` and `ingest`, the product's path.

`benchmarks/heavy_history.py` writes the days as Claude Code transcripts; then, each in a fresh
process as a user runs them, `memory-pipeline import FOLDER` and `memory-pipeline ingest` (no
flags: one Dagster run per day, the real embedding model, the Qdrant Edge shard). Reported:
wall time of each, the ingest process's peak RSS (VmHWM) and anonymous peak, sampled from here;
the store's bytes on disk; and the message index's throughput (messages embedded and stored per
second of its step, summed over the days' runs) against the embedding model's own throughput on
the same texts in this process after the ingest: the same embedder (`embedder_for`, the ingest
resource's threads and batch budget), fed in the same 512-text chunks (`EMBED_CHUNK`), model
already loaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from benchmarks.latency import environment
from benchmarks.timing import cli
from memory_pipeline.errors import BadInputError
from memory_pipeline.resources.vectors.edge_payloads import table_path
from memory_pipeline.resources.workspace import folder_bytes

# Today's engine (qdrant-client local mode, week stores) no longer runs through ingest: the product
# writes the Edge shard. Its last figures through ingest, from docs/benchmarks.md, not from this run.
TODAY_HISTORY = {
    "engine": "today (local mode)",
    "source": "NOT from this run: the last figures measured, docs/benchmarks.md",
    "figures": "2026-11-23, `bench latency --only day` (load 1.1-1.5): a day of the shared real transcripts "
               "(23 sessions, 1,565 messages) through ingest 56.2 s; message index 43 messages/s, 33.3 of its "
               "36.3 s in the model (0.92; the model alone was not run), 1.23 x a torch encode of the same texts. "
               "2026-11-22, `bench soak` (30 days x 50 sessions): 481 s, peak RSS 1.2 GB, 34k points in 5 week "
               "stores, 175 MB on disk",
}


def _sampled(args: list[str], env: dict[str, str], timeout: float) -> tuple[float, dict]:
    """Run `memory-pipeline ARGS` in a fresh process; its wall seconds and peak memory (sampled every 0.5 s;
    VmHWM is the kernel's own high-water mark, so the last sample holds the process's peak)."""
    errors = tempfile.TemporaryFile(mode="w+")  # a pipe left unread would stop a chatty child
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "memory_pipeline.main", *args], env=env,
                             stdout=subprocess.DEVNULL, stderr=errors, text=True)
    status, peaks = Path(f"/proc/{child.pid}/status"), {"VmHWM": 0, "RssAnon": 0, "RssFile": 0}
    while child.poll() is None:
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines())
            for key in peaks:
                peaks[key] = max(peaks[key], int(fields[key].split()[0]) // 1024)
        except (OSError, KeyError, ValueError):
            pass
        if time.perf_counter() - started > timeout:
            child.kill()
        time.sleep(0.5)
    seconds = time.perf_counter() - started
    errors.seek(0)
    error = errors.read()
    errors.close()
    if child.returncode != 0:
        raise RuntimeError(f"memory-pipeline {' '.join(args)} exited {child.returncode}: {error[-2000:]}")
    return seconds, {"peak_rss_mb": peaks["VmHWM"], "peak_anon_mb": peaks["RssAnon"], "peak_file_mb": peaks["RssFile"]}


def _points(shard: Path) -> int:
    from qdrant_edge import CountRequest, EdgeShard

    opened = EdgeShard.load(str(shard))
    try:
        return int(opened.count(CountRequest(exact=True)))
    finally:
        opened.close()


def _message_index_steps(env: dict[str, str]) -> dict:
    """The message_index step's seconds over every run, and what its materializations say they embedded."""
    import dagster as dg

    from memory_pipeline.config import Settings
    from memory_pipeline.flows.runs import get_instance
    from memory_pipeline.resources.workspace import Workspace

    instance = get_instance(Workspace(Path(env["MEMORY_WORKSPACE"])), Settings.from_env(env))
    runs = instance.get_runs()
    seconds = sum((s.end_time or 0) - (s.start_time or 0) for run in runs
                  for s in instance.get_run_step_stats(run.run_id) if s.step_key == "message_index")
    embedded = model = 0.0
    records = instance.fetch_materializations(dg.AssetKey("message_index"), limit=10_000).records
    for record in records:
        metadata = record.asset_materialization.metadata if record.asset_materialization else {}
        embedded += float(metadata["embedded_now"].value) if "embedded_now" in metadata else 0
        model += float(metadata["embedding_seconds"].value) if "embedding_seconds" in metadata else 0
    return {"runs": len(runs), "message_index_s": round(seconds, 1), "embedded": int(embedded),
            "embedding_s": round(model, 1), "days": sorted({r.partition_key for r in records if r.partition_key})}


def _model_alone(env: dict[str, str], days: list[str]) -> dict:
    """The embedding model alone on the message index's texts (the messages' and their passages'), in the
    chunks the index hands it."""
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.index.observations import EMBED_CHUNK
    from memory_pipeline.flows.index.messages import day_message_points, passage_points_of
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
    from memory_pipeline.resources.workspace import Workspace

    settings = Settings.from_env(env)
    workspace = Workspace(Path(env["MEMORY_WORKSPACE"]))
    embedder = embedder_for(settings.embedding_model, settings)
    embedder.encode(["warm up"])  # the model's load is not throughput
    texts = seconds = 0.0
    for day in days:
        messages = partial(day_message_points, workspace, settings, day)  # and their passages, as the index embeds
        day_texts = [p.text for p in messages()] + [p.text for p in passage_points_of(messages)()]
        for first in range(0, len(day_texts), EMBED_CHUNK):
            chunk = day_texts[first:first + EMBED_CHUNK]
            started = time.perf_counter()
            embedder.encode(chunk)
            seconds += time.perf_counter() - started
            texts += len(chunk)
    return {"model_texts": int(texts), "model_s": round(seconds, 1),
            "embedding_device": getattr(embedder, "device", "cpu")}


def _shard_of(workspace: Path) -> Path:
    """The vector shard of a filled workspace (`bench recall --speed --workdir DIR` keeps them as DIR/points-N)."""
    shard = workspace / "state" / "vectors"
    if not (shard / "edge_config.json").is_file():
        raise BadInputError(f"--onto: no Qdrant Edge shard in {workspace} (expected {shard}/edge_config.json)")
    return shard


def copy_sparse(source: Path, target: Path, chunk: int = 1 << 20) -> None:
    """Copy a shard's folder with its files' holes kept. Edge sizes its files ahead of their data (at 1M points
    5.3 GB long, 3.1 GB of data), and a plain copy writes the holes as zeros: every open of the copy then read
    them from the disk, 11-16 s at 1M against 1.5-2.5 s for the shard Edge wrote (docs/vector-engine.md)."""
    from memory_pipeline.resources.vectors.edge_recall import data_blocks

    for path in sorted(source.rglob("*")):
        copied = target / path.relative_to(source)
        if path.is_dir():
            copied.mkdir(parents=True, exist_ok=True)
            continue
        copied.parent.mkdir(parents=True, exist_ok=True)
        with path.open("rb", buffering=0) as read, copied.open("wb") as write:
            for offset, block in data_blocks(read, chunk):
                write.seek(offset)
                write.write(block)
            write.truncate(os.fstat(read.fileno()).st_size)
        shutil.copystat(path, copied)


def bench_history(days: int, per_day: int = 1000, seed: int = 28, progress=None, onto: Path | None = None) -> dict:
    """`days` days of heavy history (the days before today) through import and ingest; the figures.
    `onto`: a filled workspace whose shard is copied in first, so the days are indexed into a shard of that
    size (a year's points and more) rather than an empty one."""
    from benchmarks.heavy_history import measure_lengths, write_heavy_history
    from benchmarks.history import default_today

    say = progress or (lambda message: None)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="mp-history-") as tmp:
        root = Path(tmp)
        env = environment(root / "ws", root / "dagster")
        start_points, copied = 0, []
        if onto is not None:
            (root / "ws" / "state").mkdir(parents=True)
            shard = _shard_of(onto)
            copy_sparse(shard, root / "ws" / "state" / "vectors")
            for beside in sorted(shard.parent.glob(f"{shard.name}.*")):  # its keyword statistics (`vectors.bm25.json`:
                # without them the shard is re-keyed, every point written again) and its payload table
                if beside.is_file() and beside.suffix in (".json", ".sqlite"):
                    copied.append(shutil.copy2(beside, root / "ws" / "state" / beside.name))
            start_points = _points(root / "ws" / "state" / "vectors")
            say(f"history: onto a copy of {onto}'s shard ({start_points} points)")
        lengths = measure_lengths()
        written = write_heavy_history(root / "projects", days, default_today(), per_day=per_day, seed=seed,
                                      lengths=lengths)
        say(f"history: {written['sessions']} sessions, {written['indexed_messages']} messages, "
            f"{written['transcript_mb']} MB; importing")
        import_s, _ = _sampled(["import", str(root / "projects")], env, timeout=3600)
        say(f"history: imported in {import_s:.0f} s; ingesting {days} days")
        ingest_s, memory = _sampled(["ingest"], env, timeout=6 * 3600)
        try:
            steps = _message_index_steps(env)
            say(f"history: ingested in {ingest_s:.0f} s; the model alone on the same texts")
            alone = _model_alone(env, steps.pop("days"))
        finally:
            cli(env, "stop")
        table = table_path(root / "ws" / "state" / "vectors")
        disk = folder_bytes(root / "ws" / "state" / "vectors") + sum(  # and its payload table beside it
            f.stat().st_size for f in table.parent.glob(f"{table.name}*"))
        end_points = _points(root / "ws" / "state" / "vectors")
        workspace = folder_bytes(root / "ws")
    index_rate = steps["embedded"] / steps["message_index_s"] if steps["message_index_s"] else 0.0
    model_rate = alone["model_texts"] / alone["model_s"] if alone["model_s"] else 0.0
    return {
        "days": days, "per_day": per_day, "sessions": written["sessions"], "messages": written["indexed_messages"],
        "shard_points_before": start_points, "shard_points_after": end_points,
        "copied_beside_shard": sorted(Path(c).name for c in copied),
        "transcript_mb": written["transcript_mb"], "lengths": lengths.summary(),
        "import_s": round(import_s, 1), "ingest_s": round(ingest_s, 1), **steps,
        "index_msgs_per_s": round(index_rate, 1), **alone, "model_msgs_per_s": round(model_rate, 1),
        "ratio": round(index_rate / model_rate, 2) if model_rate else None,
        # the index's own calls into the model against the model alone (the rest of the step: documents,
        # BM25 vectors, upserts, the HNSW build)
        "ratio_model_calls": round(steps["embedded"] / steps["embedding_s"] / model_rate, 2)
        if steps["embedding_s"] and model_rate else None,
        **memory, "store_mb": round(disk / 1e6, 1), "workspace_mb": round(workspace / 1e6, 1),
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
    }
