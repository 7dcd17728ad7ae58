"""The time a query names, as a window of days (pure): "on 7 July, 2026", "in August 2026",
"last week", "yesterday", "three months ago", "last spring", "two years ago", "in 2025".

Only times the query states are read; "when did …" names none (its answer is a date, which the
message documents carry in their text). The window is a ranking hint, never a filter: a hit inside
it is favoured over an equally good one outside (stages/recall/rank.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

MONTHS = {name: n for n, name in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"), start=1)}
MONTHS |= {name[:3]: n for name, n in list(MONTHS.items())} | {"sept": 9}
SEASONS = {"spring": (3, 5), "summer": (6, 8), "autumn": (9, 11), "fall": (9, 11), "winter": (12, 2)}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a few": 3}
UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}

_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|" \
         r"apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_YEAR = r"((?:19|20)\d\d)"
DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b")
MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}\b")
ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b")
SEASON_YEAR = re.compile(r"\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?((?:19|20)\d\d)\b")
LAST_SEASON = re.compile(r"\blast\s+(spring|summer|autumn|fall|winter)\b")
LAST_MONTH_NAME = re.compile(rf"\blast\s+{_MONTH}(?!\w)")
AGO = re.compile(r"\b(\d+|a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
                 r"\s+(day|week|month|year)s?\s+ago\b")
LAST_UNIT = re.compile(r"\b(?:last|past|previous)\s+(week|month|year)\b")
YESTERDAY = re.compile(r"\byesterday\b")
IN_YEAR = re.compile(r"\b(?:in|during|of|since|throughout)\s+((?:19|20)\d\d)\b")


@dataclass(frozen=True)
class Window:
    start: date  # inclusive
    end: date  # inclusive
    said: str  # the words that named it

    def contains(self, ts: float | None) -> bool:
        if ts is None:
            return False
        day = datetime.fromtimestamp(float(ts), UTC).date()
        return self.start <= day <= self.end


def _month_end(year: int, month: int) -> date:
    return (date(year + month // 12, month % 12 + 1, 1)) - timedelta(days=1)


def _day(year: str, month: str, day: str) -> date | None:
    """A real date from matched text ("31 February" is none)."""
    try:
        return date(int(year), MONTHS.get(month) or int(month), int(day))
    except ValueError:
        return None


def named_window(query: str, now: datetime | float) -> Window | None:
    """The first time the query names, as days (relative words read against `now`, UTC)."""
    today = (datetime.fromtimestamp(now, UTC) if isinstance(now, (int, float)) else now).date()
    text = query.lower()
    for pattern, day_at, month_at, year_at in ((DAY_MONTH_YEAR, 1, 2, 3), (MONTH_DAY_YEAR, 2, 1, 3)):
        if m := pattern.search(text):
            day = _day(m.group(year_at), m.group(month_at), m.group(day_at))
            if day:  # a stated day: the week around it (people say "on Monday" for "around then")
                return Window(day - timedelta(days=3), day + timedelta(days=3), m.group(0))
    if m := ISO_DAY.search(text):
        day = _day(m.group(1), m.group(2), m.group(3))
        if day:
            return Window(day - timedelta(days=3), day + timedelta(days=3), m.group(0))
    if m := MONTH_YEAR.search(text):
        year, month = int(m.group(2)), MONTHS[m.group(1)]
        return Window(date(year, month, 1), _month_end(year, month), m.group(0))
    if m := SEASON_YEAR.search(text):
        return _season(m.group(1), int(m.group(2)), m.group(0))
    if m := LAST_SEASON.search(text):  # the latest such season that has ended
        return next(w for y in (today.year, today.year - 1, today.year - 2)
                    if (w := _season(m.group(1), y, m.group(0))).end < today)
    if m := LAST_MONTH_NAME.search(text):
        month = MONTHS[m.group(1)]
        year = today.year if month < today.month else today.year - 1
        return Window(date(year, month, 1), _month_end(year, month), m.group(0))
    if m := AGO.search(text):
        count = int(m.group(1)) if m.group(1).isdigit() else NUMBERS[m.group(1)]
        span = UNIT_DAYS[m.group(2)]
        middle = today - timedelta(days=count * span)
        half = max(1, span // 2) if m.group(2) != "day" else 1
        return Window(middle - timedelta(days=half), middle + timedelta(days=half), m.group(0))
    if m := LAST_UNIT.search(text):
        span = UNIT_DAYS[m.group(1)]
        return Window(today - timedelta(days=2 * span), today - timedelta(days=1), m.group(0)) if span < 365 \
            else Window(date(today.year - 1, 1, 1), date(today.year - 1, 12, 31), m.group(0))
    if m := YESTERDAY.search(text):
        return Window(today - timedelta(days=1), today - timedelta(days=1), m.group(0))
    if m := IN_YEAR.search(text):
        year = int(m.group(1))
        return Window(date(year, 1, 1), date(year, 12, 31), m.group(0))
    return None


def _season(name: str, year: int, said: str) -> Window:
    first, last = SEASONS[name]
    if name == "winter":  # winter 2025: December 2025 to February 2026
        return Window(date(year, 12, 1), _month_end(year + 1, 2), said)
    return Window(date(year, first, 1), _month_end(year, last), said)
