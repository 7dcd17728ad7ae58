"""LoCoMo recall harness: conversations → Claude Code transcripts → the normal ingest path.

Each session of a conversation becomes one Claude Code JSONL transcript: speaker_a's turns are
user lines, speaker_b's assistant lines, each line's `uuid` is the dialog id ("D1:3"), so the
ids survive parsing as `source_message_ids`. Every turn's text starts with its speaker's name
("Caroline: …", as in a group chat log), and a shared photo adds its caption (the dataset's
`blip_caption`; the image `query` field is left out). Timestamps come from the session date
("1:56 pm on 8 May, 2023"), one second per turn. A conversation that starts before the
partitions' first day (2023-01-01) is moved forward by whole years (dates keep day and month).
Events are emitted with `use_transcript_time=True` and ingested by `flows.ingest.ingest` (the
sensor intake and the Dagster ingest_job, observation and message indexing included).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memory_pipeline.config import Settings, set_process_environment

LOCOMO_START = "2023-01-01"  # conversations are dated from here: a fixed first day of the partitions

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "bench" / "locomo-dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


@dataclass
class LocomoSession:
    number: int
    started: datetime
    turns: list[dict]


@dataclass
class LocomoConversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: list[LocomoSession]
    questions: list[dict]
    year_shift: int = 0

    @property
    def last_date(self) -> datetime:
        last = self.sessions[-1]
        return last.started + timedelta(seconds=len(last.turns))


def parse_session_date(text: str) -> datetime:
    """"1:56 pm on 8 May, 2023" → an aware UTC datetime."""
    return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def _shift_years(when: datetime, years: int) -> datetime:
    return when.replace(year=when.year + years) if years else when


def evidence_ids(question: dict) -> list[str]:
    """The question's evidence dialog ids (a few entries hold several, split on ';' or spaces)."""
    found: list[str] = []
    for entry in question.get("evidence") or []:
        found.extend(part for part in str(entry).replace(";", " ").split() if part)
    return list(dict.fromkeys(found))


def load_conversations(path: Path = DEFAULT_DATA, limit_sessions: int | None = None) -> list[LocomoConversation]:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    start = datetime.fromisoformat(Settings.from_env().partitions_start or LOCOMO_START).replace(tzinfo=timezone.utc)
    conversations = []
    for sample in raw:
        conv = sample["conversation"]
        numbers = sorted(int(k.split("_")[1]) for k in conv if k.startswith("session_") and k.count("_") == 1)
        sessions = [LocomoSession(n, parse_session_date(conv[f"session_{n}_date_time"]), conv[f"session_{n}"])
                    for n in numbers if conv.get(f"session_{n}")]
        sessions.sort(key=lambda s: s.started)
        shift = 0
        while _shift_years(sessions[0].started, shift) < start:
            shift += 1
        for session in sessions:
            session.started = _shift_years(session.started, shift)
        if limit_sessions is not None:
            sessions = sessions[:limit_sessions]
        kept = {t["dia_id"] for s in sessions for t in s.turns}
        questions = [q for q in sample["qa"] if evidence_ids(q) and set(evidence_ids(q)) <= kept]
        conversations.append(LocomoConversation(sample["sample_id"], conv["speaker_a"], conv["speaker_b"],
                                                sessions, questions, shift))
    return conversations


def turn_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn.get('text', '').strip()}"
    if turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text


def session_jsonl(conversation: LocomoConversation, session: LocomoSession) -> str:
    """One Claude Code JSONL transcript for a LoCoMo session."""
    session_id = f"locomo-{conversation.sample_id}-s{session.number}"
    lines, parent = [], None
    for i, turn in enumerate(session.turns):
        when = (session.started + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        user = turn["speaker"] == conversation.speaker_a
        if user:
            message = {"role": "user", "content": turn_text(turn)}
        else:
            message = {"id": f"msg-{turn['dia_id']}", "role": "assistant", "model": "locomo",
                       "content": [{"type": "text", "text": turn_text(turn)}]}
        lines.append(json.dumps({
            "type": "user" if user else "assistant", "uuid": turn["dia_id"], "parentUuid": parent,
            "sessionId": session_id, "cwd": "/locomo", "timestamp": when, "isSidechain": False, "message": message,
        }, ensure_ascii=False))
        parent = turn["dia_id"]
    return "\n".join(lines) + "\n"


def ingest_conversation(conversation: LocomoConversation, root: Path, definitions):
    """Write the transcripts, emit one event per session, run the ingest; returns the workspace."""
    from memory_pipeline.flows.intake.emit import emit_session_event
    from memory_pipeline.flows.intake.ingest import ingest
    from memory_pipeline.resources.workspace import Workspace

    set_process_environment(MEMORY_WORKSPACE=str(root / "ws"), DAGSTER_HOME=str(root / "dagster"),
                            MEMORY_PARTITIONS_START=Settings.from_env().partitions_start or LOCOMO_START)
    workspace = Workspace(root / "ws").create()
    settings = Settings.from_env()  # once, after the environment names this workspace
    folder = root / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    for session in conversation.sessions:
        path = folder / f"{conversation.sample_id}-s{session.number}.jsonl"
        path.write_text(session_jsonl(conversation, session), encoding="utf-8")
        emit_session_event(workspace, path, trigger="shutdown", session_id=f"locomo-{conversation.sample_id}-s{session.number}",
                           format="claude-code", use_transcript_time=True, settings=settings)
    report = ingest(workspace, definitions, settings)
    if not report.success:
        raise RuntimeError(f"ingest failed: {[d.error for d in report.days if not d.success]}")
    if report.quarantined:
        raise RuntimeError(f"events quarantined: {report.quarantined}")
    return workspace
