"""`hooks install` and `--uninstall`: the memory hooks and MCP server where each client expects a
user's own settings, never in a file the team shares.

Claude Code:
- user (the default): the hooks in `~/.claude/settings.json`, the server at user scope in
  `~/.claude.json` (`mcpServers`, as `claude mcp add --scope user` writes it);
- project (`--project DIR`): the hooks in `DIR/.claude/settings.local.json` (personal, not
  committed), the server at local scope in `~/.claude.json` (`projects[<main folder of DIR's
  repository>]`, a worktree's too, as `claude mcp add --scope local` keys it). What earlier versions put in the
  shared `DIR/.claude/settings.json` and `DIR/.mcp.json` (the server pre-approved in
  `enabledMcpjsonServers`) is removed, by install and uninstall alike. In a git repository the
  settings.local.json is kept out of commits by a rule in the repository's own `.git/info/exclude`
  (unless git already ignores it), removed again by uninstall.
pi: its extension (stages/hooks/pi_extension.py) in `~/.pi/agent/extensions/memory-pipeline.ts`:
the briefing at session start, the compaction and shutdown events.
Codex: the server in `~/.codex/config.toml`, marked `required` so Codex waits for it and its tools
are there from the first step (`stages/hooks/mcp_config.CODEX_STARTUP`).

Every file is read (links and FIFOs refused: resources/files/agent_config.py) and its new content worked
out before any is written, so a refused file leaves all of them as they were. Uninstall removes
only our entries; a file left holding nothing is removed, with a `.claude` folder left empty, so
no `{}` stays behind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memory_pipeline.errors import BadInputError
from memory_pipeline.resources.files.agent_config import (
    git_exclude_file,
    is_git_ignored,
    pi_extension_template,
    read_config_json,
    read_config_text,
    remove_config,
    write_config_json,
    write_config_text,
)
from memory_pipeline.resources.projects import repository_root
from memory_pipeline.stages.hooks.mcp_config import (
    add_json_server,
    add_local_server,
    add_toml_server,
    codex_entry,
    enable_project_server,
    remove_json_server,
    remove_local_server,
    remove_toml_server,
)
from memory_pipeline.stages.hooks.pi_extension import FILE_NAME, is_our_pi_extension, render_pi_extension
from memory_pipeline.stages.hooks.settings import (
    add_exclude_rule,
    add_our_hooks,
    exclude_rule,
    remove_exclude_rule,
    remove_our_hooks,
)

PRIVATE = 0o600  # ~/.claude.json holds the account and its tokens; config.toml may hold tokens
TEAM_READABLE = 0o644

HOOKS, SERVER, EARLIER, EXTENSION, IGNORED = "hooks", "MCP server", "earlier install", "extension", "git ignore rule"
LOCAL_SETTINGS = ".claude/settings.local.json"


@dataclass
class FilePlan:
    what: str  # HOOKS, SERVER or EARLIER
    path: Path
    root: Path  # the folder the user named: nothing below it is followed
    before: dict | str
    after: dict | str
    existed: bool
    new_mode: int = TEAM_READABLE

    @property
    def action(self) -> str:
        if self.after == self.before:
            return "unchanged"
        if not self.after:
            return "removed" if self.existed else "unchanged"
        return "updated" if self.existed else "created"


@dataclass
class InstallPlan:
    agent: str
    scope: str  # user | project
    files: list[FilePlan]

    def first(self, what: str) -> FilePlan | None:
        return next((f for f in self.files if f.what == what), None)


def _json_plan(what: str, path: Path, root: Path, change: Callable[[dict], dict], new_mode: int = TEAM_READABLE) -> FilePlan:
    before, existed = read_config_json(path, root)
    return FilePlan(what, path, root, before, change(before), existed, new_mode)


def project_key(project: Path) -> str:
    """The folder Claude Code keys a project's local settings by in ~/.claude.json (as `claude mcp add
    --scope local` does): the repository's main folder, a worktree's too, else `project` itself."""
    return str(repository_root(project) or project)


def worktree_top(project: Path) -> Path:
    """The top folder of the working tree `project` is in (its nearest `.git`), else `project`."""
    return next((c for c in [project, *project.parents] if (c / ".git").exists()), project)


def plan_claude_code(*, home: Path, project: Path | None, hook_command: str, server: dict | None,
                     uninstall: bool) -> InstallPlan:
    """What install (or uninstall) changes in each file; nothing is written yet. `project` None is the
    user install; `server` None leaves the MCP server out (`--no-mcp`)."""
    def hooks(document: dict) -> dict:
        return remove_our_hooks(document) if uninstall else add_our_hooks(document, hook_command)

    if project is None:
        files = [_json_plan(HOOKS, home / ".claude" / "settings.json", home, hooks)]
        if server is not None:
            files.append(_json_plan(SERVER, home / ".claude.json", home, remove_json_server if uninstall else
                                    lambda d: add_json_server(d, server, {"type": "stdio"}), PRIVATE))
        return InstallPlan("claude-code", "user", files)
    key = project_key(project)
    files = [_json_plan(HOOKS, project / LOCAL_SETTINGS, project, hooks)]
    if server is not None:
        files.append(_json_plan(SERVER, home / ".claude.json", home, (lambda d: remove_local_server(d, key))
                                if uninstall else lambda d: add_local_server(d, key, server), PRIVATE))
    files.append(_json_plan(EARLIER, project / ".claude" / "settings.json", project,
                            lambda d: enable_project_server(remove_our_hooks(d), False)))
    files.append(_json_plan(EARLIER, project / ".mcp.json", project, remove_json_server))
    if (ignore := _ignore_plan(project, worktree_top(project), uninstall)) is not None:
        files.append(ignore)
    return InstallPlan("claude-code", "project", files)


def _ignore_plan(project: Path, top: Path, uninstall: bool) -> FilePlan | None:
    """Our rule in the repository's `.git/info/exclude` for the project's settings.local.json: added
    unless git already ignores the file, removed by uninstall; None outside a git repository."""
    exclude = git_exclude_file(project)
    if exclude is None:
        return None
    rule = exclude_rule(project.relative_to(top).as_posix() if project != top else "")
    root = exclude.parent.parent  # the git folder: taken as it is, nothing below it followed
    before = read_config_text(exclude, root)
    text = before or ""
    if uninstall:
        after = remove_exclude_rule(text, rule)
    else:
        after = text if is_git_ignored(project, LOCAL_SETTINGS) else add_exclude_rule(text, rule)
    return FilePlan(IGNORED, exclude, root, text, after, before is not None)


def plan_codex(*, home: Path, server: dict, uninstall: bool) -> InstallPlan:
    path = home / ".codex" / "config.toml"
    before = read_config_text(path, home)
    text = before or ""
    after = remove_toml_server(text, str(path)) if uninstall else add_toml_server(text, codex_entry(server), str(path))
    return InstallPlan("codex", "user", [FilePlan(SERVER, path, home, text, after, before is not None, PRIVATE)])


def plan_pi(*, home: Path, argv: list[str], workspace: str | None, uninstall: bool) -> InstallPlan:
    """pi's extension file, ours recognised by its first line; another file of that name is refused."""
    path = home / ".pi" / "agent" / "extensions" / FILE_NAME
    before = read_config_text(path, home)
    if before is not None and not is_our_pi_extension(before):
        raise BadInputError(f"{path} exists and is not memory-pipeline's extension; left unchanged (rename or remove it)")
    after = "" if uninstall else render_pi_extension(pi_extension_template(), argv, workspace)
    return InstallPlan("pi", "user", [FilePlan(EXTENSION, path, home, before or "", after, before is not None)])


def apply_plan(plan: InstallPlan) -> InstallPlan:
    """Write what changed: a file left empty by an uninstall is removed (and a `.claude` folder left
    empty with it), every other one replaced atomically."""
    for file in plan.files:
        action = file.action
        if action == "unchanged":
            continue
        if action == "removed":
            remove_config(file.path, file.root, folders_up_to=file.root)
        elif isinstance(file.after, dict):
            write_config_json(file.path, file.root, file.after, file.new_mode)
        else:
            write_config_text(file.path, file.root, file.after, file.new_mode)
    return plan
