"""A memory cap for the recall service in `bench recall --speed --memory-cap MB`: a memory cgroup (v2 or
v1) of its own that the service is started in, as `systemd-run -p MemoryMax=…` or a container's limit
would hold it. The cgroup counts the page cache the service reads and maps as well as its own memory,
so the cap is a stricter measure than RSS: over it the kernel evicts the shard's pages and queries wait
on the disk. The page cache is dropped first (root), so that pages cached by an earlier run are not
charged elsewhere."""

from __future__ import annotations

import os
import time
from pathlib import Path

from memory_pipeline.errors import BadInputError
from memory_pipeline.resources.vectors.memory_room import CGROUPS as ROOT
from memory_pipeline.resources.vectors.memory_room import own_cgroup


def _own_cgroup() -> tuple[Path, str]:
    """This process's memory cgroup folder and its version ("v2" or "v1")."""
    found = own_cgroup(ROOT)
    if found is None:
        raise BadInputError("--memory-cap: this process is in no memory cgroup")
    return found


class MemoryCap:
    """A cgroup of `limit_mb` MiB, made on entering and removed on leaving; `command(argv)` starts a
    command inside it."""

    def __init__(self, limit_mb: int) -> None:
        self.limit = limit_mb * 1024 * 1024
        parent, self.version = _own_cgroup()
        self.folder = parent / f"memory-pipeline-bench-{os.getpid()}"

    def _file(self, v2: str, v1: str) -> Path:
        return self.folder / (v2 if self.version == "v2" else v1)

    def __enter__(self) -> MemoryCap:
        try:
            self.folder.mkdir()
            self._file("memory.max", "memory.limit_in_bytes").write_text(str(self.limit))
        except OSError as exc:
            if self.folder.is_dir():
                self.folder.rmdir()
            raise BadInputError(f"--memory-cap needs a writable memory cgroup (root; {self.folder.parent}): "
                                f"{exc.strerror or exc}") from exc
        return self

    def command(self, argv: list[str]) -> list[str]:
        return ["sh", "-c", f'echo $$ > {self.folder / "cgroup.procs"} && exec "$@"', "sh", *argv]

    def peak_mb(self) -> float | None:
        """The cgroup's peak charge (its memory and its page cache) in MiB."""
        try:
            peak = self._file("memory.peak", "memory.max_usage_in_bytes").read_text().split()[0]
        except (OSError, IndexError):
            return None
        return round(int(peak) / 1024 / 1024, 1)

    def __exit__(self, *exc) -> None:
        for _ in range(50):  # the service's exit is seen by the cgroup a moment after its socket closes
            try:
                self.folder.rmdir()
                return
            except OSError:
                time.sleep(0.1)


def drop_page_cache() -> bool:
    """Write the dirty pages, then drop the clean ones from the page cache (root); whether it was done."""
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("1\n")
    except OSError:
        return False
    return True


def major_faults(pid: int | None) -> int | None:
    """The pages a process has read from the disk on a fault (`majflt` of /proc/PID/stat)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError, TypeError):
        return None
    return int(fields[9])
