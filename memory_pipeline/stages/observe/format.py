"""Markdown renderings of observations: the daily-log section and the 🔴-only briefing text."""

from __future__ import annotations

import re

from memory_pipeline.models import Fact, Observation, ObserverOutput, Segment
from memory_pipeline.stages.offline.distil import statement
from memory_pipeline.stages.offline.observer import ASKED
from memory_pipeline.stages.provenance import said_by

SHORT_NARRATIVE_CHARS = 160
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
NO_VALUE = {"", "none", "n/a", "na", "-", "—", "nothing"}  # a task line's "Secondary: none"
_ASKED = re.compile("^" + re.escape(ASKED).replace(re.escape("{}"), "(?P<quote>.*?)") + r"(?=\s|$)")
_WORD = re.compile(r"[\w'’]+")


def _inline(text: str) -> str:
    return " ".join(text.split())


def format_fact(fact: Fact, *, said: bool = False) -> str:
    """`* 🔴 (09:15) text`, without the time when the transcript had none; with `said`, who said it
    after the time: `* 🔴 (09:15) (said by user) text` (the labels of the messages it cites), the text
    as a statement of its own (stages/offline/distil.statement: no "User stated:" frame or quotes)."""
    time = f"({fact.time}) " if fact.time else ""
    who = f"(said by {said_by(fact.source_roles)}) " if said else ""
    text = statement(fact.text) if said else fact.text  # the label says who; the words need no "User stated:"
    return f"* {fact.emoji} {time}{who}{_inline(text)}"


def word_list(text: str) -> list[str]:
    """The text's words, lowercased, in order (an apostrophe stays in its word; an ellipsis is none)."""
    return _WORD.findall(text.lower())


def restates(quote: str, title: str) -> bool:
    """Whether the request a narrative quotes is the segment's title again (the title is the request,
    clipped: its words, less a last word cut by "…", open the quote's)."""
    words = word_list(title)
    if title.rstrip().endswith("…"):
        words = words[:-1]
    return bool(words) and word_list(quote)[:len(words)] == words


def after_request(narrative: str, title: str) -> str | None:
    """What a narrative says after quoting the request its title already shows ('The user wrote:
    "…".'), or None when it opens otherwise: the rest is the agent's doing (the files it edited, the
    commands it ran, its last words on it: stages/offline/observer.narrative_for)."""
    text = _inline(narrative)
    asked = _ASKED.match(text)
    return text[asked.end():].strip() if asked and restates(asked["quote"], title) else None


def _short(narrative: str) -> str:
    """The narrative's first sentence, in the briefing's one line."""
    text = _inline(narrative)
    if not text:
        return ""
    first = _SENTENCE_END.split(text, maxsplit=1)[0]
    if len(first) > SHORT_NARRATIVE_CHARS:
        first = first[: SHORT_NARRATIVE_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return first


def _is_flat(segments: list[Segment], fmt: str) -> bool:
    return fmt in ("flat", "fallback") or all(not s.title and not s.narrative for s in segments)


def optimize_for_context(output: ObserverOutput | Observation, *, said: bool = False) -> str:
    """🔴 facts only, under their segment titles, for injection into a briefing; "" when none.
    With `said`, each fact and narrative says who said it (the briefing's notes: not reviewed)."""
    blocks: list[str] = []
    flat = _is_flat(output.segments, output.format)
    for segment in output.segments:
        high = [format_fact(f, said=said) for f in segment.facts if f.priority == "high"]
        if not high:
            continue
        lines: list[str] = []
        if not flat:
            lines.append(f"#### {_inline(segment.title) or 'Session'}")
            rest = after_request(segment.narrative, segment.title)
            if rest is not None:  # the request is the title: the rest is what the agent did and said
                who = "(said by assistant) " if said else ""
                lines += [f"*{who}{_short(rest)}*"] if rest else []
            elif segment.narrative:
                roles = [r for f in segment.facts for r in f.source_roles]
                who = f"(said by {said_by(roles)}) " if said else ""
                lines.append(f"*{who}{_short(segment.narrative)}*")
        blocks.append("\n".join(lines + high))
    if not blocks:
        return ""
    head = [f"Date: {output.date}"] if output.date else []
    return "\n\n".join(head + blocks)


def _current_task_line(text: str | None) -> str | None:
    if not text:
        return None
    primary = secondary = None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == "primary":
            primary = _inline(value)
        elif key.strip().lower() == "secondary":
            secondary = _inline(value)
    primary = primary or _inline(text)
    if not primary:
        return None
    if secondary and secondary.lower().strip(".") not in NO_VALUE:
        primary = f"{primary} (also: {secondary})"
    return f"**Current task**: {primary}"


def _comment_value(text: str) -> str:
    return _inline(text).replace("--", "-")


def _project_label(observation: Observation) -> str:
    return f", project: {_inline(observation.project)}" if observation.project else ""


def format_segments_for_log(observation: Observation, *, time_label: str) -> str:
    """The `### 🔭 Observations` section appended to memory/YYYY-MM-DD.md."""
    name = _inline(observation.session_name or "") or observation.session_id
    lines = [
        f"### 🔭 Observations (session: {name}, {time_label}{_project_label(observation)})",
        "",
        f"**Trigger**: {observation.trigger}",
        f"**Files**: {len(observation.files_modified)} modified, {len(observation.files_read)} read",
        "",
    ]
    segments = [s for s in observation.segments if s.facts or s.title or s.narrative]
    if not segments:
        lines += ["*No observations extracted.*", ""]
    elif _is_flat(segments, observation.format):
        lines += [f"Date: {observation.date}", ""]
        lines += [format_fact(f) for s in segments for f in s.facts] + [""]
    else:
        for number, segment in enumerate(segments, start=1):
            lines.append(f"#### {_inline(segment.title) or f'Segment {number}'}")
            if segment.narrative:
                lines.append(f"*{_inline(segment.narrative)}*")
            lines.append("")
            if segment.facts:
                lines += [format_fact(f) for f in segment.facts] + [""]
    if task := _current_task_line(observation.current_task):
        lines += [task, ""]
    lines.append(
        f"<!-- dedupeKey: {_comment_value(observation.dedupe_key)} observation: {observation.id} "
        f"version: {_comment_value(observation.code_version) or 'unknown'} -->"
    )
    return "\n".join(lines) + "\n"
