"""How well recall tells a question memory answers from one it cannot (`python -m benchmarks.recall_nothing
--workdir DIR`): over `bench recall --quality --workdir DIR`'s ingested workspaces (lme-dev and LoCoMo
dev's three conversations), the best cosine of each answerable dev question against made-up questions
no set answers: TUNING (the ones the thresholds were set on) and HELD (written after, to check them).
Prints, per set, how many of each group recall calls nothing (best cosine below MIN_ANSWER_COSINE), a weak
match (below STRONG_ANSWER_COSINE, or no hit close in meaning at all) and an answer, with the highest best
cosine of the group — stages/recall/confidence.py, docs/recall.md.

`--worth DIR` (a `bench worth --keep DIR` folder: the labelled coding transcripts ingested) asks what a
compaction hook asks: each labelled session's task queries (`stages/hooks/recovery.task_queries` over its
user prompts so far), of its own project's memories and of another project's, and prints the levels."""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from benchmarks.recall_lab import add_set_arguments, load_lab
from benchmarks.worth import DURABLE_DEV, TRANSCRIPTS, labelled_transcripts
from memory_pipeline.config import Settings
from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest
from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.hooks.recovery import task_queries
from memory_pipeline.stages.recall.confidence import Confidence, confidence
from memory_pipeline.stages.recall.rank import RankOptions, RecallFilters
from memory_pipeline.stages.transcripts.parse import parse_transcript

TUNING = [
    "Which Postgres version does the orders service run on?",
    "Which Kafka topic carries the invoice events?",
    "Which CI workflow waits on pg_isready before running pytest?",
    "What port does the staging Redis listen on?",
    "Which alembic revision added the refunds table?",
    "Who owns the on-call rotation for the billing API?",
    "What is the maximum connection pool size of the checkout service?",
    "Which Terraform module provisions the VPN gateway?",
    "What is the name of the feature flag for the new checkout flow?",
    "Which Helm chart version does the ingress controller use?",
]
HELD = [
    "Which branch did we merge the webpack upgrade into?",
    "What timeout did we set for the payment gateway client?",
    "Which linter rule did the team turn off in the frontend repo?",
    "What is the retention period of the audit log bucket?",
    "Which Python version does the data pipeline container use?",
    "Who reviewed the pull request that changed the login page?",
    "What was the root cause of the memory leak in the worker?",
    "Which environment variable holds the Sentry DSN?",
    "How many replicas does the search deployment run?",
    "What did we name the migration that splits the users table?",
]


def judged(workdir: Path, **sets: Path) -> dict[str, dict[str, list[Confidence]]]:
    """set → group ("answerable", "tuning", "held") → what recall says of each question's hits."""
    settings = Settings.from_env()
    embedder = embedder_for(settings.embedding_model, settings, 1)
    now = time.time()
    found: dict[str, dict[str, list[Confidence]]] = {}
    for name in ("lme-dev", "locomo"):
        lab = load_lab(name, workdir, Path("/tmp/recall-lab"), embedder, now, **sets)
        for number, (index, questions) in enumerate(lab.parts):
            engine = lab.engine(RankOptions(), index, number)
            groups = {"answerable": [q.query for q in questions], "tuning": TUNING, "held": HELD}
            label = lab.labels[number]
            found[label] = {
                group: [confidence(engine.search(SearchRequest(query=query, limit=10, record=False, now=now,
                                                               filters=RecallFilters(project=lab.project))))
                        for query in queries]
                for group, queries in groups.items()}
    return found


def hook_levels(worth: Path) -> dict[str, tuple[Counter, Counter]]:
    """project → (levels of its sessions' task queries against its own memories, against another project's)."""
    labels = json.loads((DURABLE_DEV / "labels.json").read_text(encoding="utf-8"))
    files = labelled_transcripts(labels, TRANSCRIPTS)
    projects = sorted({project for _, project in files})
    engine = RecallEngine(Workspace(worth / "workspace"), Settings.from_env())
    found: dict[str, tuple[Counter, Counter]] = {}
    for path, project in files:
        other = next((p for p in projects if p != project), project)
        prompts = [m.text for m in parse_transcript(path).messages if m.role == "user" and m.text]
        own, elsewhere = found.setdefault(project, (Counter(), Counter()))
        for upto in range(1, len(prompts) + 1):
            for query in task_queries(prompts[:upto]):
                for counter, looked in ((own, project), (elsewhere, other)):
                    hits = engine.search(SearchRequest(query=query, limit=5, record=False,
                                                       filters=RecallFilters(project=looked)))
                    counter[confidence(hits).level] += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workdir", required=True, help="a `bench recall --quality --workdir` folder")
    parser.add_argument("--worth", help="a `bench worth --keep` folder: the compaction hooks' queries too")
    add_set_arguments(parser)
    args = parser.parse_args()
    if args.worth:
        for project, (own, elsewhere) in hook_levels(Path(args.worth)).items():
            print(f"{project}: task queries of its sessions, its own memories {dict(own)}, "
                  f"another project's {dict(elsewhere)}")
    found = judged(Path(args.workdir), locomo=Path(args.data), lme=Path(args.lme))
    print(f"{'set':8} {'group':10} {'n':>4} {'nothing':>8} {'weak':>5} {'answer':>7}  highest best cosine")
    for label, groups in found.items():
        for group, judgements in groups.items():
            levels = [j.level for j in judgements]
            best = max((j.best_cosine for j in judgements if j.best_cosine is not None), default=0.0)
            print(f"{label:8} {group:10} {len(levels):4} {levels.count('none'):8} {levels.count('weak'):5} "
                  f"{levels.count('strong'):7}  {best:.3f}")

if __name__ == "__main__":
    main()
