"""Days of a heavy user's Claude Code history at the real message-length distribution (deterministic by seed).

The lengths are measured from the shared real transcripts (`../shared/fixtures/transcripts`: the
Claude Code, pi and Codex sessions, the v3 copy of the pi session and subagent files left out),
parsed by the product's own parser: a user message with words, an assistant message with words,
a tool result. Each generated message takes the length of a real message of its role drawn at
random (the empirical distribution, not a fitted curve), and its text is a window of that length
cut from the real messages of that role, so the words, code and log lines tokenize as real ones do.

A session has the real mix: a user message, then assistant replies (on average as many per user
message as the real sessions have), each followed by tool calls and their results (as many per
reply as the real sessions have). Sessions run back to back from 08:00 until the day holds
`per_day` indexed messages (user and assistant messages with words: what the message index embeds),
about 1,000 for a developer who runs coding agents all day.
"""

from __future__ import annotations

import json
import random
import statistics
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchmarks.latency_day import default_fixtures

# The real sessions measured (the v3 pi file is the v1 file migrated: the same messages twice).
FIXTURE_FILES = ("claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", "claude-code/tool_heavy.jsonl",
                 "codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
                 "pi/before-compaction.jsonl")
ROLES = ("user", "assistant", "tool")
PROJECTS = ("/home/dev/orders-api", "/home/dev/billing-service", "/home/dev/mobile-app", "/home/dev/infra")
MAX_CHARS = 40_000  # a real tool result reaches 32 KB; nothing longer is drawn


@dataclass
class Lengths:
    """Character lengths of the real messages by role, their texts, and the session mix."""
    chars: dict[str, list[int]] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)  # the role's real messages, joined: windows are cut from it

    @property
    def replies_per_user(self) -> float:
        return len(self.chars["assistant"]) / max(1, len(self.chars["user"]))

    @property
    def tools_per_reply(self) -> float:
        return len(self.chars["tool"]) / max(1, len(self.chars["assistant"]))

    def summary(self) -> dict:
        """Count, median, p90 and max characters per role, and the mix: what the README and docs quote."""
        out: dict = {}
        for role in ROLES:
            values = sorted(self.chars[role])
            out[role] = {"messages": len(values), "median_chars": int(statistics.median(values)),
                         "p90_chars": values[int(0.9 * (len(values) - 1))], "max_chars": values[-1]}
        out["replies_per_user_message"] = round(self.replies_per_user, 2)
        out["tool_results_per_reply"] = round(self.tools_per_reply, 2)
        return out


def measure_lengths(fixtures: Path | None = None) -> Lengths:
    """The lengths of the real transcripts' messages, parsed by the product's parser."""
    from memory_pipeline.errors import BadInputError
    from memory_pipeline.stages.transcripts.parse import parse_transcript

    root = fixtures or default_fixtures()
    missing = [name for name in FIXTURE_FILES if not (root / name).is_file()]
    if missing:
        raise BadInputError(f"fixture transcripts missing under {root}: {missing}")
    found: dict[str, list[str]] = {role: [] for role in ROLES}
    for name in FIXTURE_FILES:
        for message in parse_transcript(root / name).messages:
            if message.is_compaction_summary:
                continue
            if message.role in ("user", "assistant") and message.text.strip():
                found[message.role].append(message.text)
            found["tool"].extend(r.text for r in message.tool_results if r.text.strip())
    return Lengths(chars={r: [min(MAX_CHARS, len(t)) for t in found[r]] for r in ROLES},
                   texts={r: "\n".join(found[r]) for r in ROLES})


def real_text(rng: random.Random, lengths: Lengths, role: str) -> str:
    """A real length of `role`, filled with a window of the role's real text starting on a word."""
    size = rng.choice(lengths.chars[role])
    corpus = lengths.texts[role]
    start = rng.randrange(len(corpus))
    space = corpus.find(" ", start)
    start = space + 1 if 0 <= space < start + 40 else start
    window = corpus[start:start + size]
    if len(window) < size:  # wrapped round the end
        window += "\n" + corpus[:size - len(window) - 1]
    return window if window.strip() else "ok"


def _poisson(rng: random.Random, mean: float) -> int:
    """Knuth's method: fine for the small means here."""
    limit, count, product = pow(2.718281828459045, -mean), 0, rng.random()
    while product > limit:
        count += 1
        product *= rng.random()
    return count


def _record(kind: str, session: str, cwd: str, when: datetime, message: dict, parent: str | None,
            rng: random.Random) -> tuple[dict, str]:
    uid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return {"type": kind, "uuid": uid, "parentUuid": parent, "sessionId": session, "cwd": cwd,
            "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "isSidechain": False, "version": "2.1.39",
            "message": message}, uid


def session_lines(rng: random.Random, lengths: Lengths, session: str, cwd: str, start: datetime,
                  indexed: int) -> tuple[list[str], int, datetime]:
    """One Claude Code session of about `indexed` user and assistant messages with words (the count made
    is returned, with the time of its last line)."""
    lines, parent, when, made, n = [], None, start, 0, 0
    while made < indexed:
        when += timedelta(seconds=rng.randint(20, 120))
        said = {"role": "user", "content": real_text(rng, lengths, "user")}
        record, parent = _record("user", session, cwd, when, said, parent, rng)
        lines.append(json.dumps(record))
        made += 1
        for _ in range(max(1, _poisson(rng, lengths.replies_per_user))):
            if made >= indexed:
                break
            n += 1
            calls = [{"type": "tool_use", "id": f"toolu_{session[:8]}_{n}_{k}", "name": "Bash",
                      "input": {"command": f"step {n}.{k}"}} for k in range(_poisson(rng, lengths.tools_per_reply))]
            when += timedelta(seconds=rng.randint(2, 20))
            message = {"id": f"msg_{session[:8]}_{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                       "content": [{"type": "text", "text": real_text(rng, lengths, "assistant")}, *calls],
                       "usage": {"input_tokens": 20_000, "output_tokens": 300}}
            record, parent = _record("assistant", session, cwd, when, message, parent, rng)
            lines.append(json.dumps(record))
            made += 1
            for call in calls:
                when += timedelta(seconds=rng.randint(1, 10))
                result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"],
                                                       "content": real_text(rng, lengths, "tool")}]}
                record, parent = _record("user", session, cwd, when, result, parent, rng)
                lines.append(json.dumps(record))
    return lines, made, when


def write_heavy_history(folder: Path, days: int, today: datetime, per_day: int = 1000, per_session: int = 125,
                        seed: int = 28, lengths: Lengths | None = None) -> dict:
    """`days` days before `today` of Claude Code sessions under `folder` (one subfolder per project, as
    ~/.claude/projects holds them). Returns what was written."""
    lengths = lengths or measure_lengths()
    rng = random.Random(seed)
    sessions = messages = size = 0
    for back in range(days, 0, -1):
        day = (today - timedelta(days=back)).replace(hour=8, minute=0, second=0, microsecond=0, tzinfo=timezone.utc)
        made, when = 0, day
        while made < per_day:
            session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            cwd = rng.choice(PROJECTS)
            lines, count, when = session_lines(rng, lengths, session, cwd, when + timedelta(minutes=2),
                                               min(per_session, per_day - made))
            path = folder / cwd.replace("/", "-") / f"{session}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            text = "\n".join(lines) + "\n"
            path.write_text(text, encoding="utf-8")
            sessions, made, size = sessions + 1, made + count, size + len(text.encode())
        messages += made
    return {"days": days, "sessions": sessions, "indexed_messages": messages, "transcript_mb": round(size / 1e6, 1)}
