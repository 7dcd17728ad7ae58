"""The ledger's event: one line of memory/ledger.jsonl (seed 001, Layer 2), and how lines parse.

An event is never edited. A correction is a new event that `supersedes` the old one; a chain of
events names its relatives in `related`; a commitment is `open` until a later event closes it.
`ts` is when the event was recorded (learned), `valid_from` when the fact became true, if known.
"""

from __future__ import annotations

import gc
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

EventType = Literal["fact", "decision", "preference", "commitment", "constraint", "procedure", "relationship"]
EVENT_TYPES: tuple[str, ...] = ("fact", "decision", "preference", "commitment", "constraint", "procedure",
                                "relationship")
LedgerPriority = Literal["P0", "P1", "P2", "P3"]
PRIORITIES: tuple[str, ...] = ("P0", "P1", "P2", "P3")
BINDING_TYPES = frozenset({"commitment", "constraint", "procedure", "decision"})  # never decay out of the pack
DEFAULT_PROJECT = "default"
USER_PACK = ""  # the pack of the user-level events alone: what a project with no pack of its own reads
EVENT_ID = re.compile(r"^EVT-(\d{8})-(\d{3,})$")
_ENTITY = re.compile(r"^[a-z0-9][a-z0-9_]*$")


def event_id(day: str, number: int) -> str:
    """EVT-YYYYMMDD-NNN for the `number`th event of `day` (YYYY-MM-DD)."""
    return f"EVT-{day.replace('-', '')}-{number:03d}"


def id_parts(value: str) -> tuple[str, int] | None:
    """(YYYYMMDD, number) of an event id, or None when it is not one."""
    match = EVENT_ID.match(value or "")
    return (match.group(1), int(match.group(2))) if match else None


def snake_entity(text: str) -> str:
    """An entity name in snake_case: "Postgres DB" -> "postgres_db"."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


class LedgerEvent(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ts: AwareDatetime  # ISO 8601 with a UTC offset
    id: str = Field(pattern=EVENT_ID.pattern)
    type: EventType
    priority: LedgerPriority
    content: str = Field(min_length=1)
    entity: str | None = Field(None, pattern=_ENTITY.pattern)  # snake_case
    tags: list[str] = Field(default_factory=list)
    source: str = Field(min_length=1)  # memory/YYYY-MM-DD.md, "live", or "manual"
    session: str | None = None
    message_ids: list[str] = Field(default_factory=list)  # the transcript messages it came from
    fact_id: str | None = None  # the observation fact it was derived from (re-runs skip it)
    related: list[str] = Field(default_factory=list)
    supersedes: str | None = None
    status: Literal["open", "closed"] | None = None
    project: str = DEFAULT_PROJECT
    valid_from: datetime | None = None
    # who said the words it came from: its observation fact's source labels (stages/provenance); empty
    # for an event a person added (`ledger add`) or one recorded before labels were kept
    said_by: list[str] = Field(default_factory=list)

    @property
    def day(self) -> str:
        """The day of the id (YYYY-MM-DD)."""
        raw = self.id[4:12]
        return f"{raw[:4]}-{raw[4:6]}-{raw[6:]}"

    @property
    def binding(self) -> bool:
        return self.type in BINDING_TYPES

    @property
    def closes(self) -> bool:
        """A closing event: a commitment with status closed that names the commitments it closes."""
        return self.type == "commitment" and self.status == "closed" and bool(self.related)

    def line(self) -> str:
        """The event as one ledger line (no trailing newline); empty optional fields left out."""
        data = self.model_dump(mode="json", exclude_none=True)
        for name in ("tags", "message_ids", "related", "said_by"):
            if not data.get(name):
                data.pop(name, None)
        return json.dumps(data, ensure_ascii=False, separators=(", ", ": "))


@dataclass
class LineError:
    line: int  # 1-based
    reason: str
    text: str


@dataclass
class ParsedLedger:
    events: list[LedgerEvent] = field(default_factory=list)
    errors: list[LineError] = field(default_factory=list)
    lines: int = 0


def parse_lines(lines: list[str]) -> ParsedLedger:
    """Every line parsed; a line that is not a valid event is reported with its number, never skipped
    silently. Blank lines count as errors too (the ledger is written one event per line)."""
    parsed = ParsedLedger(lines=len(lines))
    collecting = gc.isenabled()
    gc.disable()  # 100k new objects set off many full collections that find nothing: half the time
    try:
        for number, raw in enumerate(lines, start=1):
            try:
                parsed.events.append(LedgerEvent.model_validate_json(raw))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first.get("loc", ())) or "line"
                parsed.errors.append(LineError(number, f"{where}: {first['msg']}", raw[:200]))
    finally:
        if collecting:
            gc.enable()
    return parsed
