"""The `recall_pack` asset's work (and `memory-pipeline pack`): one pack per project, the
integrity report, the knowledge base.

The pack for day D is built from the events recorded up to D, so a backfill of an old day is
deterministic; recall/pack.md is only replaced by a pack for the same or a later day.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from memory_pipeline.resources.files.ledger_files import LedgerFiles
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.ledger.integrity import IntegrityReport, check_ledger, structural_checks
from memory_pipeline.stages.ledger.knowledge import knowledge_pages
from memory_pipeline.stages.ledger.model import DEFAULT_PROJECT, USER_PACK
from memory_pipeline.stages.ledger.pack import PackResult, build_pack


@dataclass
class PackBuild:
    day: str
    packs: list[PackResult]
    report: IntegrityReport
    all_projects: PackResult  # every project's events in one pack (`--all-projects`)
    user_only: PackResult  # the user-level events alone (a project with no pack of its own)
    written: list[str] = field(default_factory=list)  # pack files replaced
    knowledge_changed: list[str] = field(default_factory=list)

    def pack(self, project: str | None = DEFAULT_PROJECT) -> PackResult:
        if project is None:
            return self.all_projects
        found = next((p for p in self.packs if p.project == project), None)
        return found if found is not None else self.user_only


def build_packs(workspace: Workspace, day: str, *, write: bool = True, knowledge: bool = True,
                now: datetime | None = None) -> PackBuild:
    files = LedgerFiles(workspace)
    today = date.fromisoformat(day)
    with files.locked():
        parsed = files.read()
        archive_ids = files.archive_ids()
        index, saved_checkpoint = files.open_loops(), files.read_json("checkpoint.json")
    structural = structural_checks(parsed, archive_ids, index,
                                   saved_checkpoint if isinstance(saved_checkpoint, dict) else None)
    warnings = [f"{c.name} failed: {c.count} ({', '.join(map(str, c.found[:2]))})"
                for c in structural if not c.passed]
    projects = sorted({DEFAULT_PROJECT} | {e.project for e in parsed.events})
    packs = [build_pack(parsed.events, today, project=p, warnings=warnings) for p in projects]
    report = check_ledger(structural, packs)
    build = PackBuild(day=day, packs=packs, report=report,
                      all_projects=build_pack(parsed.events, today, project=None, warnings=warnings),
                      user_only=build_pack(parsed.events, today, project=USER_PACK, warnings=warnings))
    if not write:
        return build
    stamp = (now or datetime.now(UTC)).isoformat()
    files.write_json("integrity-report.json", report.as_dict(stamp) | {"day": day})
    for pack in [*packs, build.all_projects, build.user_only]:
        current = files.pack_day(pack.project)
        if current is None or current <= day:
            build.written.append(str(files.write_pack(pack.project, pack.text)))
    if knowledge:
        build.knowledge_changed = files.write_knowledge(knowledge_pages(
            [e for e in parsed.events if e.ts.date() <= today], today), day=day)
    return build
