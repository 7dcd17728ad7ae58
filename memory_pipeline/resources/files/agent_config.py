"""An agent client's config file (Claude Code's settings files and `~/.claude.json`, Codex's
`config.toml`), read and written for `hooks install` and `--uninstall`: file I/O only.

Each file sits under a folder the user named (the project, or the home folder): that folder is
taken as it is, but nothing below it is followed. A symbolic link on the way (the `.claude` folder,
`.mcp.json` pointing at `~/.claude.json`, a settings file linked elsewhere) or anything that is not
a regular file (a FIFO would block the read for ever) is refused with the reason, before anything
is read or written: a link's target is never read, and never replaced by a copy of itself.
Writes are atomic (temp file beside it, fsync, rename) and keep the file's permissions.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import subprocess
from pathlib import Path

import memory_pipeline
from memory_pipeline.errors import BadInputError
from memory_pipeline.resources.workspace import atomic_write_text

MAX_CONFIG_BYTES = 64 * 1024 * 1024  # ~/.claude.json grows with every project; far above any real one


def _refuse_link(step: Path) -> BadInputError:
    try:
        target = f" (to {os.readlink(step)})"
    except OSError:
        target = ""
    return BadInputError(f"{step} is a symbolic link{target}: hooks install never reads or writes through a link, "
                         "so nothing was changed. Replace it with the file or folder itself, or install elsewhere")


def _refuse_kind(path: Path, mode: int) -> BadInputError:
    kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a folder" if stat.S_ISDIR(mode) else "not a regular file"
    return BadInputError(f"{path} is {kind}: hooks install reads and writes only regular files; nothing was changed")


def check_plain_path(path: Path, root: Path) -> None:
    """Refuse `path` unless every step below `root` down to it is a real folder (or absent) and the
    file itself is a regular file or absent."""
    relative = path.relative_to(root)
    step = root
    for part in relative.parts:
        step = step / part
        try:
            mode = step.lstat().st_mode
        except FileNotFoundError:
            return  # nothing below a missing step exists either
        if stat.S_ISLNK(mode):
            raise _refuse_link(step)
        if step != path and not stat.S_ISDIR(mode):
            raise BadInputError(f"{step} is not a folder; nothing was changed")
        if step == path and not stat.S_ISREG(mode):
            raise _refuse_kind(path, mode)


def read_config_text(path: Path, root: Path) -> str | None:
    """The file's text, or None when it does not exist (refused as check_plain_path says)."""
    check_plain_path(path, root)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # became a link since the check
            raise _refuse_link(path) from None
        raise BadInputError(f"{path} cannot be read ({exc.strerror}); nothing was changed") from None
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise _refuse_kind(path, mode)
        data = handle.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise BadInputError(f"{path} is over {MAX_CONFIG_BYTES // 2**20} MB; left unchanged")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInputError(f"{path} is not UTF-8 text; left unchanged") from None


def write_config_text(path: Path, root: Path, text: str, new_mode: int = 0o644) -> None:
    """Replace (or create) the file atomically: an existing file keeps its permissions, a new one gets
    `new_mode`; folders that are missing are made (each step checked again right before)."""
    check_plain_path(path, root)
    mode = stat.S_IMODE(path.lstat().st_mode) if path.exists() else new_mode
    path.parent.mkdir(parents=True, exist_ok=True)
    check_plain_path(path, root)
    atomic_write_text(path, text, mode)


def remove_config(path: Path, root: Path, folders_up_to: Path | None = None) -> None:
    """Remove the file, then each folder above it that is left empty, up to (not including)
    `folders_up_to` (so a `.claude` folder install made goes too)."""
    check_plain_path(path, root)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    if folders_up_to is None:
        return
    folder = path.parent
    while folder != folders_up_to and folders_up_to in folder.parents:
        try:
            folder.rmdir()
        except OSError:  # not empty, or gone
            return
        folder = folder.parent


def read_config_json(path: Path, root: Path) -> tuple[dict, bool]:
    """(the JSON object in the file, whether the file exists); an empty file is `{}`."""
    text = read_config_text(path, root)
    if text is None or not text.strip():
        return {}, text is not None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); left unchanged") from None
    if not isinstance(document, dict):
        raise BadInputError(f"{path} must hold a JSON object; left unchanged")
    return document, True


def write_config_json(path: Path, root: Path, document: dict, new_mode: int = 0o644) -> None:
    write_config_text(path, root, json.dumps(document, indent=2, ensure_ascii=False) + "\n", new_mode)


def pi_extension_template() -> str:
    """The pi extension shipped with the package (memory_pipeline/integrations/pi_extension.ts)."""
    return (Path(memory_pipeline.__file__).resolve().parent / "integrations" / "pi_extension.ts").read_text(encoding="utf-8")


def git_exclude_file(folder: Path) -> Path | None:
    """The repository's own ignore list (`.git/info/exclude`, shared by its worktrees, never
    committed) for a folder inside a git repository, else None (also where git is missing)."""
    found = _git(folder, "rev-parse", "--git-path", "info/exclude")
    return Path(os.path.normpath(folder / found)) if found else None  # not resolved: a link stays visible


def is_git_ignored(folder: Path, relative: str) -> bool:
    """Whether git ignores folder/relative, which need not exist (any rule: .gitignore, info/exclude,
    the user's global list)."""
    return _git(folder, "check-ignore", "-q", "--no-index", relative) == ""


def _git(folder: Path, *args: str) -> str | None:
    """git's stdout (stripped) in `folder`, or None when it fails or is not installed."""
    try:
        done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
