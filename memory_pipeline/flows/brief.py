"""The session briefing: what an agent reads at session start.

MEMORY.md, a nudge when proposals wait in REVIEW.md, the recall pack (recall/pack.md, built from
the ledger by the `recall_pack` asset or `memory-pipeline pack`), the 🔴 observations of today and yesterday
(newest first) and where the latest session left off. The observation part (observations, current
task, suggested response) stays within `budget_tokens`. Reads files only: no Redis, no model,
fast enough for a SessionStart hook.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from memory_pipeline.flows.observe import load_observations
from memory_pipeline.models import Observation
from memory_pipeline.resources.ledger_files import LedgerFiles
from memory_pipeline.resources.memory_files import MemoryFiles
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.observe.observer import optimize_for_context
from memory_pipeline.stages.review.review_md import parse_review_md
from memory_pipeline.stages.tokens import estimate_tokens

CURRENT_TASK_LOOKBACK_DAYS = 7
_ID_MARKER = re.compile(r"\s*<!--\s*p-\d{8}-\d{3}\s*-->")


@dataclass
class Brief:
    date: str
    memory_md: str
    pending_proposals: int
    observations: list[dict] = field(default_factory=list)  # {"date", "session", "text"}, newest first
    current_task: str | None = None
    suggested_response: str | None = None
    budget_tokens: int = 2000
    observation_tokens: int = 0
    truncated: bool = False
    pack: str | None = None  # recall/pack.md as written, headings one level down

    @property
    def nudge(self) -> str | None:
        n = self.pending_proposals
        if n <= 0:
            return None
        return f"📋 {n} pending memory proposal{'s' if n != 1 else ''} in REVIEW.md — review when ready"

    @property
    def text(self) -> str:
        parts = [f"# Session briefing — {self.date}", "", "## MEMORY.md", "",
                 self.memory_md.strip() or "_MEMORY.md is empty._", ""]
        if self.nudge:
            parts += [self.nudge, ""]
        if self.pack:
            parts += [self.pack.strip(), ""]
        if self.observations:
            parts += ["## Recent observations (🔴 only)", ""]
            for block in self.observations:
                parts += [f"### {block['date']} · {block['session']}", "", block["text"], ""]
        if self.current_task or self.suggested_response:
            parts += ["## Where the last session left off", ""]
            if self.current_task:
                parts.append(f"**Current task**: {self.current_task}")
            if self.suggested_response:
                parts.append(f"**Suggested response**: {self.suggested_response}")
            parts.append("")
        return "\n".join(parts).rstrip() + "\n"

    def as_dict(self) -> dict:
        return {"date": self.date, "memory_md": self.memory_md, "pending_proposals": self.pending_proposals,
                "nudge": self.nudge, "observations": self.observations, "current_task": self.current_task,
                "suggested_response": self.suggested_response, "budget_tokens": self.budget_tokens,
                "observation_tokens": self.observation_tokens, "truncated": self.truncated, "pack": self.pack,
                "text": self.text}


def pending_in_review(review_text: str | None) -> int:
    """Open (unticked) proposal lines in REVIEW.md, each id counted once."""
    if not review_text:
        return 0
    return len({line.pid for line in parse_review_md(review_text).lines if line.mark == "open"})


def _flat(text: str | None, max_tokens: int) -> str | None:
    """One line, cut to about `max_tokens` tokens."""
    if not text or not text.strip() or max_tokens <= 0:
        return None
    flat = " ".join(text.split())
    limit = max_tokens * 4
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)].rstrip() + "…"


def _fit(text: str, budget: int) -> str:
    """The leading lines of `text` that fit in `budget` tokens."""
    kept: list[str] = []
    for line in text.splitlines():
        if estimate_tokens("\n".join([*kept, line])) > budget:
            break
        kept.append(line)
    return "\n".join(kept).strip()


def nested_pack(text: str | None) -> str | None:
    """The pack with its headings one level down, to sit inside the briefing."""
    if not text or not text.strip():
        return None
    return "\n".join("#" + line if line.startswith("#") else line for line in text.splitlines())


def build_brief(workspace: Workspace, *, budget_tokens: int = 2000, today: str | None = None) -> Brief:
    """The briefing for a session starting on `today` (default: the local date)."""
    today = today or date.today().isoformat()
    files = MemoryFiles(workspace)
    brief = Brief(date=today, memory_md=_ID_MARKER.sub("", files.read_memory()),
                  pending_proposals=pending_in_review(files.read_review()), budget_tokens=budget_tokens,
                  pack=nested_pack(LedgerFiles(workspace).read_pack()))
    start = date.fromisoformat(today)
    days = [(start - timedelta(days=n)).isoformat() for n in range(CURRENT_TASK_LOOKBACK_DAYS)]
    recent: list[Observation] = sorted((o for d in days for o in load_observations(workspace, d)),
                                       key=lambda o: (o.captured_at, o.id), reverse=True)
    latest = next((o for o in recent if o.current_task or o.suggested_response), None)
    left = budget_tokens
    if latest is not None:
        brief.current_task = _flat(latest.current_task, budget_tokens // 4)
        brief.suggested_response = _flat(latest.suggested_response, budget_tokens // 4)
        left -= estimate_tokens(f"{brief.current_task or ''} {brief.suggested_response or ''}")
    for observation in (o for o in recent if o.date in days[:2]):
        block = optimize_for_context(observation)
        if not block:
            continue
        cost = estimate_tokens(block)
        if cost > left:
            block = _fit(block, left)
            brief.truncated = True
            if not block:
                break
            cost = estimate_tokens(block)
        brief.observations.append({"date": observation.date,
                                   "session": observation.session_name or observation.session_id, "text": block})
        left -= cost
        if brief.truncated:
            break
    brief.observation_tokens = budget_tokens - left
    return brief
