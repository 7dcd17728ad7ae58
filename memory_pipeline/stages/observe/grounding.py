"""A fact's sources checked against the window it was observed in: a fact that quotes words cites the
messages that hold them.

The Observer (a model, or the offline one) names the messages a fact came from by ref; refs that
are not in the window are dropped when its answer is read (`parse_observer_output`), and a fact's
labels are those of the messages it cites (`observer.with_roles`). A model can still be led to cite
the user's message for words it read in a file or a web page. So a fact quoting words ("…", at least
MIN_QUOTE_CHARS long) that no cited message holds also cites every message of the window that does:
its labels then say where the words really are (`user+file` is no rule and no P0).

The current task (the briefing's "Last session's task") cites the messages that asked for it the
same way: one that cites only tool output, files or web pages is no task anyone gave
(`grounded_task`), and its refs are taken off the text; one that says there was none ("Primary: No
explicit request in this transcript.", "Primary: none") is none.
"""

from __future__ import annotations

import re

from memory_pipeline.models import Fact, Message, Segment
from memory_pipeline.stages.observe.format import NO_VALUE
from memory_pipeline.stages.observe.parser import strip_refs
from memory_pipeline.stages.provenance import UNKNOWN, from_tool_output

MIN_QUOTE_CHARS = 12
_QUOTE = re.compile(r'"([^"\n]+)"|“([^”\n]+)”')
# a task that says there was none in words (the offline Observer's, or a model's); "none" and the like: NO_VALUE
_NO_REQUEST = re.compile(r"no (?:explicit |clear |specific )?(?:request|task)\b", re.IGNORECASE)


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


def window_texts(messages: list[Message]) -> dict[str, str]:
    """Each message id → all of its words (text, tool results, call inputs), flattened for search."""
    return {m.id: _flat("\n".join([m.text, *(r.text for r in m.tool_results), *(c.input for c in m.tool_calls)]))
            for m in messages}


def quotes_of(text: str) -> list[str]:
    """The quoted spans of a fact long enough to place, flattened, without a clipping `…`."""
    spans = (_flat(a or b).rstrip("…").strip() for a, b in _QUOTE.findall(text))
    return [span for span in spans if len(span) >= MIN_QUOTE_CHARS]


def _grounded(fact: Fact, texts: dict[str, str]) -> Fact:
    cited = [texts[m] for m in fact.source_message_ids if m in texts]
    holders: list[str] = []
    for quote in quotes_of(fact.text):
        if not any(quote in text for text in cited):
            holders += [m for m, text in texts.items() if quote in text]
    if not holders:
        return fact
    return fact.model_copy(update={"source_message_ids": list(dict.fromkeys(fact.source_message_ids + holders))})


def ground_quotes(segments: list[Segment], texts: dict[str, str]) -> list[Segment]:
    """The segments with each quoting fact citing the messages that hold its quoted words."""
    return [segment.model_copy(update={"facts": [_grounded(f, texts) for f in segment.facts]}) for segment in segments]


def grounded_task(task: str | None, refs: dict[str, str], roles: dict[str, str]) -> str | None:
    """The Observer's current task without its refs; None when every message it cites (ref → message
    id → label) is tool output, a file or a web page. A task citing nothing is kept as written."""
    if not task:
        return task
    lines, cited = [], []
    for line in task.splitlines():
        text, found = strip_refs(line)
        lines.append(text)
        cited += [refs[ref] for ref in found if ref in refs]
    if cited and from_tool_output([roles.get(message_id, UNKNOWN) for message_id in cited]):
        return None
    primary = next((line for line in lines if line.strip().lower().startswith("primary")), None)
    asked = (primary.partition(":")[2] if primary is not None else lines[0]).strip().rstrip(".").strip()
    if asked.lower() in NO_VALUE or _NO_REQUEST.match(asked):
        return None
    return "\n".join(line for line in lines if line.strip()) or None
