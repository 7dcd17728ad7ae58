"""`memory-pipeline bench worth`: is what the product keeps worth reading? (issue 52)

The default path a new user runs, on a fresh workspace in a temporary folder: `import` of the
labelled shared transcripts, `ingest`, `reflect --backfill` (no flags; the environment stripped of
every MEMORY_* setting and model key, so the provider is the offline default), then the
SessionStart briefing of each labelled project as `brief` gives it standing in a git folder of that
project on the day after the project's last session. The durable-dev scorer
(`shared/bench/durable-dev/score.py`, hand labels written before looking at any output) judges the
pending proposals of REVIEW.md, the 🔴 facts of the daily logs and each briefing's bullet lines.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import date, timedelta
from pathlib import Path

from benchmarks.paths import ROOT, SHARED

DURABLE_DEV = SHARED / "bench" / "durable-dev"
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"
_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "DAGSTER_HOME")
_ROW = re.compile(r"^(?P<kind>proposals|red facts|brief \S+)\s+n=(?P<n>\d+)\s+useful=(?P<useful>[\d.]+)\s+"
                  r"noise=(?P<noise>[\d.]+)\s+high-recall=(?P<high>[\d.]+) \((?P<got>\d+)/(?P<of>\d+)\)"
                  r"(?:\s+words=(?P<words>\d+))?")


def user_env(workspace: Path) -> dict[str, str]:
    """The environment of a user who set only where their workspace is."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_") and k not in _KEYS}
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)  # this checkout's code
    return env | {"MEMORY_WORKSPACE": str(workspace), "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": path}


def cli_output(args: list[str], env: dict[str, str], cwd: Path) -> str:
    command = [sys.executable, "-m", "memory_pipeline.cli", *args]
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"memory-pipeline {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def labelled_transcripts(labels: dict, transcripts_dir: Path) -> list[tuple[Path, str]]:
    """(file, project) of each labelled transcript found under `transcripts_dir`."""
    found = []
    for name, entry in labels.items():
        hits = sorted(p for p in transcripts_dir.rglob(name) if "subagents" not in p.parts)
        if hits:
            found.append((hits[0], entry["project"]))
    return found


def last_days(workspace: Path) -> dict[str, str]:
    """The last day each project has an observation on."""
    days: dict[str, str] = {}
    for path in (workspace / "observations").glob("*/*.json"):
        try:
            project = json.loads(path.read_text(encoding="utf-8")).get("project") or ""
        except (OSError, ValueError):
            continue
        days[project] = max(days.get(project, ""), path.parent.name)
    return days


def parse_rows(printed: str) -> dict[str, dict]:
    rows = {}
    for line in printed.splitlines():
        if m := _ROW.match(line.strip()):
            rows[m["kind"]] = {"n": int(m["n"]), "useful": float(m["useful"]), "noise": float(m["noise"]),
                               "high_recall": float(m["high"]), "high": f"{m['got']} of {m['of']}",
                               "words": int(m["words"]) if m["words"] else None}
    return rows


def scorer(labels_dir: Path, root: Path) -> Path:
    """The folder whose score.py reads `labels_dir`'s labels.json (it reads the labels beside it): the labels'
    own, or a copy of the shared scorer beside a copy of them (labels of another transcript, such as
    benchmarks/labels/second_pi_session)."""
    if (labels_dir / "score.py").is_file():
        return labels_dir
    folder = root / "scorer"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(DURABLE_DEV / "score.py", folder / "score.py")
    shutil.copy(labels_dir / "labels.json", folder / "labels.json")
    return folder


def bench_worth(transcripts_dir: Path = TRANSCRIPTS, labels_dir: Path = DURABLE_DEV, keep: Path | None = None,
                verbose: bool = False) -> dict:
    labels = json.loads((labels_dir / "labels.json").read_text(encoding="utf-8"))
    files = labelled_transcripts(labels, transcripts_dir)
    if not files:
        raise FileNotFoundError(f"no labelled transcript under {transcripts_dir}")
    holder = None if keep else tempfile.TemporaryDirectory(prefix="bench-worth-")
    root = Path(keep) if keep else Path(holder.name)
    try:
        root.mkdir(parents=True, exist_ok=True)
        workspace = root / "workspace"
        env = user_env(workspace)
        cli_output(["import", *[str(f) for f, _ in files]], env, root)
        cli_output(["ingest"], env, root)
        cli_output(["reflect", "--backfill"], env, root)
        days = last_days(workspace)
        briefs = {}
        for project in sorted({p for _, p in files}):
            folder = root / "projects" / project
            folder.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "init", "-q", str(folder)], check=True, capture_output=True)
            day = days.get(project)
            when = (date.fromisoformat(day) + timedelta(days=1)).isoformat() if day else date.today().isoformat()
            text = cli_output(["brief", "--date", when], env, folder)
            path = root / f"brief-{project}.md"
            path.write_text(text, encoding="utf-8")
            briefs[project] = {"day": when, "path": path, "text": text, "lines": _bullets(text)}
        score = [sys.executable, str(scorer(labels_dir, root) / "score.py"), str(workspace),
                 *[f"{b['path']}:{p}" for p, b in briefs.items()], *(["-v"] if verbose else [])]
        printed = subprocess.run(score, capture_output=True, text=True, check=False).stdout
        return {"transcripts": [f.name for f, _ in files], "rows": parse_rows(printed), "scorer": printed,
                "review_md": (workspace / "REVIEW.md").read_text(encoding="utf-8")
                if (workspace / "REVIEW.md").exists() else "",
                "briefs": {p: {k: v for k, v in b.items() if k != "path"} for p, b in briefs.items()},
                "kept": str(root) if keep else None}
    finally:
        # the workspace's redis-server and recall service (started by ingest and brief) end with the bench
        subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "service", "stop"], env=user_env(root / "workspace"),
                       cwd=root, capture_output=True, check=False)
        if holder:
            holder.cleanup()


def _bullets(text: str) -> int:
    return sum(1 for line in text.splitlines() if re.match(r"^\s*(?:[-*+]|\d+\.)\s", line))


def table(figures: dict) -> list[str]:
    """The issue's table: what the user reads, entries, useful share, high items covered, words."""
    names = {"proposals": "pending proposals in REVIEW.md", "red facts": "🔴 facts in the daily logs"}
    out = ["| what the user reads | entries | state a labelled durable item | noise | high-importance items covered |",
           "|---|---|---|---|---|"]
    for kind, row in figures["rows"].items():
        what = names.get(kind) or f"SessionStart briefing, project {kind.removeprefix('brief ')}"
        entries = f"{row['n']} lines, {row['words']} words" if row["words"] is not None else str(row["n"])
        out.append(f"| {what} | {entries} | {row['useful']:.2f} | {row['noise']:.2f} | {row['high']} ({row['high_recall']:.2f}) |")
    return out
