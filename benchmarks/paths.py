"""Where the benchmarks find the project and the shared data beside it."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the checkout: benchmarks/ sits at its top
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()),
              ROOT.parent / "shared")  # beside the checkout (/work/main) or beside its worktrees folder


def folder_bytes(path: Path) -> int:
    """The bytes of a folder's files (their lengths, holes counted); 0 where it does not exist."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else 0
