"""`memory-pipeline bench ingest --big-transcript`: one huge session through the default path.

Generates a ~57 MB Claude Code transcript (bench/big_transcript.py) into a temporary folder, then
runs what a user runs: `import FILE` (parse, redacted snapshot, event) and `ingest` for its day
(sessions, message index, Observer with the configured provider, offline by default here,
observation index, daily log). Prints wall time per step and peak RSS: this process's
(ru_maxrss of RUSAGE_SELF: the CLI, the in-process Dagster run and the embedding model) and the
largest waited child's (RUSAGE_CHILDREN; a child forked from this process starts at this
process's size, so it reads at least what this process had at the fork). The Redis server and
the recall service are started detached and are not counted. `baseline_rss_mb` is this process
after loading the model and the Dagster definitions, before the transcript is read: the part
the transcript adds is the peak minus that. ru_maxrss counts memory-mapped file pages too, so
`peak_anon_mb` and `peak_file_mb` split it (sampled from /proc/<pid>/status every 0.2 s): the vector
shard's segments are memory-mapped, and optimizing the shard at the end of the message index reads
them all in.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memory_pipeline.config import Settings, set_process_environment


def _rss_mb(who: int) -> float:
    return round(resource.getrusage(who).ru_maxrss / 1024, 1)  # Linux: kilobytes


_SAMPLER = """
import select, sys
pid, anon, file = sys.argv[1], 0, 0
while True:
    try:
        fields = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status") if l.startswith(("RssAnon", "RssFile")))
        anon = max(anon, int(fields["RssAnon"].split()[0]))
        file = max(file, int(fields["RssFile"].split()[0]))
    except (OSError, KeyError, ValueError):
        pass
    if select.select([sys.stdin], [], [], 0.2)[0]:
        break
print(anon, file)
"""


class PeakSampler:
    """This process's peak anonymous and file-backed resident memory, read from /proc/<pid>/status
    every 0.2 s by a small watcher process (a thread here would not run while native code, such as
    the vector shard's optimize, holds the interpreter). ru_maxrss counts both at once; the
    file-backed part is pages of memory-mapped files (the shard's segments), which the kernel takes
    back under pressure; the anonymous part is what the process holds."""

    def __init__(self) -> None:
        self.anon_kb = self.file_kb = 0
        self._watcher: subprocess.Popen | None = None

    def __enter__(self) -> "PeakSampler":
        self._watcher = subprocess.Popen([sys.executable, "-c", _SAMPLER, str(os.getpid())], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc) -> None:
        out, _ = self._watcher.communicate("stop\n", timeout=30)
        anon, file = (out.split() + ["0", "0"])[:2]
        self.anon_kb, self.file_kb = int(anon), int(file)


def bench_big_transcript(load_definitions, size_mb: float = 57.0, root: Path | None = None,
                         tiny_messages: int = 0) -> dict:
    """With `tiny_messages`, the session is that many few-word messages instead (bench/tiny_transcript.py)."""
    from benchmarks.big_transcript import write_big_transcript
    from benchmarks.tiny_transcript import write_tiny_transcript
    from memory_pipeline.flows.intake.importer import import_transcripts
    from memory_pipeline.flows.intake.ingest import ingest
    from memory_pipeline.resources.redis.embedded_redis import EmbeddedRedis
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
    from memory_pipeline.resources.workspace import Workspace

    with tempfile.TemporaryDirectory(prefix="mp-big-", dir=root) as tmp:
        base = Path(tmp)
        set_process_environment(MEMORY_WORKSPACE=str(base / "ws"), DAGSTER_HOME=str(base / "dagster"),
                                MEMORY_LLM_PROVIDER=Settings.from_env().llm_provider or "offline",
                                MEMORY_PARTITIONS_START="2026-01-01")
        workspace = Workspace(base / "ws").create()
        settings = Settings.from_env()  # once, after the environment names this workspace
        source = base / "source" / "big-session.jsonl"
        generated = (write_tiny_transcript(source, tiny_messages) if tiny_messages
                     else write_big_transcript(source, size_mb=size_mb))
        embedder_for(settings.embedding_model, settings).encode(["warm up"])  # model load is not ingest
        definitions = load_definitions()  # after the environment names this workspace: settings bind at build
        definitions.get_job_def("ingest_job")
        baseline = _rss_mb(resource.RUSAGE_SELF)
        try:
            with PeakSampler() as peaks:
                started = time.perf_counter()
                imported = import_transcripts(workspace, [Path(generated["path"])], settings)
                if imported.counts["imported"] != 1:
                    raise RuntimeError(f"import failed: {[i.reason for i in imported.items]}")
                import_seconds = time.perf_counter() - started
                report = ingest(workspace, definitions, settings)
                total = time.perf_counter() - started
        finally:
            EmbeddedRedis(workspace.state, settings.runtime_dir).stop()
        if not report.success:
            raise RuntimeError(f"ingest failed: {[d.error for d in report.days]}")
        event = next(iter(_events(workspace, imported.days)))
    return {
        "transcript_mb": round(generated["bytes"] / 1e6, 1),
        "transcript_lines": generated["lines"],
        "messages": event.data.message_count,
        "user_messages": event.data.user_message_count,
        "facts": sum(sum(d.facts.values()) for d in report.days),
        "observations": sum(d.observations for d in report.days),
        "import_seconds": round(import_seconds, 1),
        "ingest_seconds": round(total - import_seconds, 1),
        "wall_seconds": round(total, 1),
        "baseline_rss_mb": baseline,
        "peak_rss_mb": _rss_mb(resource.RUSAGE_SELF),
        "peak_child_rss_mb": _rss_mb(resource.RUSAGE_CHILDREN),
        "peak_anon_mb": round(peaks.anon_kb / 1024, 1),  # sampled every 0.2 s: what the process held
        "peak_file_mb": round(peaks.file_kb / 1024, 1),  # mapped file pages (the shard's segments)
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpu_count": os.cpu_count(),
    }


def _events(workspace, days: list[str]):
    from memory_pipeline.resources.files.inbox import Inbox

    for day in days:
        yield from Inbox(workspace).accepted(day)
