"""Windows of a session: which messages an event carries, and whether they are worth observing.

A session reaches the pipeline in windows (PreCompact, SessionEnd, `import`), each starting after
the last message an earlier window carried, so no message is observed twice. Whether a window is
observed is judged by the work in it (`shows_work`), a rule measured on real transcripts
(`bench/observe_share.py`): coding agents give one or two instructions and then work for an hour,
so counting user messages alone (the old rule: 5) left them unobserved. A window short of the rule
waits: it is indexed now and observed together with the session's next window, or, when the
session is over, observed if the session as a whole showed work, or if the user stated something to
keep in it ("Remember: never deploy the billing service on Fridays", "We moved the orders service to
Postgres 17"), as the offline Observer's rules read a user's sentence: a two-line session is where
such a note is often made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from memory_pipeline.models import Message, Observing, Transcript, Trigger, WindowWork
from memory_pipeline.stages.offline.observer_facts import user_statements
from memory_pipeline.stages.offline.observer_rules import messages_about_code
from memory_pipeline.stages.transcripts.files import files_touched

# observe a window with any of these (bench/observe_share.py measures the share each rule observes)
MIN_USER_MESSAGES = 3  # a conversation
MIN_TOOL_CALLS = 10  # agentic work
MIN_FILES_MODIFIED = 1  # a change made
MIN_CHARS = 2000  # what the user and the assistant wrote, in characters
MIN_STATEMENTS = 1  # what the user asked to keep or stated as standing
RULE = (f"{MIN_USER_MESSAGES} user messages, {MIN_TOOL_CALLS} tool calls, a modified file, "
        f"{MIN_CHARS:,} characters of conversation or a statement to keep")
# a session with no new line for this long is over (an import of it, or the sweep, closes it)
SESSION_IDLE = timedelta(hours=2)
# SessionEnd reasons after which the session is over ("other" is every `claude -p` turn: not over)
FINAL_END_REASONS = frozenset({"clear", "logout", "prompt_input_exit"})


def window_work(messages: Sequence[Message]) -> WindowWork:
    users = [m for m in messages if m.role == "user" and m.text and not m.is_compaction_summary]
    said = [m for m in messages if m.role in ("user", "assistant") and not m.is_compaction_summary]
    work = WindowWork(
        user_messages=len(users),
        tool_calls=sum(len(m.tool_calls) for m in messages),
        files_modified=len(files_touched(messages)[1]),
        chars=sum(len(m.text) for m in said),
    )
    if shows_work(work):
        return work  # what the user stated is read by the Observer; no need to count it here
    code = messages_about_code(messages)
    return work.model_copy(update={"statements": sum(len(user_statements(m.text, code)) for m in users)})


def shows_work(work: WindowWork) -> bool:
    return (work.user_messages >= MIN_USER_MESSAGES or work.tool_calls >= MIN_TOOL_CALLS
            or work.files_modified >= MIN_FILES_MODIFIED or work.chars >= MIN_CHARS)


def worth_observing(work: WindowWork) -> bool:
    """Work, or a short session in which the user stated something to keep."""
    return shows_work(work) or work.statements >= MIN_STATEMENTS


def describe(work: WindowWork) -> str:
    stated = f", {work.statements} statement{'s' if work.statements != 1 else ''} to keep" if work.statements else ""
    return (f"{work.user_messages} user message{'s' if work.user_messages != 1 else ''}, "
            f"{work.tool_calls} tool call{'s' if work.tool_calls != 1 else ''}, "
            f"{work.files_modified} modified file{'s' if work.files_modified != 1 else ''}, {work.chars:,} characters"
            f"{stated}")


def decide_observing(trigger: Trigger, window: WindowWork, session: WindowWork, session_over: bool) -> Observing:
    """Observed now, waiting for the next window, or skipped. A compaction window is always observed
    (what it summarizes is about to leave the context); a waiting window joins the next one, and a
    session over is observed for what the user stated in it even when it shows no work."""
    if trigger == "compaction" or shows_work(window):
        return "observed"
    if not session_over:
        return "waiting"
    return "observed" if worth_observing(session) else "skipped"


def is_idle(last_activity: datetime | None, now: datetime) -> bool:
    return last_activity is not None and now - last_activity >= SESSION_IDLE


def split_window(messages: Sequence[Message], after: str | None, waiting_from: str | None,
                 stop_at_compaction: bool = False) -> tuple[list[Message], list[Message], str | None]:
    """(the waiting backlog, the new messages, the id to record as sent).

    New messages come after `after` (all of them when it is None or not in this transcript); with
    `stop_at_compaction` they end before the newest compaction summary, which is recorded as sent
    (it only restates what came before it). The backlog is what was sent from `waiting_from` on
    without being observed."""
    ids = [m.id for m in messages]
    start = ids.index(after) + 1 if after in ids else 0
    new = list(messages[start:])
    sent = new[-1].id if new else None
    if stop_at_compaction:
        last = max((i for i, m in enumerate(new) if m.is_compaction_summary), default=None)
        if last is not None:
            sent, new = new[last].id, new[:last]
    backlog = list(messages[ids.index(waiting_from):start]) if waiting_from in ids and after in ids else []
    return backlog, new, sent


def window_after(transcript: Transcript, window: str) -> str | None:
    """The message a window starts after: `all` (None), `after:<message id>` (what came after an
    earlier event) or `since-compaction` (after the newest compaction summary)."""
    if window.startswith("after:"):
        return window.removeprefix("after:")
    if window == "since-compaction":
        return next((m.id for m in reversed(transcript.messages) if m.is_compaction_summary), None)
    return None


@dataclass(frozen=True)
class Window:
    messages: list[Message]  # what the event carries
    observing: Observing
    work: WindowWork
    sent: str | None  # the id to record as sent
    first_new: str | None
    key_entry: str | None  # what names the window in its dedupe key when its first message does not


def plan_window(transcript: Transcript, trigger: Trigger, window: str, waiting_from: str | None,
                session_over: bool, stop_at_compaction: bool) -> Window:
    """The event's messages and whether they are observed; an observed window takes the session's
    waiting backlog with it."""
    backlog, new, sent = split_window(transcript.messages, window_after(transcript, window), waiting_from,
                                      stop_at_compaction)
    work = window_work(backlog + new)
    observing = decide_observing(trigger, work, window_work(transcript.messages), session_over)
    carried = backlog + new if observing == "observed" else new
    key_entry = None
    if carried and backlog and carried[0] is backlog[0]:  # the waiting event already has that key
        key_entry = f"after:{backlog[-1].id}" if not new else f"from:{new[0].id}"
    return Window(carried, observing, work, sent, new[0].id if new else None, key_entry)
