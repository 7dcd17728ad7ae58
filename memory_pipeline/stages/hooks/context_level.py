"""How full the model's context is: the window for a model, the zone for a token count, and the
latest usage read from the tail of a Claude Code transcript. Pure: text in, values out.

Zones (seed 002): cold below 40 %, warm from 40 % (start caching recall results for the task),
hot from 60 % (write the task checkpoint).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory_pipeline.models import ContextZone, Message
from memory_pipeline.stages.transcripts.claude_code import parse_claude_code
from memory_pipeline.stages.transcripts.jsonl import as_dict, as_str, json_objects

DEFAULT_WINDOW = 200_000
LARGE_WINDOW = 1_000_000
# models whose own window is 1M (Claude Code's default model reports effectiveWindow=980000): the
# current Opus models from 4.6 on and the Fable family; a `[1m]` or `-1m` suffix asks for 1M on any
LARGE_MODELS = re.compile(
    r"claude-(?:opus-(?:4-(?:[6-9]|\d\d)|[5-9](?:-|$|\b))|fable-)",
    re.IGNORECASE,
)
REPORTED_KEYS = ("context_window_size", "contextWindow", "context_window", "size", "model_context_window")
WARM_SHARE = 0.40
HOT_SHARE = 0.60
ZONE_ORDER: dict[str, int] = {"cold": 0, "warm": 1, "hot": 2}
_LARGE_MODEL = re.compile(r"\[1m\]|(?:^|[-_.\s])1m(?:$|[-_.\s\]])", re.IGNORECASE)


@dataclass
class TailReading:
    """What the end of a transcript tells: the last usage, the model, and the recent messages."""

    context_tokens: int | None = None
    model: str | None = None
    messages: list[Message] = field(default_factory=list)


def reported_window(value: object) -> int | None:
    """The window a client reports (a number, or an object holding one), else None."""
    if isinstance(value, dict):
        value = next((value[k] for k in REPORTED_KEYS if k in value), None)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return int(value)


def window_shown_by_auto_compaction(tokens: int) -> int:
    """The client compacts on its own shortly before its window is full: 200k when it did so under
    200k tokens, else 1M."""
    return DEFAULT_WINDOW if tokens <= DEFAULT_WINDOW else LARGE_WINDOW


def context_window_for(model: str | None, configured: int | None = None, reported: object = None) -> int:
    """`MEMORY_CONTEXT_WINDOW` when set; else what the client reports; else by the model's id
    (1M for the models in LARGE_MODELS and any `[1m]` name); else 200k."""
    if configured:
        return configured
    if (window := reported_window(reported)) is not None:
        return window
    if model and (_LARGE_MODEL.search(model) or LARGE_MODELS.search(model)):
        return LARGE_WINDOW
    return DEFAULT_WINDOW


def context_zone(tokens: int | None, window: int) -> ContextZone:
    if not tokens or window <= 0:
        return "cold"
    share = tokens / window
    if share >= HOT_SHARE:
        return "hot"
    if share >= WARM_SHARE:
        return "warm"
    return "cold"


def context_percent(tokens: int | None, window: int) -> float | None:
    if tokens is None or window <= 0:
        return None
    return round(100.0 * tokens / window, 1)


def drop_partial_first_line(text: str, started_mid_file: bool) -> str:
    """A tail read from the middle of a file starts inside a line: that line is dropped."""
    if not started_mid_file:
        return text
    cut = text.find("\n")
    return text[cut + 1 :] if cut >= 0 else ""


def last_assistant_model(text: str) -> str | None:
    model = None
    for _, line in json_objects(text):
        if line.get("type") == "assistant" and line.get("isSidechain") is not True:
            model = as_str(as_dict(line.get("message")).get("model")) or model
    return model


def read_tail(text: str) -> TailReading:
    """Parse the tail of a Claude Code transcript (whole lines only)."""
    transcript = parse_claude_code(text)
    tokens = next(
        (m.context_tokens for m in reversed(transcript.messages) if m.role == "assistant" and m.context_tokens),
        None,
    )
    return TailReading(context_tokens=tokens, model=last_assistant_model(text), messages=transcript.messages)


def crossed(previous: str, current: str) -> list[str]:
    """The zones entered going from `previous` to `current` (both, when jumping cold → hot)."""
    return [zone for zone in ("warm", "hot") if ZONE_ORDER[previous] < ZONE_ORDER[zone] <= ZONE_ORDER[current]]
