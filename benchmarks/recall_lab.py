"""A fast in-process recall evaluation: load a dev set's points and questions once, score ranking
variants in seconds (`python -m benchmarks.recall_lab`).

Points come from an ingested workspace (`--workspace ROOT`, what `bench recall --quality --workdir`
keeps: its recall index, observations included) or, before one exists, straight from the dev set's
transcripts: the message documents the product makes (`stages/index/message_docs.py`), embedded by
the product's embedder once and kept in a cache keyed by each text's hash (messages tier only, no
Observer). Each question is embedded once; every variant runs `RecallEngine.search` (the one ranking
the CLI runs) over the same index, clock and query vectors. Figures are recall@10 / @5 per question
type, beside the BM25 anchor over the same turns (`bm25_turns.py`). For trying ideas; a kept idea is
confirmed by `memory-pipeline bench recall --quality` through the product path.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from benchmarks.bm25_turns import index_turns
from benchmarks.lme import load_questions
from benchmarks.locomo import load_conversations, session_jsonl
from benchmarks.locomo_eval import Scores, locomo_questions
from benchmarks.locomo_import import moved_to_recent
from memory_pipeline.config import Settings
from memory_pipeline.resources.vectors.recall_index import RecallIndex
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.index.message_docs import DocOptions, stream_message_documents
from memory_pipeline.stages.recall.rank import RankOptions, RecallFilters
from memory_pipeline.stages.transcripts.parse import parse_transcript

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "bench"


def _sessions_lme(folder: Path):
    for path in sorted((folder / "transcripts").glob("*.jsonl")):
        yield path.stem, parse_transcript(path, format="claude-code")


def _sessions_locomo(conv):
    for session in conv.sessions:
        text = session_jsonl(conv, session)
        yield f"locomo-{conv.sample_id}-s{session.number}", parse_transcript(text, format="claude-code")


def transcript_points(sessions, options: DocOptions = DocOptions(), project: str = "") -> tuple[list, list, list]:
    """(ids, payloads, texts) of every message document, as the product makes them."""
    ids, payloads, texts = [], [], []
    for session_id, transcript in sessions:
        first = next((m.timestamp for m in transcript.messages if m.timestamp), None)
        day = first.date().isoformat() if first else "2026-01-01"
        for doc in stream_message_documents(transcript.messages, day=day, session_id=session_id, options=options,
                                            project=project):
            ids.append(doc.id)
            payloads.append(doc.payload | {"text": doc.text})
            texts.append(doc.text)
    return ids, payloads, texts


def embedded(texts: list[str], cache: Path, embedder) -> np.ndarray:
    """Each text's vector, from `cache` (an npz keyed by text hash) or the embedder; the cache grows."""
    keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
    known: dict[str, np.ndarray] = {}
    if cache.exists():
        with np.load(cache) as stored:
            known = dict(zip(stored["keys"].tolist(), stored["vectors"]))
    missing = [i for i, k in enumerate(keys) if k not in known]
    if missing:
        started = time.perf_counter()
        vectors = embedder.encode([texts[i] for i in missing])
        print(f"embedded {len(missing)} texts in {time.perf_counter() - started:.0f} s", flush=True)
        for i, vector in zip(missing, vectors, strict=True):
            known[keys[i]] = np.asarray(vector, dtype=np.float32)
        tmp = cache.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(list(known)), vectors=np.stack(list(known.values())))
        tmp.replace(cache)
    return np.stack([known[k] for k in keys])


class _Remembered:
    """The embedder with every query's vector kept: one embedding per question, shared by every variant."""

    def __init__(self, embedder) -> None:
        self.embedder, self.vectors = embedder, {}
        self.dimension = embedder.dimension

    def encode_query(self, text: str) -> list[float]:
        if text not in self.vectors:
            self.vectors[text] = self.embedder.encode_query(text)
        return self.vectors[text]


class Lab:
    """One dev set's index and questions (LoCoMo: one index per conversation, as the bench's workspaces),
    loaded once; `score(options)` runs every question."""

    def __init__(self, name: str, parts: list[tuple[RecallIndex, list]], overall: str, project: str, embedder,
                 now: float) -> None:
        from memory_pipeline.flows.recall.engine import RecallEngine

        self.name, self.parts, self.overall, self.project = name, parts, overall, project
        self.embedder, self.now = _Remembered(embedder), now
        self.workspaces: list[Path] = []  # each part's ingested workspace, when loaded from one
        self.labels: list[str] = []  # each part's name: "lme-dev", or its LoCoMo conversation
        self.edge_batch = 0  # points per write into the Edge shard (0: all at once)
        self._engine = RecallEngine
        self.anchors = [index_turns(index) for index, _ in parts]

    @property
    def questions(self) -> list:
        return [q for _, questions in self.parts for q in questions]

    @property
    def points(self) -> int:
        return sum(len(index) for index, _ in self.parts)

    def engine(self, options: RankOptions, index: RecallIndex, part: int | None = None):
        """The product's engine over `index`; with the part's ingested workspace (`workspaces`), its ledger's
        superseded facts too (`memory/index/superseded.json`), as the product ranks them."""
        root = self.workspaces[part] if part is not None and part < len(self.workspaces) else None
        engine = self._engine(Workspace(root or Path("/nonexistent-recall-lab")), Settings.from_env(), options,
                              embedder=self.embedder)
        engine._index = index
        engine._generation = lambda: engine._index.generation
        return engine

    def edge(self, index: RecallIndex):
        """The same points written into a Qdrant Edge shard (the product's store: its BM25 values, its
        payload indexes), queried by the engine's shard source: the embedded product path."""
        import tempfile

        from memory_pipeline.resources.vectors.edge_recall import ShardRecall
        from memory_pipeline.resources.vectors.edge_store import EdgeStore
        from memory_pipeline.resources.vectors.vector_points import StorePoint

        if not hasattr(self, "_shards"):
            self._shards, self._folder = {}, tempfile.TemporaryDirectory(prefix="recall-lab-edge-")
        if id(index) not in self._shards:
            store = EdgeStore(Path(self._folder.name) / f"{len(self._shards)}" / "vectors",
                              dimension=index.dense.shape[1])
            points = [StorePoint(id=pid, text=payload["text"], dense=index.dense[row].tolist(),
                                 payload={k: v for k, v in payload.items() if k != "text"})
                      for row, (pid, payload) in enumerate(zip(index.ids, index.payloads, strict=True))]
            step = self.edge_batch or len(points) or 1  # a shard that grows a batch at a time, as ingest writes
            for start in range(0, len(points), step):
                store.upsert(points[start:start + step])
            self._shards[id(index)] = ShardRecall(store)
        return self._shards[id(index)]

    def score(self, options: RankOptions | None = None, anchor: bool = False, reindex=None) -> dict[str, Scores]:
        """Every question's recall; `reindex(index)` gives another index of the same points to search."""
        from collections import defaultdict

        from memory_pipeline.flows.recall.engine import SearchRequest

        scores: dict[str, Scores] = defaultdict(Scores)
        for part, ((index, questions), bm25) in enumerate(zip(self.parts, self.anchors, strict=True)):
            engine = self.engine(options or RankOptions(), reindex(index) if reindex else index, part)
            for q in questions:
                if anchor:
                    hits = bm25.search(q.query, 10)
                else:
                    hits = engine.search(SearchRequest(query=q.query, limit=10, record=False, now=self.now,
                                                       filters=RecallFilters(project=self.project)))
                scores[q.kind].add(list(q.evidence), hits, 5)
                if q.overall:
                    scores[self.overall].add(list(q.evidence), hits, 5)
        return scores


def load_lab(name: str, workdir: Path | None, cache_dir: Path, embedder, now: float,
             locomo: Path = SHARED / "locomo-dev.json", lme: Path = SHARED / "lme-dev") -> Lab:
    """lme-dev (one workspace) or LoCoMo dev (one per conversation), from `workdir`'s ingested
    workspaces when given, else from the transcripts. `locomo` and `lme` name other sets of the same
    formats (the held-out sets of `benchmarks.heldout`, ingested by `bench recall --quality --data --lme`)."""
    if name == "lme-dev":
        folder = lme
        sets = [("lme-dev", lambda: _sessions_lme(folder), load_questions(folder))]
        overall, project = "all", "chat"
    else:
        convs = [moved_to_recent(c) for c in load_conversations(locomo)]
        sets = [(f"{c.sample_id}-import", lambda c=c: _sessions_locomo(c), locomo_questions(c)) for c in convs]
        overall, project = "1-4", "locomo"
    parts, workspaces = [], []
    for folder_name, sessions, questions in sets:
        if workdir is not None:  # the workspace's shard read into the in-memory index (`--edge` writes it back)
            from memory_pipeline.flows.recall.engine import open_store
            from memory_pipeline.resources.vectors.recall_index import load_index

            index = load_index(open_store(Workspace(workdir / folder_name / "ws"), Settings.from_env(),
                                          embedder.dimension))
            workspaces.append(workdir / folder_name / "ws")
        else:
            ids, payloads, texts = transcript_points(sessions(), project=project)
            vectors = embedded(texts, cache_dir / f"{folder_name}-vectors.npz", embedder)
            index = RecallIndex.from_columns(ids, payloads, vectors)
        parts.append((index, questions))
    lab = Lab(name, parts, overall, project, embedder, now)
    lab.workspaces = workspaces
    lab.labels = [folder_name.removesuffix("-import") for folder_name, _, _ in sets]
    return lab


def add_set_arguments(parser: argparse.ArgumentParser) -> None:
    """--data and --lme: the sets the `--workdir` workspaces hold (the dev sets unless named)."""
    parser.add_argument("--data", default=str(SHARED / "locomo-dev.json"), help="the LoCoMo JSON the workspaces hold")
    parser.add_argument("--lme", default=str(SHARED / "lme-dev"), help="the lme folder the workspace holds")


def summary(scores: dict[str, Scores], overall: str) -> str:
    parts = []
    for kind in [overall, *sorted(k for k in scores if k != overall)]:
        s = scores[kind].summary()
        short = "".join(w[0] for w in kind.split("-")) if "-" in kind and kind != "1-4" else kind[:5]
        parts.append(f"{short} {s['recall@10']:.3f}/{s['recall@5']:.3f}")
    return " | ".join(parts)


def main() -> None:
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="lme-dev,locomo")
    parser.add_argument("--workdir", help="a `bench recall --quality --workdir` folder (ingested workspaces)")
    parser.add_argument("--cache", default="/tmp/recall-lab")
    add_set_arguments(parser)
    parser.add_argument("--variants", default="{}", help='JSON: {"name": {RankOptions field: value}}')
    parser.add_argument("--edge", action="store_true", help="also each variant on a Qdrant Edge shard of the points")
    parser.add_argument("--edge-batch", type=int, default=0,
                        help="write the Edge shard this many points at a time, in the dev set's order (0: at once)")
    args = parser.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    settings = Settings.from_env()
    embedder = embedder_for(settings.embedding_model, settings, 1)
    now = time.time()
    for name in args.sets.split(","):
        lab = load_lab(name, Path(args.workdir) if args.workdir else None, cache, embedder, now, Path(args.data),
                       Path(args.lme))
        lab.edge_batch = args.edge_batch
        print(f"{name}: {lab.points} points, {len(lab.questions)} questions")
        print(f"  anchor  {summary(lab.score(anchor=True), lab.overall)}")
        for label, changes in {"product": {}, **json.loads(args.variants)}.items():
            started = time.perf_counter()
            print(f"  {label}  {summary(lab.score(replace(RankOptions(), **changes)), lab.overall)}"
                  f"  ({time.perf_counter() - started:.1f} s)", flush=True)
            if args.edge:
                started = time.perf_counter()
                scores = lab.score(replace(RankOptions(), **changes), reindex=lab.edge)
                print(f"  {label}/edge  {summary(scores, lab.overall)}  ({time.perf_counter() - started:.1f} s)",
                      flush=True)


if __name__ == "__main__":
    main()
