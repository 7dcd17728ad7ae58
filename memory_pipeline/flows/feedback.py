"""Echo/fizzle: record what the hooks gave a session, queue the agent's answers, judge them later.

A memory given to a session is judged on the session's answers: it is *used* (+0.1) as soon as an
answer echoes it, *ignored* (−0.05) when the session ends or after ANSWERS_TO_DECIDE answers
without it. Scores are bounded, kept in Redis, and written onto the memory's point so recall
ranks by them and shows them in `why`. Judging loads the embedding model, so the Stop hook only
queues; `memory-pipeline feedback` and the nightly maintenance judge the queue.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field

import numpy as np

from memory_pipeline.ports import Embedder, ShardedIndex
from memory_pipeline.resources.files.feedback import FeedbackFiles
from memory_pipeline.resources.redis.redis_store import RedisStore
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.feedback.echo import Injected, answer_passages, answer_tokens, judge, next_score

ANSWERS_TO_DECIDE = 5


@dataclass
class FeedbackReport:
    answers: int = 0
    used: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)


def _cosines(embedder: Embedder, items: list[dict], answer: str) -> list[float]:
    passages = answer_passages(answer)
    if not items or not passages:
        return [0.0] * len(items)
    vectors = np.asarray(embedder.encode([i["text"] for i in items] + passages), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    return (vectors[: len(items)] @ vectors[len(items):].T).max(axis=1).tolist()


def judge_answer(files: FeedbackFiles, redis: RedisStore, embedder: Embedder, queued: dict) -> list[dict]:
    """Settle the session's waiting memories against one answer; returns the verdict rows."""
    session = queued["session_id"]
    items = files.injected(session)
    waiting = [i for i in items if not i.get("settled")]
    cosines = _cosines(embedder, waiting, queued["answer"])
    tokens = answer_tokens(queued["answer"])
    rows = []
    for item, cosine in zip(waiting, cosines, strict=True):
        verdict = judge(Injected(item["id"], item["text"]), tokens, cosine)
        item["answers"] += 1
        if verdict.used or queued["final"] or item["answers"] >= ANSWERS_TO_DECIDE:
            score = next_score(redis.feedback([item["id"]])[item["id"]], verdict.used)
            redis.record_feedback(item["id"], score, verdict.used)
            item["settled"] = "used" if verdict.used else "ignored"
            rows.append({"session_id": session, "id": item["id"], "verdict": item["settled"], "score": score,
                         "matched": verdict.matched, "cosine": verdict.cosine, "at": queued["at"]})
    files.save_injected(session, items)
    return rows


def process_feedback(workspace: Workspace, redis: RedisStore, embedder: Embedder,
                     store: ShardedIndex | None = None) -> FeedbackReport:
    """Judge every queued answer, oldest first; then write the new scores onto the recall points."""
    files, report, rows = FeedbackFiles(workspace), FeedbackReport(), []
    for path in files.queued():
        queued = json.loads(path.read_text(encoding="utf-8"))
        judged = judge_answer(files, redis, embedder, queued)
        files.append_verdicts(judged)
        path.unlink()
        rows += judged
        report.answers += 1
    report.used = sorted({r["id"] for r in rows if r["verdict"] == "used"})
    report.ignored = sorted({r["id"] for r in rows if r["verdict"] == "ignored"})
    if store is not None and rows:
        write_scores(store, redis, {r["id"] for r in rows})
    return report


def write_scores(store: ShardedIndex, redis: RedisStore, ids: set[str]) -> None:
    """The scores onto the points recall ranks, fetched by id (ids that are not points, MEMORY.md
    lines, are skipped)."""
    points = {point_id: i for i in sorted(ids) if (point_id := _point_id(i))}
    scores = redis.feedback(sorted(points.values()))
    for point in store.retrieve(sorted(points)):
        store.for_day(str(point.payload.get("date"))).set_payload([point.id], {"feedback": scores[points[point.id]]})


def _point_id(memory_id: str) -> str | None:
    try:
        return str(uuid.UUID(memory_id))
    except ValueError:
        return None
