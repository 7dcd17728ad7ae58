"""Pydantic contracts between stages. Each record carries its provenance."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Role = Literal["user", "assistant", "tool", "system"]
TranscriptFormat = Literal["claude-code", "pi", "codex", "text"]
Trigger = Literal["compaction", "shutdown"]
Priority = Literal["high", "medium", "low"]

PRIORITY_EMOJI: dict[str, str] = {"high": "🔴", "medium": "🟡", "low": "🟢"}
EMOJI_PRIORITY: dict[str, str] = {v: k for k, v in PRIORITY_EMOJI.items()}

EVENT_NAMES: dict[str, str] = {
    "compaction": "memory/session.compaction.pending",
    "shutdown": "memory/session.ended",
}
SCHEMA_VERSION = 1
ID_NAMESPACE = uuid.UUID("6f1c1c9e-3a43-4d59-9d0e-7e0b6a4f3c21")


def stable_id(*parts: str) -> str:
    """A uuid5 over the parts: the same content always gets the same id."""
    return str(uuid.uuid5(ID_NAMESPACE, "\x1f".join(parts)))


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- transcripts -------------------------------------------------------------------------


class ToolCall(BaseModel):
    id: str
    name: str
    input: str = ""  # rendered arguments, already truncated


class ToolResult(BaseModel):
    call_id: str
    text: str = ""
    is_error: bool = False


class Message(BaseModel):
    id: str  # the message id as it appears in the source file
    role: Role
    timestamp: datetime | None = None
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_results: list[ToolResult] = Field(default_factory=list)
    is_compaction_summary: bool = False
    context_tokens: int | None = None  # assistant turns: prompt size the model saw
    relayed: bool = False  # a user-role entry the user did not type (a subagent's prompt from its parent agent)
    pasted: bool = False  # a user turn the client's prompt history ties to a paste (stages/transcripts/pastes.py)


class Transcript(BaseModel):
    format: TranscriptFormat
    session_id: str
    cwd: str | None = None
    title: str | None = None
    messages: list[Message] = Field(default_factory=list)
    files_read: list[str] = Field(default_factory=list)
    files_modified: list[str] = Field(default_factory=list)
    cut: str | None = None  # what was not read of a transcript over its limits (stages/transcripts/lines.py)

    @property
    def user_message_count(self) -> int:
        return sum(1 for m in self.messages if m.role == "user" and m.text and not m.is_compaction_summary)

    @property
    def started_at(self) -> datetime | None:
        return next((m.timestamp for m in self.messages if m.timestamp), None)

    @property
    def ended_at(self) -> datetime | None:
        return next((m.timestamp for m in reversed(self.messages) if m.timestamp), None)


class SerializedTranscript(BaseModel):
    """`[HH:MM] [User] (m3): …` blocks plus the map from short refs to source message ids."""

    text: str
    refs: dict[str, str] = Field(default_factory=dict)


# --- events ------------------------------------------------------------------------------


class TranscriptRef(BaseModel):
    path: str  # relative to the workspace: the snapshot, or (with `parts`) its last part
    format: TranscriptFormat
    sha256: str  # of the whole snapshot: every part's bytes in order
    # earlier parts of the snapshot, oldest first (each event stores only what is new since the
    # session's previous snapshot); None = `path` holds the whole transcript (events before parts)
    parts: list[str] | None = None


Observing = Literal["observed", "waiting", "skipped"]


class WindowWork(BaseModel):
    """The work in a window of a session: what decides whether it is worth observing."""

    model_config = ConfigDict(populate_by_name=True)

    user_messages: int = Field(0, alias="userMessages", ge=0)
    tool_calls: int = Field(0, alias="toolCalls", ge=0)
    files_modified: int = Field(0, alias="filesModified", ge=0)
    chars: int = Field(0, ge=0)  # user and assistant text
    # what the user asked to keep or stated as standing (counted only in a window short of the rest)
    statements: int = Field(0, ge=0)


class EventData(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="ignore")

    session_id: str = Field(alias="sessionId")
    dedupe_key: str = Field(alias="dedupeKey")
    trigger: Trigger
    message_count: int = Field(alias="messageCount", ge=0)
    user_message_count: int = Field(0, alias="userMessageCount", ge=0)
    tokens_before: int = Field(0, alias="tokensBefore", ge=0)
    files_read: list[str] = Field(default_factory=list, alias="filesRead")
    files_modified: list[str] = Field(default_factory=list, alias="filesModified")
    captured_at: datetime = Field(alias="capturedAt")
    schema_version: Literal[1] = Field(alias="schemaVersion")
    session_name: str | None = Field(None, alias="sessionName")
    duration: float | None = Field(None, ge=0)
    messages: str | None = None  # inline serialized transcript
    transcript: TranscriptRef | None = None  # or a snapshot in the workspace
    window_start_id: str | None = Field(None, alias="windowStartId")  # first message of the window
    # last message of the window when the snapshot goes on after it (a compaction's window ends
    # before the summary); None = the window runs to the snapshot's end
    window_end_id: str | None = Field(None, alias="windowEndId")
    cut: str | None = None  # what of the transcript was not read (over its size or line limits), said in one line
    # user messages in the whole session so far (the window may be the tail of a resumed session)
    session_user_message_count: int | None = Field(None, alias="sessionUserMessageCount", ge=0)
    # the session's project (stages/projects.py): from the hook's cwd, the transcript's, or `--project`;
    # None on events written before projects existed (resolved from the transcript when read)
    project: str | None = None
    # decided when the event is written (stages/windows.py): observed now, waiting to be observed
    # with the session's next window, or skipped (the session ended without real work);
    # None on older events (then the rule of 5 user messages applies)
    observing: Observing | None = None
    work: WindowWork | None = None  # the work in the window the decision was made on


class SessionEvent(BaseModel):
    name: Literal["memory/session.compaction.pending", "memory/session.ended"]
    data: EventData

    @property
    def day(self) -> str:
        """The partition key: the capture date in the offset the event was written with."""
        return self.data.captured_at.date().isoformat()


class QuarantineEntry(BaseModel):
    file: str
    reason: str
    quarantined_at: datetime


# --- observations ------------------------------------------------------------------------


class Fact(BaseModel):
    id: str = ""
    priority: Priority
    time: str | None = None  # "HH:MM" taken from the transcript, never invented
    text: str
    source_message_ids: list[str] = Field(default_factory=list)
    # the role of each cited message: user, assistant, tool, system or summary (compaction summary)
    source_roles: list[str] = Field(default_factory=list)
    scope: Literal["project", "user"] = "project"  # "user": a preference about the user, shown in every project

    @property
    def emoji(self) -> str:
        return PRIORITY_EMOJI[self.priority]


class Segment(BaseModel):
    title: str = ""
    narrative: str = ""
    facts: list[Fact] = Field(default_factory=list)


class ObserverOutput(BaseModel):
    date: str | None = None
    segments: list[Segment] = Field(default_factory=list)
    current_task: str | None = None
    suggested_response: str | None = None
    format: Literal["segments", "flat", "fallback", "empty"] = "empty"

    @property
    def facts(self) -> list[Fact]:
        return [f for s in self.segments for f in s.facts]


class LLMUsage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_hits: int = 0
    calls: int = 0

    def __add__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_hits=self.cache_hits + other.cache_hits,
            calls=self.calls + other.calls,
        )


class Observation(BaseModel):
    id: str  # stable_id(dedupe_key)
    dedupe_key: str
    session_id: str
    session_name: str | None = None
    project: str = ""  # "" when unknown (stages/projects.py)
    trigger: Trigger
    date: str
    captured_at: datetime
    segments: list[Segment] = Field(default_factory=list)
    current_task: str | None = None
    suggested_response: str | None = None
    format: str = "empty"
    files_read: list[str] = Field(default_factory=list)
    files_modified: list[str] = Field(default_factory=list)
    # the window is work on software (a tool called or answered, code in a message: observer_rules.about_code),
    # decided once for the Reflector and the ledger; None: observed before it was recorded (they read the text)
    about_code: bool | None = None
    token_count: int = 0
    usage: LLMUsage = Field(default_factory=LLMUsage)
    code_version: str = ""
    unread_chars: int = 0  # the window's oldest characters the Observer did not read (over its input limit)
    prompt_sha: str = ""  # the Observer prompt's sha256 (first 12) and the model: lineage for `trace`
    model: str = ""
    schema_version: int = SCHEMA_VERSION

    @property
    def facts(self) -> list[Fact]:
        return [f for s in self.segments for f in s.facts]

    @property
    def priority(self) -> Priority:
        """The highest priority among the facts (seed: the block's priority)."""
        found = {f.priority for f in self.facts}
        return next((p for p in ("high", "medium", "low") if p in found), "low")


# --- recall ------------------------------------------------------------------------------


class MemorySource(BaseModel):
    """One place a memory was observed: a session's fact and the messages it cites (ids, no text).
    A memory maintenance merged from several sessions has one per fact it folded in."""

    fact_id: str = ""
    session_id: str = ""
    date: str = ""
    project: str = ""
    observation_id: str = ""
    message_ids: list[str] = Field(default_factory=list)
    roles: list[str] = Field(default_factory=list)  # the provenance label of each cited message, when recorded


class RecallHit(BaseModel):
    id: str
    tier: Literal["observations", "messages"]
    text: str
    score: float
    date: str
    session_id: str
    priority: Priority | None = None
    source_message_ids: list[str] = Field(default_factory=list)
    why: dict[str, int | float | None] = Field(default_factory=dict)
    replaced_by: str | None = None  # "EVT-…: what replaced it" when the ledger superseded this memory
    project: str = ""
    scope: str = "project"
    # every source of the memory, oldest first (one unless maintenance merged it; at most MAX_SOURCES)
    sources: list[MemorySource] = Field(default_factory=list)
    # who said it (stages/provenance.point_labels): a message its label, a fact the labels of the
    # messages it cites ("user" only for typed words); "unknown" where nothing was recorded
    provenance: list[str] = Field(default_factory=list)
    kind: str = ""  # what the point is beyond its tier: "checkpoint" (a session's task checkpoint), else ""


# --- reflection and review ---------------------------------------------------------------

MemorySection = Literal["User", "Hard Rules", "Lessons", "System Architecture", "Patterns"]
MEMORY_SECTIONS: tuple[str, ...] = ("User", "Hard Rules", "Lessons", "System Architecture", "Patterns")
# Where an approved friction fix is applied: MEMORY.md (in its section), or the project's own file.
FixTarget = Literal["MEMORY.md", "CLAUDE.md", "AGENTS.md"]
ProposalStatus = Literal["pending", "approved", "rejected", "expired"]


class ProposalDraft(BaseModel):
    """One line the Reflector proposes for MEMORY.md, with the observations it came from."""

    section: MemorySection
    text: str
    refs: list[str] = Field(default_factory=list)  # the prompt's short refs, e.g. F3, O1
    source_fact_ids: list[str] = Field(default_factory=list)
    source_observation_ids: list[str] = Field(default_factory=list)
    sessions: list[str] = Field(default_factory=list)
    quotes_transcript: bool = False
    project: str = ""  # "" for a memory about the user (every project) or of no known project


class ReflectorOutput(BaseModel):
    proposals: list[ProposalDraft] = Field(default_factory=list)
    summary: str = ""
    format: Literal["tagged", "untagged", "empty"] = "empty"


class Reflection(BaseModel):
    """The `reflections` asset's output for one day (reflections/YYYY-MM-DD.json)."""

    date: str
    proposals: list[ProposalDraft] = Field(default_factory=list)
    summary: str = ""
    observation_ids: list[str] = Field(default_factory=list)
    sessions: list[str] = Field(default_factory=list)
    redistilled_ids: list[str] = Field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    guidance_level: int = 0
    attempts: int = 0
    usage: LLMUsage = Field(default_factory=LLMUsage)
    code_version: str = ""


class Proposal(BaseModel):
    """A staged proposal (Redis hash memory:review:proposal:{id}): a Reflector line for MEMORY.md
    (p-YYYYMMDD-NNN-xxxx), or a friction fix (f-YYYYMMDD-NNN-xxxx) with its target, evidence and severity."""

    id: str  # p-YYYYMMDD-NNN-xxxx or f-YYYYMMDD-NNN-xxxx
    section: MemorySection
    text: str
    status: ProposalStatus = "pending"
    created: str  # YYYY-MM-DD: the day the proposal is about (its reflection's partition)
    staged: str | None = None  # YYYY-MM-DD it entered review: the 7-day review clock starts here
    source_observation_ids: list[str] = Field(default_factory=list)
    source_fact_ids: list[str] = Field(default_factory=list)
    sessions: list[str] = Field(default_factory=list)
    quotes_transcript: bool = False
    original_text: str = ""
    decided: str | None = None  # the day of approval, rejection or expiry
    decided_by: str | None = None  # the surface and account that approved or rejected it
    promoted: bool = False
    triage: str = ""  # promote | reject | needs-review (stages/review/triage.py)
    triage_reason: str = ""
    project: str = ""  # the project's MEMORY.md it is promoted into; "" = MEMORY.md (the user, every project)
    replaces: str = ""  # the MEMORY.md line an approval with --replace swaps for this one (as written)
    # friction fixes only
    target: FixTarget = "MEMORY.md"
    target_dir: str = ""  # the project folder holding CLAUDE.md / AGENTS.md
    title: str = ""
    severity: float = 0.0
    source_message_ids: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)  # one readable line per occurrence
    pattern: str = ""  # what recurred (matched against later findings: did the fix work?)
    friction_kind: str = ""  # correction, command-failure or failure
    recurring_of: str = ""  # the approved fix this one escalates
    applied_to: str = ""  # the file an approved fix was written into

    @property
    def is_fix(self) -> bool:
        return self.id.startswith("f-")


# --- agent hooks and compaction recovery ---------------------------------------------------

ContextZone = Literal["cold", "warm", "hot"]


class HookPayload(BaseModel):
    """The JSON a Claude Code hook reads on stdin (the fields this project uses; others ignored)."""

    model_config = ConfigDict(extra="ignore")

    session_id: str
    hook_event_name: str
    transcript_path: str | None = None
    cwd: str | None = None
    trigger: str | None = None  # PreCompact: manual | auto
    reason: str | None = None  # SessionEnd
    source: str | None = None  # SessionStart: startup | resume | clear | compact
    prompt: str | None = None  # UserPromptSubmit
    last_assistant_message: str | None = None  # Stop
    context_window: object = None  # the model's window, when the client reports it (a number or an object)


class CachedRecall(BaseModel):
    """One recall query run for the current task, and what it returned."""

    query: str
    hits: list[RecallHit] = Field(default_factory=list)
    at: datetime


class TaskCheckpoint(BaseModel):
    """What the session was doing, saved in the hot zone and before a compaction."""

    current_task: str = ""
    user_messages: list[str] = Field(default_factory=list)  # the last few user intents
    files_modified: list[str] = Field(default_factory=list)  # most recent first
    context_percent: float | None = None
    reason: Literal["hot-zone", "pre-compact"]
    captured_at: datetime
    project: str = ""  # its search point's project: the hook folder's (resources.projects.resolve_project)


class PendingCompaction(BaseModel):
    """A PreCompact the client may still abandon: its event is written once the compaction shows."""

    trigger: str | None = None  # manual | auto
    tokens_before: int = 0
    at: datetime


class HookSessionState(BaseModel):
    """Per-session hook state (state/hooks/<session>.json), shared by separate hook processes."""

    session_id: str
    zone: ContextZone = "cold"
    context_tokens: int | None = None
    context_window: int | None = None
    task_hash: str = ""  # the recent user messages the recall cache was last filled for
    recall_cache: list[CachedRecall] = Field(default_factory=list)  # newest last
    recall_started_at: datetime | None = None  # a background refresh in flight
    checkpoint: TaskCheckpoint | None = None
    compaction_count: int = 0  # SessionStart(compact) seen
    last_compact_at: datetime | None = None
    compactions_emitted: int = 0  # PreCompact events written
    last_event_message_id: str | None = None  # the last message an emitted event covered
    # the first message of windows sent but not yet observed (they wait for the next window)
    waiting_from_id: str | None = None
    transcript_path: str | None = None  # where the client writes the session (from its hooks)
    pending_compaction: PendingCompaction | None = None  # PreCompact seen, the compaction not yet confirmed
    shown_window: int | None = None  # the window an automatic compaction showed (what the client does)
    pending_queries: list[str] = Field(default_factory=list)  # for the background recall refresh
    project: str | None = None  # the session's project (its hooks' cwd); None or "" = none known: the user's own memories
    updated_at: datetime | None = None


class StorePoint(BaseModel):
    """One point: a UUID id, its text, optional dense and sparse vectors, and payload."""

    id: str
    text: str
    dense: list[float] | None = None
    sparse: tuple[list[int], list[float]] | None = None
    payload: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _uuid(cls, value: str) -> str:
        try:
            return str(uuid.UUID(value))
        except ValueError as exc:
            raise ValueError(f"point id must be a UUID string (use models.stable_id), got {value!r}") from exc

    @model_validator(mode="after")
    def _sparse_pairs(self) -> StorePoint:
        if self.sparse is not None and len(self.sparse[0]) != len(self.sparse[1]):
            raise ValueError("sparse indices and values differ in length")
        return self


class StoreHit(BaseModel):
    """A query result: the point id, its score for that query, and its payload."""

    id: str
    score: float
    payload: dict[str, Any] = Field(default_factory=dict)
