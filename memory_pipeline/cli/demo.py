"""`memory-pipeline demo`: the main job end to end on the embedded defaults."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from pathlib import Path

from memory_pipeline.cli.common import console, workspace_from_env
from memory_pipeline.pipeline import DEFINITIONS_MODULE

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def register(sub) -> None:
    parser = sub.add_parser("demo", help="emit the sample sessions, run the sensor's runs, show the memory")
    parser.set_defaults(handler=run_demo)


SAMPLES_WRITTEN = date(2026, 11, 1)  # before the earliest sample transcript


def emit_samples(workspace) -> list:
    from memory_pipeline import pipeline
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.emit import emit_session_event

    # The samples are dated by their transcripts: a new workspace's partitions start early enough
    # to hold them, however long after they were written the demo runs.
    settings = Settings.from_env()
    if not settings.partitions_start:
        default = pipeline.local_today(settings) - timedelta(days=90)
        workspace.first_day(min(default, SAMPLES_WRITTEN).isoformat())
    results = []
    for path in sorted(SAMPLES.glob("*.jsonl")):
        results.append(emit_session_event(workspace, path, trigger="shutdown", use_transcript_time=True))
        if path.name.startswith("claude-code"):  # this one also compacted: a second, separate observation
            results.append(emit_session_event(workspace, path, trigger="compaction", use_transcript_time=True))
    return results


def run_sensor_runs(workspace, definitions) -> tuple[list, list]:
    """Evaluate the inbox sensor once and execute its run requests in this process, a run per day."""
    import dagster as dg

    from memory_pipeline.flows.runs import get_instance, run_job_for_days

    instance = get_instance(workspace)
    sensor = definitions.resolve_sensor_def("inbox_sensor")
    context = dg.build_sensor_context(instance=instance, resources={"workspace": definitions.resources["workspace"]})
    result = sensor(context)  # a SensorResult (run requests and the `transcripts` events) or a SkipReason
    requests = list(result.run_requests or []) if isinstance(result, dg.SensorResult) else []
    for event in result.asset_events if isinstance(result, dg.SensorResult) else []:
        instance.report_runless_asset_event(event)
    days = sorted({r.partition_key for r in requests})
    return requests, run_job_for_days(definitions, "ingest_job", days, instance, tags={"memory/source": "demo"})


def print_memory(out, workspace, days: list[str]) -> None:
    from rich.text import Text

    from memory_pipeline.resources.observation_files import load_observations

    for day in days:
        for observation in load_observations(workspace, day):
            out.rule(f"{day} · {observation.session_id} · {observation.trigger}")
            for segment in observation.segments:
                if segment.title:
                    out.print(f"[bold]{segment.title}[/]")
                for fact in segment.facts[:6]:
                    out.print(f"  {fact.emoji} ({fact.time or '--:--'}) {fact.text}", markup=False)
            if observation.current_task:
                out.print(Text.assemble(("current task: ", "dim"), observation.current_task))


def run_demo(args) -> int:
    from memory_pipeline.flows.runs import dagster_home
    from memory_pipeline.resources.inbox import Inbox

    out = console()
    workspace = workspace_from_env()
    out.print(f"workspace: {workspace.root}")
    emitted = emit_samples(workspace)
    out.print(f"emitted {sum(1 for r in emitted if r.path)} events from {len(list(SAMPLES.glob('*.jsonl')))} sample sessions")
    with out.status("running the inbox sensor's runs (loads the embedding model once)…"):
        requests, runs = run_sensor_runs(workspace, args.definitions())
    by_day = defaultdict(int)
    for request in requests:
        by_day[request.partition_key] += 1
    for run in runs:
        state = "[green]succeeded[/]" if run.success else f"[red]failed[/]: {run.error}"
        out.print(f"run {run.run_id[:8]} for {run.day} ({by_day[run.day]} events) {state}")
    days = Inbox(workspace).accepted_days()
    print_memory(out, workspace, days)
    home = dagster_home(workspace)
    out.rule("where things are")
    out.print(f"daily logs   {workspace.memory_dir}")
    out.print(f"observations {workspace.observations_root}")
    out.print(f"Qdrant store {workspace.state_path('qdrant')}   Redis socket {workspace.state_path('redis') / 'redis.sock'}")
    out.print("open the UI:  "
              f"DAGSTER_HOME={home} MEMORY_WORKSPACE={workspace.root} dagster dev -m {DEFINITIONS_MODULE}")
    return 0 if all(r.success for r in runs) else 1
