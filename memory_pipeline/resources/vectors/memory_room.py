"""How much memory this process may still fill: the system's available memory, or less where the
process's memory cgroup (v2 `memory.max`, v1 `memory.limit_in_bytes`: a container's limit,
`systemd-run -p MemoryMax=…`) leaves less. A cgroup charges the page cache its processes read as well
as their own memory, so this is what a read into the page cache may take without evicting pages
the process already uses."""

from __future__ import annotations

from pathlib import Path

CGROUPS = Path("/sys/fs/cgroup")
NO_LIMIT = 1 << 60  # v1 says "no limit" with a number near 2**63; v2 with "max"
V1_CONTROLLER = "memory"  # cgroup v1's folder of the memory controller


def own_cgroup(root: Path = CGROUPS) -> tuple[Path, str] | None:
    """This process's memory cgroup folder and its version ("v2" or "v1"); None outside one."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        number, controllers, path = fields
        if number == "0" and controllers == "" and (root / "cgroup.controllers").exists():
            return root / path.lstrip("/"), "v2"
        if V1_CONTROLLER in controllers.split(","):
            return root / V1_CONTROLLER / path.lstrip("/"), "v1"
    return None


def _number(path: Path) -> int | None:
    try:
        text = path.read_text().split()[0]
    except (OSError, IndexError):
        return None
    return NO_LIMIT if text == "max" else int(text) if text.isdigit() else None


def _available() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_headroom(root: Path = CGROUPS) -> int | None:
    """Bytes this process may still fill (the least of the system's available memory and its cgroup's
    limit less its charge); None when neither can be read."""
    room = [_available()]
    found = own_cgroup(root)
    if found is not None:
        folder, version = found
        limit = _number(folder / ("memory.max" if version == "v2" else "memory.limit_in_bytes"))
        used = _number(folder / ("memory.current" if version == "v2" else "memory.usage_in_bytes"))
        if limit is not None and used is not None and limit < NO_LIMIT:
            room.append(max(0, limit - used))
    known = [r for r in room if r is not None]
    return min(known) if known else None
