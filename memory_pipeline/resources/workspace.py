"""The workspace on disk: its layout, and writes that are atomic and user-only.

Layout (all under MEMORY_WORKSPACE):
  inbox/*.json                 event files written by agents (`memory-pipeline emit`)
  inbox/quarantine/            files that could not be used, each with a `.reason.json`
  events/YYYY-MM-DD/*.json     accepted events, one per dedupe key
  transcripts/                 redacted transcript snapshots taken at emit time
  observations/YYYY-MM-DD/     one JSON per observation (the asset's durable output)
  friction/YYYY-MM-DD.json     friction findings of the 7 days ending that day
  memory/YYYY-MM-DD.md         the daily log (human-readable, append-only)
  memory/ledger.jsonl          the event ledger (append-only), memory/ledger-archive-YYYY.jsonl
  memory/index/, memory/checkpoint.json, memory/integrity-report.json, memory/entity-snapshot.json
  recall/pack.md               the recall pack (recall/projects/<project>/pack.md for other projects)
  knowledge/                   entities/, procedures/, principles/, insights/ derived from the ledger
  MEMORY.md, REVIEW.md         curated memory and the review staging file
  state/                       llm cache, redis data, qdrant store, locks, telemetry
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from filelock import FileLock

from memory_pipeline.faults import check_disk_space
from memory_pipeline.resources.runtime_dir import is_private_dir, private_runtime_dir  # noqa: F401 (re-exported)

FILE_MODE = 0o600
DIR_MODE = 0o700
SOCKET_PATH_MAX = 100  # sun_path is 108 bytes on Linux, 104 on macOS


def unix_socket_path(folder: Path, name: str, runtime_base: Path) -> Path:
    """`folder/name`, or, when that is too long for a unix socket, a short path named by a hash of
    `folder` in a user-only runtime folder under `runtime_base` (the door's XDG_RUNTIME_DIR, the same
    for every process)."""
    inside = folder / name
    if len(os.fsencode(inside)) <= SOCKET_PATH_MAX:
        return inside
    digest = hashlib.sha256(os.fsencode(folder)).hexdigest()[:20]
    return private_runtime_dir(runtime_base, owner=folder) / f"{digest}-{name}"


def ensure_socket_dir(socket: Path) -> None:
    """Create the socket's folder 0700, or accept it only if we own it and nobody else can enter it."""
    folder = socket.parent
    folder.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    info = folder.lstat()
    if info.st_uid != os.getuid() or not folder.is_dir() or folder.is_symlink():
        raise OSError(f"{folder} is not a folder owned by this user; refusing to put a socket there")
    os.chmod(folder, DIR_MODE)
    if len(os.fsencode(socket)) > SOCKET_PATH_MAX:
        raise OSError(f"socket path too long for a unix socket: {socket}; set a shorter TMPDIR")


def ensure_dir(path: Path) -> Path:
    """Create `path` and any missing parents, each user-only (mkdir's mode covers only the leaf)."""
    missing = []
    for candidate in (path, *path.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    for folder in reversed(missing):
        folder.mkdir(mode=DIR_MODE, exist_ok=True)
    return path


@contextlib.contextmanager
def _replacing(path: Path, mode: int) -> Iterator:
    """A handle on a temp file beside `path`; on a clean exit it is flushed, checked for a full disk,
    fsynced and renamed over `path` (with `mode`); on any error it is removed and `path` is untouched."""
    ensure_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            check_disk_space(path)
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def folder_bytes(folder: Path) -> int:
    """The bytes of a folder's files (their lengths, holes counted); 0 where it is no folder."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else 0


def atomic_write_bytes(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Write to a temp file beside `path`, fsync, then rename over it (the file gets `mode`).

    A crash or a full disk leaves the old file intact; readers never see half a file.
    """
    with _replacing(path, mode) as handle:
        handle.write(data)


def atomic_write_chunks(path: Path, chunks: Iterable[str], mode: int = FILE_MODE) -> str:
    """`atomic_write_bytes` for text produced piece by piece (never held whole); returns its sha256."""
    digest = hashlib.sha256()
    with _replacing(path, mode) as handle:
        for chunk in chunks:
            data = chunk.encode("utf-8")
            digest.update(data)
            handle.write(data)
    return digest.hexdigest()


def atomic_write_text(path: Path, text: str, mode: int = FILE_MODE) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def atomic_write_json(path: Path, value: object) -> None:
    atomic_write_text(path, json.dumps(value, ensure_ascii=False, indent=2, default=str) + "\n")


def read_json_dict(path: Path) -> dict:
    """The JSON object a small state file holds; {} when the file is missing, unreadable or not an object."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


DAY_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}$")  # events/<day>/

# The state/ layout: every path the pipeline keeps for itself, by name.
STATE_NAMES = {
    "dagster": "dagster", "llm_cache": "llm-cache", "qdrant": "qdrant", "vectors": "vectors", "redis": "redis", "hooks": "hooks",
    "index": "index", "locks": "locks", "snapshots": "memory_snapshots", "review": "review",
    "maintenance": "maintenance", "feedback": "feedback", "recall_pid": "recall-service.pid",
    "recall_socket": "recall-service.socket",  # where the running service listens (read by a writer asking it to let go)
    "recall_log": "recall-service.log", "intake_settled": "intake-settled.json", "event_failures": "event-failures.json",
    "ui_pid": "ui.pid", "ui_url": "ui-url.txt", "recall_cache": "recall-cache",  # the former recall cache, removed by recall (issue 28)
    "index_generation": "index-generation",
    "partitions_start": "partitions-start.txt", "project_tally": "project-tally.json",
    "folder_projects": "folder-projects.json",
    "llm_budget": "llm-budget.json", "dagster_output": "dagster-output.log",
    "daemon_pid": "daemon.pid", "daemon_log": "daemon.log", "daemon_stopped": "daemon-stopped",
    "daemon_workspace": "daemon-workspace.yaml",  # the daemon's Dagster workspace: its code server's socket
    "daemon_tried": "daemon-start-tried",  # when a hook last started the daemon (hook_entry spells it too)
}


class Workspace:
    """Paths and safe file operations for one workspace folder."""

    def __init__(self, root: Path | str):
        self.root = Path(root).expanduser().resolve()

    # --- layout ----------------------------------------------------------------------
    @property
    def inbox(self) -> Path:
        return self.root / "inbox"

    @property
    def quarantine(self) -> Path:
        return self.inbox / "quarantine"

    @property
    def transcripts(self) -> Path:
        return self.root / "transcripts"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def memory_md(self) -> Path:
        return self.root / "MEMORY.md"

    @property
    def review_md(self) -> Path:
        return self.root / "REVIEW.md"

    @property
    def events_root(self) -> Path:
        return self.root / "events"

    def events_dir(self, day: str) -> Path:
        return self.events_root / day

    def sessions_dir(self, day: str) -> Path:
        return self.root / "sessions" / day

    @property
    def observations_root(self) -> Path:
        return self.root / "observations"

    def observations_dir(self, day: str) -> Path:
        return self.observations_root / day

    def reflection_path(self, day: str) -> Path:
        return self.root / "reflections" / f"{day}.json"

    def friction_path(self, day: str) -> Path:
        """The friction analysis of the 7 days ending at `day` (friction/YYYY-MM-DD.json)."""
        return self.root / "friction" / f"{day}.json"

    @property
    def memory_dir(self) -> Path:
        """The daily logs memory/YYYY-MM-DD.md."""
        return self.root / "memory"

    def daily_log(self, day: str) -> Path:
        return self.memory_dir / f"{day}.md"

    # --- the ledger, the recall pack and the knowledge base (seed 001) -----------------
    @property
    def ledger_path(self) -> Path:
        return self.memory_dir / "ledger.jsonl"

    def ledger_archive_path(self, year: int) -> Path:
        return self.memory_dir / f"ledger-archive-{year}.jsonl"

    def ledger_archives(self) -> list[Path]:
        return sorted(self.memory_dir.glob("ledger-archive-*.jsonl"))

    @property
    def ledger_index_dir(self) -> Path:
        return self.memory_dir / "index"

    def ledger_file(self, name: str) -> Path:
        """memory/<name>: checkpoint.json, integrity-report.json, entity-snapshot.json, index/*.json."""
        if name not in ("checkpoint.json", "integrity-report.json", "entity-snapshot.json",
                        "index/open-loops.json", "index/superseded.json"):
            raise ValueError(f"unknown ledger file {name!r}")
        return self.memory_dir / name

    @property
    def recall_dir(self) -> Path:
        return self.root / "recall"

    def pack_path(self, project: str | None = "default") -> Path:
        """recall/pack.md (the default project), recall/all-projects/pack.md (None: every project),
        recall/user/pack.md ("": the user-level events alone), else recall/projects/<name>/pack.md."""
        if project == "default":
            return self.recall_dir / "pack.md"
        if project is None:
            return self.recall_dir / "all-projects" / "pack.md"
        if project == "":
            return self.recall_dir / "user" / "pack.md"
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in project).strip(".") or "_"
        return self.recall_dir / "projects" / safe / "pack.md"

    @property
    def knowledge_dir(self) -> Path:
        return self.root / "knowledge"

    # --- state/: what the pipeline keeps for itself ------------------------------------
    def state_path(self, name: str) -> Path:
        """state/<name>, one of STATE_NAMES (the only place the state layout is spelled)."""
        if name not in STATE_NAMES:
            raise ValueError(f"unknown state path {name!r}")
        return self.state / STATE_NAMES[name]

    def first_day(self, proposed: str) -> str:
        """The daily partitions' first day of this workspace: the kept one (`proposed` on first use),
        moved back to the oldest day that has events. Written atomically and only ever earlier, so
        a partition key never disappears under what was materialized."""
        return self._keep_first_day(proposed, self.oldest_event_day())

    def reach_back(self, day: str) -> str:
        """Make `day` the partitions' first day when it is earlier than the kept one; the day now kept."""
        return self._keep_first_day(day, day)

    def _keep_first_day(self, proposed: str, earliest: str | None) -> str:
        path = self.state_path("partitions_start")
        with self.locked("partitions-start"):
            kept = path.read_text(encoding="utf-8").strip() if path.is_file() else ""
            first = min(day for day in (kept or proposed, earliest) if day)
            if first != kept:
                atomic_write_text(path, first + "\n")
            return first

    def oldest_event_day(self) -> str | None:
        """The oldest events/<YYYY-MM-DD>/ folder (an accepted event's day), or None."""
        if not self.events_root.is_dir():
            return None
        days = [p.name for p in self.events_root.iterdir() if DAY_NAME.match(p.name) and p.is_dir()]
        return min(days, default=None)

    def lock_path(self, name: str) -> Path:
        return ensure_dir(self.state_path("locks")) / f"{name}.lock"

    def create(self) -> Workspace:
        """Make the layout. Also sets this process's umask to 077, so the files other libraries
        create for it (Qdrant's store, Dagster's SQLite, lock files) are user-only too."""
        os.umask(0o077)
        for path in (self.root, self.inbox, self.quarantine, self.transcripts, self.state, self.memory_dir):
            ensure_dir(path)
        os.chmod(self.root, DIR_MODE)
        return self

    # --- safe writes -----------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self, name: str, timeout: float = 30.0) -> Iterator[None]:
        """An inter-process lock on a named resource of this workspace."""
        with FileLock(str(self.lock_path(name)), timeout=timeout):
            yield

    def resolve_inside(self, relative: str) -> Path:
        """Resolve a workspace-relative path, refusing anything that escapes the workspace."""
        path = (self.root / relative).resolve()
        if path != self.root and self.root not in path.parents:
            raise ValueError(f"path escapes the workspace: {relative!r}")
        return path

    def relative(self, path: Path) -> str:
        return str(path.resolve().relative_to(self.root))

    def write_text(self, path: Path, text: str) -> None:
        atomic_write_text(path, text)

    def write_json(self, path: Path, value: object) -> None:
        atomic_write_json(path, value)

    def update_text(self, path: Path, change, lock_name: str | None = None) -> str:
        """Read-modify-write under a lock, replacing the file atomically. Returns the new text."""
        with self.locked(lock_name or f"file-{path.name}"):
            old = path.read_text(encoding="utf-8") if path.exists() else ""
            new = change(old)
            if new != old:
                atomic_write_text(path, new)
            return new
