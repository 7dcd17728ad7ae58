"""`bench engine --quality`: the same ranking from both engines on real embeddings.

Every LoCoMo dev turn (read in place) is embedded with the real model and put, one point per
turn with its conversation as the project, into today's recall index and into a Qdrant Edge
shard whose HNSW is built and used even at this size (indexing threshold 1 KB, full scan only
under 10 KB of vectors); each question (categories 1–4) asks its own conversation with the
product's fusion. recall@10 = the share of a question's evidence turns in the top 10.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from benchmarks import engine_edge, engine_sides
from benchmarks.engine_data import Probe, Row, query_terms
from benchmarks.locomo import DEFAULT_DATA, evidence_ids, load_conversations, turn_text
from memory_pipeline.models import stable_id
from memory_pipeline.resources.vectors.recall_index import RecallIndex
from memory_pipeline.stages.index.sparse import sparse_vector

FORCED_HNSW = engine_edge.Knobs("forced-hnsw", indexing_threshold_kb=1, full_scan_threshold=10)


def _turn_rows(conversations, embedder) -> tuple[list[Row], dict[str, str]]:
    turns = [(c.sample_id, t) for c in conversations for s in c.sessions for t in s.turns]
    texts = [turn_text(t) for _, t in turns]
    vectors = np.asarray(embedder.encode(texts), dtype=np.float32)
    rows, dia_of = [], {}
    for (project, turn), text, vector in zip(turns, texts, vectors, strict=True):
        pid = stable_id("locomo", project, turn["dia_id"])
        dia_of[pid] = turn["dia_id"]
        rows.append(Row(pid, text, vector, sparse_vector(text), {
            "tier": "messages", "project": project, "session_id": project, "text": text,
            "source_message_ids": [turn["dia_id"]]}))
    return rows, dia_of


def _recall(answers: list[list[str]], evidence: list[list[str]], dia_of: dict[str, str]) -> float:
    found = [len({dia_of[pid] for pid in hits} & set(wanted)) / len(wanted)
             for hits, wanted in zip(answers, evidence, strict=True)]
    return round(sum(found) / len(found), 3)


def bench_engine_quality(data: Path = DEFAULT_DATA) -> dict:
    from memory_pipeline.config import Settings
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for

    embedder = embedder_for(Settings.from_env().embedding_model, Settings.from_env())
    conversations = load_conversations(data)
    rows, dia_of = _turn_rows(conversations, embedder)
    questions = [(c.sample_id, q) for c in conversations for q in c.questions if int(q["category"]) in (1, 2, 3, 4)]
    asked = [Probe(str(q["question"]), np.asarray(embedder.encode_query(str(q["question"])), dtype=np.float32),
                   query_terms(str(q["question"])), project) for project, q in questions]
    evidence = [evidence_ids(q) for _, q in questions]
    index = RecallIndex.from_columns([r.id for r in rows], [r.payload for r in rows], np.stack([r.dense for r in rows]))
    today = [engine_sides.today_query(index, probe) for probe in asked]
    with tempfile.TemporaryDirectory(prefix="mp-engine-q-") as tmp:
        shard = engine_edge.create(Path(tmp) / "edge", len(rows[0].dense), FORCED_HNSW)
        engine_edge.upsert(shard, engine_sides.edge_points(rows))
        shard.optimize()
        indexed = shard.info().indexed_vectors_count
        edge = [engine_sides.edge_query(shard, probe) for probe in asked]
        rrf = [engine_edge.hybrid_rrf(shard, p.dense.tolist(), p.terms, p.project) for p in asked]
        shard.close()
    same = sum(len(set(a) & set(b)) for a, b in zip(today, edge, strict=True)) / (10 * len(asked))
    return {"turns": len(rows), "questions": len(asked), "edge_indexed_vectors": indexed,
            "recall10_today": _recall(today, evidence, dia_of), "recall10_edge": _recall(edge, evidence, dia_of),
            "recall10_edge_rrf": _recall(rrf, evidence, dia_of), "overlap10": round(same, 3)}
