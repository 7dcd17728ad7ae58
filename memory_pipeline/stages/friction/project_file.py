"""A project's CLAUDE.md / AGENTS.md, pure: approved fixes appended under one marked section.

The section is `## Friction fixes (memory-pipeline)`; each line reads
`- (YYYY-MM-DD) text <!-- f-YYYYMMDD-NNN-xxxx -->` like a promoted MEMORY.md line (dated the day it
was approved), so it traces back to its fix and a repeated apply finds it. Nothing outside the new
line is changed.
"""

from __future__ import annotations

from memory_pipeline.stages.review.memory_md import promoted_ids, promoted_line

FIXES_SECTION = "## Friction fixes (memory-pipeline)"
SECTION_NOTE = "<!-- approved in memory-pipeline's REVIEW.md; edit or delete these lines freely -->"


def append_fix(text: str, day: str, change: str, fid: str) -> str:
    """`text` with the fix's line at the end of the marked section (created at the end of the file)."""
    if fid in promoted_ids(text):
        return text
    line = promoted_line(day, change, fid)
    lines = text.splitlines()
    heading = next((i for i, row in enumerate(lines) if row.strip() == FIXES_SECTION), None)
    if heading is None:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += ([""] if lines else []) + [FIXES_SECTION, "", SECTION_NOTE, line]
        return "\n".join(lines) + "\n"
    end = next((i for i in range(heading + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    last = end - 1
    while last > heading and not lines[last].strip():
        last -= 1
    lines.insert(last + 1, line)
    return "\n".join(lines) + ("\n" if text.endswith("\n") or not text else "")
