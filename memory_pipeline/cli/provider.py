"""`memory-pipeline provider show|set NAME`: the model provider is chosen, never inferred. The choice
is kept in the workspace (`settings.json`); MEMORY_LLM_PROVIDER overrides it for one process; with
neither, the offline provider runs, even with ANTHROPIC_API_KEY in the environment."""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, open_workspace, print_json

CHOICES = ("offline", "anthropic", "claude-code", "codex", "openai-compatible", "openai")
HELP = "show or choose the model provider (offline unless you choose another)"


def register(sub) -> None:
    parser = sub.add_parser("provider", help=HELP)
    group = parser.add_subparsers(dest="provider_action", required=True, metavar="ACTION")
    show = group.add_parser("show", help="the provider that observes, its model and today's token spend")
    add_json_flag(show)
    show.set_defaults(handler=run_show)
    choose = group.add_parser("set", help="keep a provider for this workspace (`offline` spends nothing)")
    choose.add_argument("name", choices=CHOICES, help="`openai` is short for openai-compatible")
    add_json_flag(choose)
    choose.set_defaults(handler=run_set)


def run_show(args) -> int:
    from memory_pipeline.flows.status import llm_status

    found = llm_status(open_workspace(args.settings), args.settings)
    if args.json:
        print_json(found)
    else:
        console().print(describe_llm(found), highlight=False)
    return 0


def describe_llm(found: dict) -> str:
    """One line: the provider, the model that observes, where the choice came from, today's spend."""
    spend = f"{found['spent_tokens']} tokens today" if "spent_tokens" in found else "no tokens (nothing is sent)"
    limit = f" of {found['daily_tokens']}" if "spent_tokens" in found and found.get("daily_tokens") else ""
    return f"{found['provider']} (observer model {found['observer_model']}; {found['chosen_by']}), {spend}{limit}"


def run_set(args) -> int:
    from memory_pipeline.config import PROVIDER_ALIASES, provider_chosen_by, workspace_settings_path
    from memory_pipeline.resources.workspace import atomic_write_json

    workspace = open_workspace(args.settings)
    name = PROVIDER_ALIASES.get(args.name, args.name)
    path = workspace_settings_path(workspace.root)
    kept = _kept(path)
    kept["MEMORY_LLM_PROVIDER"] = name
    atomic_write_json(path, kept)
    notes = []
    if name == "anthropic" and not args.settings.anthropic_api_key:
        notes.append("ANTHROPIC_API_KEY is not set here: the Observer will fail until it is")
    if name != "offline":
        notes.append(f"spends model tokens, at most MEMORY_LLM_DAILY_TOKENS={args.settings.llm_daily_tokens} a day")
    if provider_chosen_by(workspace.root) == "MEMORY_LLM_PROVIDER" and args.settings.llm_provider != name:
        notes.append(f"MEMORY_LLM_PROVIDER={args.settings.llm_provider} in this environment overrides it")
    if restart_daemon(workspace, args.settings):
        notes.append("the workspace's daemon was restarted to use it")
    if args.json:
        print_json({"provider": name, "kept_in": str(path), "notes": notes})
        return 0
    out = console()
    out.print(f"provider {name}, kept in {path}", highlight=False)
    for note in notes:
        out.print(f"  {note}", highlight=False)
    return 0


def _kept(path) -> dict:
    import json

    from memory_pipeline.errors import BadInputError

    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise BadInputError(f"{path} is not readable JSON ({exc}); fix it or remove it") from exc
    return kept if isinstance(kept, dict) else {}


def restart_daemon(workspace, settings) -> bool:
    """A running daemon built its definitions with the old provider: start it again. True if it ran."""
    from memory_pipeline.cli.service.daemon import prepared_home
    from memory_pipeline.resources.daemons.dagster_daemon import daemon_pid, start_daemon, stop_daemon

    if daemon_pid(workspace) is None:
        return False
    stop_daemon(workspace, remember=False)
    start_daemon(workspace, prepared_home(workspace, settings), settings.runtime_dir)
    return True
