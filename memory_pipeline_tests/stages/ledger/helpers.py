"""Building ledger events for tests: ids in order per day, times counted back from a fixed day."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

from memory_pipeline.stages.ledger.model import LedgerEvent, event_id

TODAY = date(2026, 11, 23)


class Events:
    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self.events: list[LedgerEvent] = []

    def add(self, content: str, *, type: str = "fact", priority: str = "P2", entity: str | None = None,
            days_ago: int = 0, **fields) -> LedgerEvent:
        day = TODAY - timedelta(days=days_ago)
        number = self.numbers.get(day.isoformat(), 0) + 1
        self.numbers[day.isoformat()] = number
        ts = datetime.combine(day, time(9, 0), tzinfo=timezone.utc) + timedelta(seconds=number)
        if type == "commitment":
            fields.setdefault("status", "open")
        event = LedgerEvent(ts=ts, id=event_id(day.isoformat(), number), type=type, priority=priority,
                            content=content, entity=entity, source=f"memory/{day.isoformat()}.md", **fields)
        self.events.append(event)
        return event
