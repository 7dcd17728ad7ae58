"""The context level and compaction recovery (seed 002), across hook processes.

UserPromptSubmit reads only the tail of the transcript, finds the latest assistant usage and
places it against the model's window. Entering the warm zone (40 %) starts caching recall results
for the current task: a detached `memory-pipeline hook claude-code --refresh-recall SESSION`
process runs the queries, so the prompt is never held up. The hot zone (60 %) writes the task
checkpoint, and a detached process indexes it (flows/hooks/checkpoint_index.py). SessionStart(compact)
turns the checkpoint and the cache into the recovery pointer, and gives back the project's reviewed
MEMORY.md lines (the compaction dropped the briefing), together within the client's cap.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError
from memory_pipeline.flows.hooks.checkpoint_index import folder_project, spawn_checkpoint_index
from memory_pipeline.flows.hooks.memory import find_memories, hook_project
from memory_pipeline.flows.hooks.transcript import (
    MAX_CONTEXT_CHARS,
    HookResult,
    parse_session,
    session_start_output,
    transcript_file,
)
from memory_pipeline.models import CachedRecall, HookPayload, HookSessionState, TaskCheckpoint
from memory_pipeline.resources.files.feedback import record_injected
from memory_pipeline.resources.files.hook_state import HookStateStore, log_decision, read_tail
from memory_pipeline.resources.files.memory_files import MemoryFiles
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.guard import is_held
from memory_pipeline.stages.hooks.budget import Fitted, Section, fit, left_out_words
from memory_pipeline.stages.hooks.context_level import (
    TailReading,
    context_percent,
    context_window_for,
    context_zone,
    crossed,
    drop_partial_first_line,
)
from memory_pipeline.stages.hooks.context_level import read_tail as read_tail_text
from memory_pipeline.stages.hooks.recovery import (
    build_pointer,
    current_task,
    one_line,
    related_memories,
    should_inject,
    task_hash,
    task_queries,
    user_intents,
    validated_queries,
)
from memory_pipeline.stages.projects import UNKNOWN
from memory_pipeline.stages.redact import redact
from memory_pipeline.stages.review.memory_md import memory_items
from memory_pipeline.stages.review.review_md import memory_as_read
from memory_pipeline.stages.tokens import estimate_tokens
from memory_pipeline.stages.transcripts import files_touched

WINDOW_ENV = "MEMORY_CONTEXT_WINDOW"
CACHE_ENTRIES = 6
REFRESH_STALE = timedelta(seconds=120)
MEMORY_AGAIN = "## MEMORY.md (reviewed: the standing guidance this session started with)"


def configured_window(settings: Settings) -> int | None:
    value = settings.context_window
    if value is not None and value <= 0:
        raise BadInputError(f"{WINDOW_ENV} must be a positive number of tokens, got {value!r}")
    return value


def tail_of(payload: HookPayload) -> TailReading:
    text, mid_file = read_tail(transcript_file(payload))
    return read_tail_text(drop_partial_first_line(text, mid_file))


def _intents(reading: TailReading, prompt: str | None) -> list[str]:
    intents = user_intents(reading.messages)
    if prompt and prompt.strip() and not prompt.lstrip().startswith("<"):
        latest = one_line(prompt)
        if not intents or intents[-1] != latest:
            intents.append(latest)
    return intents


def spawn_recall_refresh(session_id: str) -> None:
    """Start the recall refresh detached from this hook (it outlives the hook process)."""
    subprocess.Popen(
        [sys.executable, "-m", "memory_pipeline.cli", "hook", "claude-code", "--refresh-recall", session_id],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )


def first_reading(payload: HookPayload) -> TailReading | None:
    """The transcript's tail; None when the client has not written the file yet (the first prompt of
    a new session): the prompt is tracked from the payload and the transcript read by later hooks."""
    path = Path(payload.transcript_path or "").expanduser()
    if payload.transcript_path and not path.exists() and payload.prompt:
        return None
    reading = tail_of(payload)
    if not reading.messages:
        raise BadInputError(f"{payload.transcript_path}: no Claude Code messages in its last part")
    return reading


def track_context(workspace: Workspace, payload: HookPayload, now: datetime, settings: Settings) -> HookResult:
    reading = first_reading(payload)
    unwritten = reading is None
    reading = reading or TailReading()
    shown = HookStateStore(workspace).load(payload.session_id).shown_window  # by an automatic compaction
    window = context_window_for(reading.model, configured_window(settings), payload.context_window or shown)
    zone = context_zone(reading.context_tokens, window)
    percent = context_percent(reading.context_tokens, window)
    intents = _intents(reading, payload.prompt)
    fresh_hash = task_hash(intents)
    entered: list[str] = []
    wrote_checkpoint: list[bool] = []
    refresh: list[bool] = []
    project = hook_project(workspace, payload.cwd, settings)

    def change(state: HookSessionState) -> None:
        entered.extend(crossed(state.zone, zone))
        state.project = project if payload.cwd or state.project is None else state.project  # a folder once named stays
        state.transcript_path = payload.transcript_path or state.transcript_path
        task_changed = state.task_hash != fresh_hash
        state.zone, state.context_tokens, state.context_window = zone, reading.context_tokens, window
        if zone == "hot" and ("hot" in entered or task_changed or state.checkpoint is None):
            _, modified = files_touched(list(reversed(reading.messages)))
            prior = state.checkpoint.files_modified if state.checkpoint else []
            prior_project = state.checkpoint.project if state.checkpoint else ""
            files = list(dict.fromkeys(modified + prior))[:10]
            state.checkpoint = TaskCheckpoint(
                current_task=current_task(intents), user_messages=intents[-3:], files_modified=files,
                context_percent=percent, reason="hot-zone", captured_at=now,
                project=folder_project(payload.cwd, settings) if payload.cwd else prior_project,
            )
            wrote_checkpoint.append(True)
        in_flight = state.recall_started_at is not None and now - state.recall_started_at < REFRESH_STALE
        queries = task_queries(intents)
        if zone != "cold" and task_changed and not in_flight and queries:
            state.task_hash, state.pending_queries, state.recall_started_at = fresh_hash, queries, now
            refresh.append(True)

    HookStateStore(workspace).update(payload.session_id, change, now)
    log: dict[str, Any] = dict(at=now, session_id=payload.session_id, hook="UserPromptSubmit")
    if unwritten:
        log_decision(workspace, "tracked", transcript="not written yet", **log)
    for name in entered:
        log_decision(workspace, name, percent=percent, tokens=reading.context_tokens, window=window, **log)
    if wrote_checkpoint:
        log_decision(workspace, "checkpoint", reason="hot-zone", percent=percent, **log)
        spawn_checkpoint_index(payload.session_id)  # made searchable off the prompt's path
    if refresh:
        spawn_recall_refresh(payload.session_id)
    return HookResult()


def _cache_entries(workspace: Workspace, settings: Settings, queries: list[str], now: datetime,
                   project: str | None = None) -> tuple[list[CachedRecall], list[str]]:
    entries, notes = [], []
    for query in queries:
        found = find_memories(workspace, settings, query, project=project)
        if found.note:
            notes.append(found.note)
        hits = [h for h in found.hits if not is_held(h.text)]  # the cache feeds the pointer: held text stays out
        entries.append(CachedRecall(query=query, hits=hits, at=now))
    return entries, notes


def refresh_recall_cache(workspace: Workspace, settings: Settings, session_id: str,
                         now: datetime | None = None) -> HookResult:
    """Run the pending recall queries and add their results to the session's cache."""
    now = now or datetime.now().astimezone()
    store = HookStateStore(workspace)
    state = store.load(session_id)
    project = UNKNOWN if state.project is None else state.project  # never named a folder: no project's, not every one
    entries, notes = _cache_entries(workspace, settings, state.pending_queries, now, project)

    def change(state: HookSessionState) -> None:
        state.recall_cache = (state.recall_cache + entries)[-CACHE_ENTRIES:]
        state.pending_queries, state.recall_started_at = [], None

    store.update(session_id, change, now)
    log_decision(workspace, "recall_cached", at=now, session_id=session_id, hook="UserPromptSubmit",
                 queries=len(entries), hits=sum(len(e.hits) for e in entries), note=notes[0] if notes else None)
    return HookResult(note=notes[0] if notes else None)


def _task_and_files(payload: HookPayload, checkpoint: TaskCheckpoint | None) -> tuple[str, list[str], list[str]]:
    """From the checkpoint when one was saved, else from the transcript (its tail when it is huge)."""
    if checkpoint is not None and checkpoint.current_task:
        return checkpoint.current_task, checkpoint.files_modified, checkpoint.user_messages
    try:
        path = transcript_file(payload)
        try:
            messages = parse_session(path, payload.session_id).messages
        except BadInputError:
            messages = tail_of(payload).messages
    except (BadInputError, OSError):
        return "", [], []
    intents = user_intents(messages)
    _, modified = files_touched(list(reversed(messages)))
    return current_task(intents), modified[:10], intents[-3:]


def recover_after_compaction(workspace: Workspace, payload: HookPayload, now: datetime, settings: Settings) -> HookResult:
    store = HookStateStore(workspace)
    decisions = []

    def mark(state: HookSessionState) -> None:
        decisions.append(should_inject(state.last_compact_at, now))
        state.last_compact_at, state.compaction_count, state.zone = now, state.compaction_count + 1, "cold"

    state = store.update(payload.session_id, mark, now)
    decision = decisions[0]
    log: dict[str, Any] = dict(at=now, session_id=payload.session_id, hook="SessionStart", source="compact")
    if not decision.inject:
        log_decision(workspace, "inject_skipped", reason=decision.reason,
                     seconds_since_last=decision.seconds_since_last, compaction=state.compaction_count, **log)
        return HookResult(note=f"recovery pointer skipped: {decision.reason} "
                               f"({decision.seconds_since_last:.0f}s after the previous compaction)")
    task, files, intents = _task_and_files(payload, state.checkpoint)
    project = hook_project(workspace, payload.cwd, settings)
    cache, fallback = state.recall_cache, False
    notes: list[str] = []
    if not validated_queries(cache):  # the warm zone cached nothing useful: ask with the task itself
        entries, notes = _cache_entries(workspace, settings, task_queries(intents), now, project)
        fallback, cache = True, cache + entries
        store.update(payload.session_id, lambda s: setattr(s, "recall_cache", (s.recall_cache + entries)[-CACHE_ENTRIES:]), now)
    memories, queries = related_memories(cache), validated_queries(cache)
    pointer = build_pointer(task, files, memories, queries, cwd=payload.cwd) if task or files or memories else None
    context = after_compaction(workspace, project, pointer)
    if context is None:
        log_decision(workspace, "inject_skipped", reason="nothing-to-recover", compaction=state.compaction_count, **log)
        return HookResult(note=notes[0] if notes else "recovery pointer skipped: no task, files or memories found")
    if pointer is not None:
        record_injected(workspace, payload.session_id, [(h.id, h.text) for h in memories], "pointer", now)
    log_decision(workspace, "inject", kind="pointer" if pointer else "memory_md",
                 tokens=estimate_tokens(pointer or ""), chars=len(context.text), memory_md_left_out=
                 context.left_out.get("MEMORY.md", 0), files=min(len(files), 5), memories=len(memories),
                 queries=len(queries), fallback=fallback, compaction=state.compaction_count, **log)
    return HookResult(output=session_start_output(context.text), note=notes[0] if notes else None)


def after_compaction(workspace: Workspace, project: str | None, pointer: str | None) -> Fitted | None:
    """What a session gets back after a compaction, within the client's cap: the recovery pointer,
    then the reviewed MEMORY.md lines of its project (what it started with); None when neither has any."""
    files = MemoryFiles(workspace)
    memory = memory_as_read(files.read_memory(), files.read_review(), project).strip()
    sections = [Section("the recovery pointer", pointer.splitlines())] if pointer else []
    if memory_items(memory):
        sections.append(Section("MEMORY.md", redact(memory).splitlines(), head=[MEMORY_AGAIN, ""]))
    if not sections:
        return None
    return fit(sections, MAX_CONTEXT_CHARS, after_compaction_left_out)


def after_compaction_left_out(left_out: dict[str, int]) -> str:
    return (f"_Left out to fit the {MAX_CONTEXT_CHARS:,}-character context: {left_out_words(left_out)}. All of "
            "MEMORY.md: `memory-pipeline brief` or the memory MCP tool `brief`._")
