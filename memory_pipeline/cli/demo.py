"""`memory-pipeline demo`: the main job end to end on the embedded defaults, in a workspace of its
own (`~/.memory-pipeline/demo` unless `--workspace` names another), never the user's: its sample
rules must not reach the user's briefings. It runs offline whatever provider the user chose."""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path

from memory_pipeline.cli.common import console, failure_text, open_workspace

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


DEMO_WORKSPACE = "~/.memory-pipeline/demo"


def register(sub) -> None:
    parser = sub.add_parser("demo", help="emit the sample sessions into a demo workspace, run the sensor's runs, "
                            "show the memory (never touches your own workspace)")
    parser.add_argument("--workspace", default=DEMO_WORKSPACE,
                        help=f"the demo's own workspace (default {DEMO_WORKSPACE}); never your workspace")
    parser.set_defaults(handler=run_demo)


def demo_settings(args):
    """The demo's settings: its own workspace, Dagster home, embedded Redis and vector store, and the
    offline provider, set for this process and its children (the definitions are built from them)."""
    from memory_pipeline.config import set_process_environment
    from memory_pipeline.errors import BadInputError

    target = Path(args.workspace).expanduser().resolve()
    if target == Path(args.settings.workspace).expanduser().resolve():
        raise BadInputError(f"{target} is your workspace (MEMORY_WORKSPACE): the demo's sample sessions would "
                            "become your memory; give the demo another folder with --workspace")
    # the definitions (built from the environment, as Dagster builds them) and the services see the same
    set_process_environment(MEMORY_WORKSPACE=str(target), MEMORY_LLM_PROVIDER="offline", DAGSTER_HOME="",
                            REDIS_URL="", QDRANT_URL="")
    return args.settings.replace(workspace=target, llm_provider="offline", dagster_home=None, redis_url=None,
                                 qdrant_url=None)


SAMPLES_WRITTEN = date(2026, 11, 1)  # before the earliest sample transcript


def emit_samples(workspace, settings) -> list:
    from memory_pipeline.flows.intake.emit import emit_session_event

    # The samples are dated by their transcripts: the partitions reach back to them, however long
    # after they were written the demo runs (as an import of old history does).
    if not settings.partitions_start:
        workspace.reach_back(SAMPLES_WRITTEN.isoformat())
    results = []
    for path in sorted(SAMPLES.glob("*.jsonl")):
        if path.name.startswith("claude-code"):  # this one also compacted: two windows, as the hooks send them
            results += emit_compacted(workspace, path, settings)
        else:
            results.append(emit_session_event(workspace, path, trigger="shutdown", use_transcript_time=True,
                                              settings=settings))
    return results


def emit_compacted(workspace, path: Path, settings) -> list:
    """What the hooks send for a session that compacted once: PreCompact with the messages before the
    compaction (the file as it was then), SessionEnd with the ones after it."""
    import tempfile

    from memory_pipeline.flows.intake.emit import emit_session_event

    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    boundary = next(n for n, line in enumerate(lines) if '"compact_boundary"' in line)
    with tempfile.TemporaryDirectory() as folder:
        before = Path(folder) / path.name
        before.write_text("".join(lines[:boundary]), encoding="utf-8")
        compaction = emit_session_event(workspace, before, trigger="compaction", use_transcript_time=True,
                                        settings=settings)
    shutdown = emit_session_event(workspace, path, trigger="shutdown", use_transcript_time=True,
                                  window=f"after:{compaction.last_message_id}", settings=settings)
    return [compaction, shutdown]


def run_sensor_runs(workspace, definitions, settings) -> tuple[list, list]:
    """Evaluate the inbox sensor once and execute its run requests in this process, a run per day."""
    import dagster as dg

    from memory_pipeline.flows.runs import get_instance, run_job_for_days

    instance = get_instance(workspace, settings)
    sensor = definitions.resolve_sensor_def("inbox_sensor")
    with dg.build_sensor_context(instance=instance, resources={"workspace": definitions.resources["workspace"]}) as context:
        result = sensor(context)  # a SensorResult (run requests and the `transcripts` events) or a SkipReason
    requests = list(result.run_requests or []) if isinstance(result, dg.SensorResult) else []
    for event in result.asset_events if isinstance(result, dg.SensorResult) else []:
        instance.report_runless_asset_event(event)
    days = sorted({r.partition_key for r in requests if r.partition_key is not None})  # each names its day
    return requests, run_job_for_days(definitions, "ingest_job", days, instance, tags={"memory/source": "demo"},
                                      output_log=workspace.state_path("dagster_output"))


def print_memory(out, workspace, days: list[str]) -> None:
    from rich.text import Text

    from memory_pipeline.resources.files.observation_files import load_observations

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
    from memory_pipeline.resources.daemons.services import stop_workspace_services
    from memory_pipeline.resources.files.inbox import Inbox

    out = console()
    args.settings = demo_settings(args)
    workspace = open_workspace(args.settings)
    out.print(f"demo workspace: {workspace.root} (your own workspace is not touched; remove this folder when done)",
              highlight=False)
    emitted = emit_samples(workspace, args.settings)
    out.print(f"emitted {sum(1 for r in emitted if r.path)} events from {len(list(SAMPLES.glob('*.jsonl')))} sample sessions")
    try:
        with out.status("running the inbox sensor's runs (loads the embedding model once)…"):
            requests, runs = run_sensor_runs(workspace, args.definitions(), args.settings)
    finally:  # the runs started the demo workspace's redis-server (it would wait 30 min idle before stopping)
        stop_workspace_services(workspace, args.settings.runtime_dir)
    by_day = Counter(result.event.day for result in emitted if result.path)
    for run in runs:
        state = "[green]succeeded[/]" if run.success else f"[red]failed[/]: {failure_text(run.error, run.output)}"
        out.print(f"run {run.run_id[:8]} for {run.day} ({by_day[run.day]} events) {state}")
    days = Inbox(workspace).accepted_days()
    print_memory(out, workspace, days)
    home = dagster_home(workspace, args.settings)
    out.rule("where things are")
    out.print(f"daily logs   {workspace.memory_dir}")
    out.print(f"observations {workspace.observations_root}")
    out.print(f"Vector shard {workspace.state_path('vectors')}   Redis socket {workspace.state_path('redis') / 'redis.sock'}")
    out.print(f"open the UI:  MEMORY_WORKSPACE={workspace.root} memory-pipeline service ui   (Dagster home {home})")
    return 0 if all(r.success for r in runs) else 1
