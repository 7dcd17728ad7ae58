"""A private runtime folder for unix sockets whose path under the workspace is too long.

Every process of a workspace must agree on one folder. First the predictable names under the
runtime base (`XDG_RUNTIME_DIR`, else the temporary folder): `memory-pipeline-<uid>`, then
`-1` … `-9`, skipping any another user made first or left open to others. When another local user
has taken all ten, a folder with an unguessable name (mkdtemp) is made under the base and recorded
beside the socket's own folder (`<folder>/runtime-dir`, user-only): processes read it back, and a
recorded folder that is gone or no longer private is replaced. When even that cannot be made,
`RuntimeDirError` says so in one line (the CLI prints it; it is also an OSError for old callers).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from filelock import FileLock

from memory_pipeline.errors import ServiceError

DIR_MODE = 0o700
RUNTIME_CANDIDATES = 10
RECORD = "runtime-dir"


class RuntimeDirError(ServiceError, OSError):
    """No private runtime folder could be found or made."""


def is_private_dir(folder: Path) -> bool:
    """A real folder (not a link) owned by this user that nobody else can enter."""
    try:
        info = folder.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and info.st_mode & 0o077 == 0


def predictable_runtime_dir(base: Path) -> Path | None:
    """The first of `base/memory-pipeline-<uid>`, `-1`, … `-9` that is ours (made 0700 if missing)."""
    uid = os.getuid()
    for name in [f"memory-pipeline-{uid}"] + [f"memory-pipeline-{uid}-{n}" for n in range(1, RUNTIME_CANDIDATES)]:
        folder = base / name
        with contextlib.suppress(OSError):
            folder.mkdir(mode=DIR_MODE)
        if is_private_dir(folder):
            return folder
    return None


def recorded_runtime_dir(base: Path, owner: Path) -> Path:
    """The unguessable folder recorded in `owner/runtime-dir`, made (and recorded) if there is none."""
    record = owner / RECORD
    owner.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    with FileLock(str(owner / f"{RECORD}.lock")):
        with contextlib.suppress(OSError, ValueError):
            recorded = Path(record.read_text(encoding="utf-8").strip())
            if recorded.parent == base and is_private_dir(recorded):
                return recorded
        folder = Path(tempfile.mkdtemp(prefix=f"mp-{os.getuid()}-", dir=base))
        temp = record.with_name(f".{RECORD}.tmp")
        temp.write_text(f"{folder}\n", encoding="utf-8")
        temp.chmod(0o600)
        os.replace(temp, record)
        return folder


def private_runtime_dir(base: Path, owner: Path | None = None) -> Path:
    """A folder under `base` only this user can enter, the same for every process of `owner`."""
    if found := predictable_runtime_dir(base):
        return found
    if owner is not None:
        try:
            return recorded_runtime_dir(base, owner)
        except OSError as exc:
            raise RuntimeDirError(f"no private runtime folder under {base} (memory-pipeline-{os.getuid()} and its "
                                  f"alternatives belong to another user, and {exc}); set XDG_RUNTIME_DIR to a "
                                  "folder of your own or use a shorter workspace path") from exc
    raise RuntimeDirError(f"no private runtime folder under {base}: memory-pipeline-{os.getuid()} and its "
                          "alternatives belong to another user; set XDG_RUNTIME_DIR to a folder of your own")
