"""Where the benchmarks find the project and the shared data beside it."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the checkout: benchmarks/ sits at its top
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()),
              ROOT.parent / "shared")  # beside the checkout (/work/main) or beside its worktrees folder

