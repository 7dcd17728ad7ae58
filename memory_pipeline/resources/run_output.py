"""What Dagster prints while a job runs in this process, kept out of the terminal.

Dagster writes some lines straight to `sys.stderr` ("Exception while writing logger call to event
log: … database or disk is full" when its event log cannot be written), and its run loggers and
warnings print there too. The CLI's in-process runs (ingest, reflect, friction, maintain, demo)
hold them in memory while the run lasts, then append them to the workspace's
`state/dagster-output.log`: the terminal shows the command's own lines only, and the log keeps
Dagster's for debugging. Held in memory first, so a full disk cannot fail Dagster's own write.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

MAX_LOG_BYTES = 1_000_000  # past this, the log starts afresh and the previous one is kept as `.1`


@dataclass
class RunOutput:
    log: Path
    text: str = ""
    error: str | None = None  # why the text could not be appended to the log

    def note(self) -> str | None:
        """Where Dagster's lines went, for the command's message; None when it printed nothing."""
        if not self.text:
            return None
        if self.error is None:
            return f"Dagster's output: {self.log}"
        return f"Dagster's output not saved to {self.log}: {self.error}"


@contextlib.contextmanager
def captured_output(log: Path, title: str) -> Iterator[RunOutput]:
    """Everything written to `sys.stderr` inside the block, appended to `log` under `title` after it."""
    output = RunOutput(log)
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stderr(buffer):
            yield output
    finally:
        output.text = buffer.getvalue()
        if output.text:
            output.error = _append(log, f"=== {datetime.now(UTC).isoformat(timespec='seconds')} {title}\n"
                                        f"{output.text}")


def _append(log: Path, text: str) -> str | None:
    """Append `text` in one write; the reason it failed (a full disk), or None."""
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        if log.exists() and log.stat().st_size > MAX_LOG_BYTES:
            os.replace(log, log.with_name(log.name + ".1"))
        with log.open("a", encoding="utf-8") as handle:
            handle.write(text if text.endswith("\n") else text + "\n")
    except OSError as exc:
        return exc.strerror or str(exc)
    return None
