"""Transcript messages → search documents for the "messages" tier (pure).

One document per user or assistant message with text; tool-only turns (tool calls and tool
results without words) and compaction summaries are left out. The embedded text is

    [8 May 2023] <the message>
    (after: <the last 200 characters of the previous turn>)

The date makes "when" questions findable; a little of the previous turn gives an answer its
question ("Yes, last Tuesday" alone is unfindable). Measured on LoCoMo (categories 1–4,
hybrid, messages tier, recall@10): no context 0.609 → 200 characters 0.681 (RRF); without the
date 0.661; 400 characters or the next turn too: no better. A role label ("User:") is optional.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from memory_pipeline.models import Message, Transcript, content_hash, stable_id
from memory_pipeline.stages.index.echoes import EchoTracker
from memory_pipeline.stages.index.passages import TIER as PASSAGES
from memory_pipeline.stages.index.sparse import weighted_counts
from memory_pipeline.stages.provenance import label_of

ROLE_LABELS = {"user": "User", "assistant": "Assistant"}
DEFAULT_CONTEXT_CHARS = 200
CONTEXT_MARK = "\n(after: "
# A turn this long stands on its own words: keyword search leaves out the previous turn's tail, which
# there adds words the turn does not say (lme-dev, where a user's turn follows a long assistant reply).
LONG_TURN_CHARS = 400
# The previous turn's tail is another speaker's words: keyword search counts each of its words at this
# share of one of the turn's own (term frequency and length). recall@10 / @5 against 1.0: lme-dev 0.692 /
# 0.574 → 0.696 / 0.583, LoCoMo 0.782 / 0.686 → 0.789 / 0.692; at 0.5 0.702 / 0.585 and 0.782 / 0.684;
# at 0.3 0.695 / 0.594 and 0.776 / 0.667 (docs/recall.md).
BORROWED_WEIGHT = 0.7
MAX_MESSAGE_CHARS = 4000  # a pasted log does not need all of its 100 KB embedded


@dataclass(frozen=True)
class DocOptions:
    context_chars: int = DEFAULT_CONTEXT_CHARS  # characters of the previous turn; 0 = none
    with_date: bool = True
    with_role: bool = False  # LoCoMo: "User:" labels cost 0.01 recall@10; the hit text still shows the role
    next_chars: int = 0  # characters of the next turn (the reply that confirms or asks back)


@dataclass
class MessageDoc:
    id: str
    text: str  # what is embedded and searched
    payload: dict = field(default_factory=dict)


def _day_start(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


def format_day(when: datetime | None) -> str:
    return f"{when.day} {when:%B %Y}" if when else ""


def _clip_tail(text: str, limit: int) -> str:
    """The last `limit` characters, started on a word boundary."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    tail = text[-limit:]
    space = tail.find(" ")
    return "…" + (tail[space + 1:] if 0 <= space < limit // 2 else tail)


def document_text(message_text: str, role: str, when: datetime | None, previous: str, options: DocOptions,
                  following: str = "") -> str:
    head = []
    if options.with_date and when is not None:
        head.append(f"[{format_day(when)}]")
    if options.with_role:
        head.append(f"{ROLE_LABELS.get(role, role.title())}:")
    body = " ".join(message_text.split())[:MAX_MESSAGE_CHARS]
    text = " ".join([*head, body])
    if options.context_chars > 0 and previous:
        text += f"{CONTEXT_MARK}{_clip_tail(previous, options.context_chars)})"
    if options.next_chars > 0 and following:
        text += f"\n(before: {' '.join(following.split())[:options.next_chars]})"
    return text


def keyword_text(payload: dict) -> str:
    """What keyword search matches for a point: its text, less the previous turn's tail when the point
    is a message of at least LONG_TURN_CHARS characters (the dense side keeps the whole document).
    recall@10 with BM25 k1 1.2 b 0.75: lme-dev 0.674 → 0.695 (145 questions, a partial ingest),
    LoCoMo 0.778 → 0.774; the tail left out of every turn: lme-dev 0.721, LoCoMo 0.721; of turns
    under 200 characters: 0.702 and 0.756."""
    text = str(payload.get("text", ""))
    if payload.get("tier") != "messages" or len(str(payload.get("message") or "")) < LONG_TURN_CHARS:
        return text
    return text.split(CONTEXT_MARK, 1)[0]


def keyword_parts(payload: dict) -> tuple[str, str]:
    """What keyword search matches for a point, as (its own words, the previous turn's tail it borrows):
    a long turn and every observation borrow nothing (`keyword_text`)."""
    text = keyword_text(payload)
    if payload.get("tier") != "messages":
        return text, ""
    own, _, borrowed = text.partition(CONTEXT_MARK)
    return own, borrowed.removesuffix(")")


def has_keywords(payload: dict) -> bool:
    """Whether keyword search indexes the point: every one but a turn's passage (a window of the turn's own
    words, which keyword search matches on the turn itself; stages/index/passages.py)."""
    return payload.get("tier") != PASSAGES


def keyword_counts(payload: dict) -> tuple[dict[str, float], float]:
    """A point's keyword term frequencies and length (`keyword_parts`, the borrowed tail's words at
    BORROWED_WEIGHT each): what both keyword indexes (the Edge shard's values, RecallIndex) count;
    nothing for a point keyword search leaves out (`has_keywords`)."""
    if not has_keywords(payload):
        return {}, 0.0
    return weighted_counts(*keyword_parts(payload), BORROWED_WEIGHT)


def message_documents(
    transcript: Transcript, *, day: str, session_id: str, options: DocOptions = DocOptions(), project: str = ""
) -> list[MessageDoc]:
    """The documents of one transcript, in order. Ids: stable_id(session, message id, content hash)."""
    return list(stream_message_documents(transcript.messages, day=day, session_id=session_id, options=options,
                                         project=project))


def stream_message_documents(
    messages: Iterable[Message], *, day: str, session_id: str, options: DocOptions = DocOptions(), project: str = ""
) -> Iterator[MessageDoc]:
    """`message_documents`, made as `messages` is read (one message ahead): a caller that hands out
    each message once holds a few of them at a time, not a session of 100k."""
    tracker = EchoTracker()  # sees every message: a memory tool call has no text of its own
    kept = ((m, tracker.echoes(m)) for m in messages)
    kept = ((m, echo) for m, echo in kept if not m.is_compaction_summary and m.role in ROLE_LABELS and m.text.strip())
    previous = ""
    current = next(kept, None)
    while current is not None:
        message, echo = current
        following = next(kept, None)
        text = document_text(message.text, message.role, message.timestamp, previous, options,
                             following[0].text if following is not None else "")
        payload = _payload(message, day, session_id, project)
        if echo:  # the agent repeating what memory gave it: not new evidence (stages/index/echoes.py)
            payload["echo"] = True
        yield MessageDoc(id=stable_id(session_id, message.id, content_hash(text)), text=text, payload=payload)
        previous, current = message.text, following


def _payload(message: Message, day: str, session_id: str, project: str) -> dict:
    when = message.timestamp
    return {
        "tier": "messages",
        "kind": "message",
        "date": day,
        "session_id": session_id,
        "project": project,
        "scope": "project",
        "role": message.role,
        "provenance": label_of(message, {}),  # who said it: user (typed), relayed, pasted, assistant
        "message": message.text[:MAX_MESSAGE_CHARS],
        "source_message_ids": [message.id],
        "time": when.strftime("%H:%M") if when else None,
        "created_at": (when or _day_start(day)).isoformat(),
        "created_ts": (when or _day_start(day)).timestamp(),
        "priority": None,
        "stale": False,
    }
