"""Seconds a `memory-pipeline …` command takes in a fresh process, and medians of them."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time


def cli(env: dict[str, str], *args: str, timeout: float = 600) -> float:
    """Seconds one `memory-pipeline …` command takes in a fresh process (fails loudly on an error)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "memory_pipeline.main", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"memory-pipeline {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")
    return seconds


def summary(samples: list[float]) -> dict:
    return {"median_s": round(statistics.median(samples), 3), "min_s": round(min(samples), 3),
            "max_s": round(max(samples), 3), "runs": len(samples)}
