"""Ranking recall candidates (pure): fusion, evidence units, time terms, stale de-rank, collapse, cap.

Inputs are the dense and the sparse ranked lists (point id, score), already filtered; the
output is the RecallHit list an agent sees. Figures behind the defaults come from
`memory-pipeline bench recall --quality` (lme-dev and LoCoMo dev; docs/recall.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import RecallHit
from memory_pipeline.stages.hooks.checkpoint_doc import KIND as CHECKPOINT
from memory_pipeline.stages.index.echoes import cites_memory, is_acknowledgement, is_narration
from memory_pipeline.stages.index.sparse import STOP_WORDS, tokenize
from memory_pipeline.stages.projects import ProjectScope, check_project
from memory_pipeline.stages.provenance import point_labels, speaker
from memory_pipeline.stages.recall.evidence import (
    DAY_SECONDS,  # noqa: F401 (callers read it here)
    Unit,
    decay_factor,
    message_index,
    recency_term,
    unit_keys,
    window_bounds,
)
from memory_pipeline.stages.recall.quoted import quoted_in, quotes
from memory_pipeline.stages.recall.sessions import session_terms
from memory_pipeline.stages.recall.sources import also_seen, hit_sources
from memory_pipeline.stages.recall.speaker import said_by_other
from memory_pipeline.stages.recall.when import Window

TIERS = ("observations", "messages")
PRIORITIES = ("high", "medium", "low")
MAX_QUERY_CHARS = 4000
DEFAULT_CAP = 10
MAX_CAP = 100
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\ufeff]")


@dataclass(frozen=True)
class RecallFilters:
    tier: str = "all"
    since: str | None = None  # YYYY-MM-DD, inclusive
    until: str | None = None
    priority: str | None = None
    session_id: str | None = None
    # the reader's project: its memories, the user's own and those of no known project; None = every
    # project (stages/projects.py)
    project: str | None = None


@dataclass(frozen=True)
class RankOptions:
    """The one default ranking. `bench recall --quality` (LoCoMo dev through import → ingest →
    recall, no flags; 2026-11-23): recall@10 over categories 1–4 0.767 (multi-hop 0.417, temporal
    0.900, open-domain 0.263, single-hop 0.885) against 0.618 for OLD_DEFAULTS on the same workspace;
    without the recency term 0.766, observations at weight 1.0 0.759, without time-aware ranking 0.765.
    The sweeps behind each weight (same path, an earlier ingest) are in the comments below. With lme-dev
    beside LoCoMo (2026-11-24, docs/recall.md): recall@10 0.678 (lme-dev) and 0.774 (LoCoMo 1–4) against
    0.665 and 0.585 for plain BM25 over the same turns; with session-level evidence and query parts
    (2026-11-25): 0.692 and 0.782."""

    limit: int = DEFAULT_CAP  # the inject cap
    # LoCoMo recall@10 (1–4, messages tier, BM25 k1 1.2 b 0.75): RRF k=60 0.689; scores / best, dense
    # weight 0.5 0.709, 0.3 0.737, 0.2 0.725; min-max scaled, 0.5 0.755, 0.4 0.751, 0.3 0.744
    # (all tiers: 0.737, 0.746, 0.741). Min-max 0.4 / 0.6 with BM25 k1 0.9 b 0.4: 0.763 (all: 0.756).
    fusion: str = "minmax"  # "rrf" | "weighted" (scores / best) | "minmax" (min-max scaled)
    rrf_k: float = 60.0
    dense_weight: float = 0.4
    sparse_weight: float = 0.6
    # Recency breaks near ties and never buries a strong old match: it adds at most `recency_weight`
    # (on the fused scale, where the best candidate scores up to 1) to a hit from now, half that to one
    # `recency_half_life_days` old. LoCoMo has no recency preference, so the dev set prices the term:
    # through import (sessions 1–11 months old), recall@10 (1–4) 0.761 without it, 0.761 at 0.02,
    # 0.762 at 0.05 and 0.1, 0.768 at 0.2, 0.755 at 0.3 with a 90-day half life; the old
    # exp(-0.01·days) factor: 0.618. 0.05 / 30 days: well inside the range that costs nothing, large
    # enough to order hits within 5% of each other by age.
    recency_weight: float = 0.05
    recency_half_life_days: float = 30.0
    decay_rate: float = 0.0  # the pre-issue-13 term, score × exp(-rate × days); kept to compare
    now_ts: float = 0.0
    # A stale item keeps this share of its score. Stale means unused for 90 days, not wrong (an item the
    # ledger superseded keeps 0.3), and only observations are ever tagged, never the messages they cite:
    # a strong factor turns "unused" into "the summary loses to its own source text". 0.8 lets a stale
    # memory lose ties and near ties (within 20%) but never a clearly better match. `bench maintenance`
    # (LoCoMo dev, every observation stale 91 days after import): recall@10 (1–4) 0.771 with nothing
    # stale, 0.763 at 0.8, 0.754 at the former 0.5 (checked once, not swept).
    stale_factor: float = 0.8
    # An observation and the messages it cites are one piece of evidence: it is ranked once, at the
    # best of its members, dated by its message. Observations weigh by measured quality: through
    # import with the offline observer, the observations tier alone reached recall@10 0.053 (1–4)
    # against 0.611 for messages; all tiers with per-message fusion scored 0.759 at weight 1.0, 0.762
    # at 0.8, 0.767 at 0.65, 0.5 and 0.3 (messages alone 0.767). 0.6: an observation outranks the
    # message it cites only when it matches clearly better, and an uncited one must match well.
    fuse_by_message: bool = True
    observation_weight: float = 0.6
    max_cited: int = 3  # an observation citing more messages than this (a narrative) stands on its own
    # A unit of several members (a message and the observations citing it) scores its best member's score
    # + member_share × the others' (CombSUM at a low weight): an observation that agrees with the message it
    # cites counts for a little more than either alone. In process on the ingested workspaces (docs/recall.md,
    # 2026-11-27 08:40), recall@10 / @5, lme-dev and LoCoMo: 0 0.746 / 0.647 and 0.790 / 0.693; 0.05 0.746 /
    # 0.649 and 0.793 / 0.692; 0.1 0.746 / 0.649 and 0.795 / 0.695; 0.15 0.746 / 0.649 and 0.797 / 0.701;
    # 0.2 0.737 / 0.647 and 0.800 / 0.703; 0.3 0.735 / 0.646 and 0.805 / 0.707 (the best member + 0.3 × the
    # second best only: the same). Above 0.15 lme-dev's user turns without an observation lose to turns
    # with one; 0.1 keeps the margin.
    member_share: float = 0.1
    # A query that names a time ("in May 2026", "last spring") favours hits from then instead of the
    # newest: + `time_weight` inside the window (and up to `report_lag_days` after it, when the event is
    # told), and no recency term. Dev (40 of 383 questions name a date): 0.759 without, 0.762 with
    # weights 0.08, 0.15 or 0.3 and lags 0, 7 or 14 days; 0.15 sits in the middle of that flat range.
    time_aware: bool = True
    time_weight: float = 0.15
    report_lag_days: int = 7
    superseded_factor: float = 0.3  # an item the ledger superseded (payload `superseded_by`) keeps this share
    # The agent repeating what memory gave it ("Memory says …", a turn after a memory tool call:
    # stages/index/echoes.py) is not evidence of its own: it keeps this share, below anything said first.
    echo_factor: float = 0.1
    # A short assistant turn announcing a step ("Let me check the logs…") keeps this share: a statement
    # or an answer ranks above it. Rare in the dev sets (their turns are conversation, not agent steps).
    narration_factor: float = 0.5
    collapse_jaccard: float = 0.9  # hits whose word sets overlap this much are one hit
    collapse_same_sources: bool = True  # a hit citing only messages already cited above is dropped
    # An observation that quotes a listed message ('The user wrote: "…"') and that message are one hit,
    # the message's, at the better of their places (stages/recall/quoted.py).
    collapse_quoted: bool = True
    # Session-level evidence (stages/recall/sessions.py): + weight × the session's strength (mean of its
    # best `session_top` units, scaled by the best session's). recall@10, both dev sets (docs/recall.md),
    # lme-dev / LoCoMo: none 0.678 / 0.774; 0.1 top 2 0.683 / 0.782; 0.05 top 2 0.680 / 0.777; 0.1 top 5
    # 0.675 / 0.784; 0.2 top 3 0.674 / 0.783. With query_parts: 0.692 / 0.782 (top 3: 0.690 / 0.781).
    session_weight: float = 0.1
    session_top: int = 2
    # A hit scoring under this share of the best one's is no answer and is not listed, however few that
    # leaves (a small memory makes every point a candidate: "which port does the staging database use" listed
    # the user's pytest preference at 0.07 of the best). In process on both dev sets' and both held-out sets' ingested
    # workspaces (2026-12-02), recall@10 / @5 unchanged at 0.1, 0.15 and 0.2 (held-out LoCoMo 0.762 →
    # 0.760 at 0.2); at 0.3 lme-dev 0.800 → 0.791, LoCoMo dev 0.825 → 0.818. At 0.15, 9 of lme-dev's 234
    # lists and 15 of LoCoMo dev's 495 come out shorter than 10.
    floor_share: float = 0.15
    # The items a comparison question names, looked up by keyword alone (stages/recall/parts.py): the top
    # `part_depth` turns of each join. lme-dev 0.678 → 0.687 (temporal-reasoning 0.637 → 0.671), LoCoMo
    # 0.774 (1 of 383 questions compares); with a query embedding per item, lme-dev 0.685.
    query_parts: bool = True
    part_depth: int = 20
    # A question asked about one speaker's words (stages/recall/speaker.py: "did I …", "you recommended")
    # leaves the other speaker's turns this share of their score; 1.0 = no preference. In process over the
    # messages tier (docs/recall.md), lme-dev recall@10 / @5: 1.0 0.683 / 0.579, 0.9 0.709 / 0.599, 0.8
    # 0.722 / 0.619, 0.7 0.731 / 0.642, 0.5 0.739 / 0.656; LoCoMo's questions name neither speaker (0.771
    # at each). 0.7: the other speaker's turn still wins when it matches clearly better (by 43%). The same share
    # for a dialogue's speaker named by the question ("What did Melanie paint?"; 2026-11-29, in process on the
    # fresh workspaces): LoCoMo 1-4 recall@10 / @5 0.803 / 0.715 → 0.820 / 0.732 (0.8: 0.815, 0.5: 0.823), every
    # category up at both; adversarial, whose questions name the wrong speaker by design, 0.911 → 0.857.
    speaker_factor: float = 0.7
    # The question's keyword terms leave out light verbs (stages/recall/terms.py): LoCoMo 0.771 → 0.788,
    # lme-dev 0.736 = (in process).
    light_verbs_out: bool = True
    # Rescoring of the top `rescore_depth` candidates (stages/recall/proximity.py): + pair_weight × the
    # share of the question's adjacent content words found in order (the second within 20 characters of
    # the first) in a candidate, and for a question about "my X", + owned_weight × the share of X's words a
    # user turn says after "my". In process, messages tier (docs/recall.md), recall@10 / @5, lme-dev and
    # LoCoMo: neither 0.736 / 0.648 and 0.788 / 0.689; pairs 0.05 alone 0.740 / 0.648 and 0.790 / 0.689
    # (0.1: 0.744 / 0.650 and 0.787, tokenized); "my X" 0.1 alone 0.741 / 0.650 and 0.788 (LoCoMo asks in
    # the third person); both 0.746 / 0.650 and 0.790 / 0.689.
    rescore_depth: int = 50
    # The best `candidate_depth` fused candidates are ranked, and only their payloads are read (the Edge
    # shard answers ids and scores; at 1M points the payload reads of every hit were the tail of a query).
    # In process (docs/recall.md), recall@10 / @5 against every candidate: 80 the same on both sets
    # (lme-dev 0.746 / 0.647, LoCoMo 0.790 / 0.693); 50: LoCoMo 0.788; 30: LoCoMo 0.782, lme-dev @5 0.645.
    candidate_depth: int = 80
    pair_weight: float = 0.05
    owned_weight: float = 0.1
    # The answer's type (stages/recall/answer_type.py): of the top `rescore_depth` candidates, one holding the
    # kind of answer the question asks for (a number, a time, a place, a name) in a sentence that says one
    # of the question's words (or the sentence after it) gains this; a question about one speaker's words
    # reads only that speaker's turns (and observations). In process on the ingested workspaces, with
    # member_share 0.1 (docs/recall.md, session of 2026-11-27 08:40), recall@10 / @5, lme-dev and LoCoMo: none
    # 0.746 / 0.649 and 0.795 / 0.695; 0.03 0.749 / 0.655 and 0.795 / 0.703; 0.05 0.753 / 0.657 and 0.795 /
    # 0.704; 0.07 0.760 / 0.657 and 0.795 / 0.708; 0.1 0.765 / 0.658 and 0.795 / 0.708; 0.15 0.767 / 0.657 and
    # 0.798 / 0.711 (single-session-user @5 0.844 → 0.812). Read in every turn instead of the asked speaker's,
    # 0.07 already cost that @5; anywhere in the turn instead of beside the question's words, 0.05 gave 0.748 /
    # 0.653. 0.1: the middle of the range that lifts both sets, no question type lower at @10 or @5 from it.
    answer_weight: float = 0.1


@dataclass
class Fused:
    score: float = 0.0
    dense_rank: int | None = None
    dense_score: float | None = None
    sparse_rank: int | None = None
    sparse_score: float | None = None
    extra: dict = field(default_factory=dict)


def clean_query(query: str) -> str:
    """Control characters removed, whitespace collapsed; raises BadInputError when unusable."""
    if not isinstance(query, str):
        raise BadInputError(f"the query must be text, got {type(query).__name__}")
    if len(query) > MAX_QUERY_CHARS:
        raise BadInputError(f"the query has {len(query)} characters; the limit is {MAX_QUERY_CHARS}")
    cleaned = " ".join(CONTROL.sub(" ", query).split())
    if not cleaned:
        raise BadInputError("the query is empty")
    if not tokenize(cleaned):
        raise BadInputError(f"the query {cleaned[:40]!r} has no words to search for (only stop words or punctuation)")
    return cleaned


def check_day(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(str(value)).isoformat()
    except ValueError as exc:
        raise BadInputError(f"{name} must be a date YYYY-MM-DD, got {value!r}") from exc


def check_filters(filters: RecallFilters) -> RecallFilters:
    if filters.tier not in (*TIERS, "all"):
        raise BadInputError(f"tier must be observations, messages or all, got {filters.tier!r}")
    if filters.priority is not None and filters.priority not in PRIORITIES:
        raise BadInputError(f"priority must be high, medium or low, got {filters.priority!r}")
    since, until = check_day(filters.since, "since"), check_day(filters.until, "until")
    if since and until and since > until:
        raise BadInputError(f"since ({since}) is after until ({until})")
    # "" (UNKNOWN) is a scope too: no project known (a session naming no folder, a folder in none):
    # the user's own memories and those of no known project
    project = check_project(filters.project) if filters.project else filters.project
    return RecallFilters(filters.tier, since, until, filters.priority, filters.session_id or None, project)


def check_limit(limit: int) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_CAP:
        raise BadInputError(f"limit must be a whole number from 1 to {MAX_CAP}, got {limit!r}")
    return limit


def matches(payload: dict, filters: RecallFilters) -> bool:
    """The filters as a predicate over a payload (the index applies the same in numpy)."""
    day = str(payload.get("date") or "")
    return (
        not payload.get("merged_into")  # folded into another memory by maintenance
        and (filters.tier == "all" or payload.get("tier") == filters.tier)
        and (filters.since is None or day >= filters.since)
        and (filters.until is None or day <= filters.until)
        and (filters.priority is None or payload.get("priority") == filters.priority)
        and (filters.session_id is None or payload.get("session_id") == filters.session_id)
        and ProjectScope(filters.project).admits(payload.get("project"), payload.get("scope"))
    )


def fuse(dense: list[tuple[str, float]], sparse: list[tuple[str, float]], options: RankOptions) -> dict[str, Fused]:
    """Reciprocal-rank fusion, or a weighted sum of max-normalized scores."""
    fused: dict[str, Fused] = {}
    for ranked, weight, kind in ((dense, options.dense_weight, "dense"), (sparse, options.sparse_weight, "sparse")):
        scale = _scaler(ranked, options.fusion)
        for rank, (pid, score) in enumerate(ranked, start=1):
            item = fused.setdefault(pid, Fused())
            setattr(item, f"{kind}_rank", rank)
            setattr(item, f"{kind}_score", score)
            item.score += weight * (1.0 / (options.rrf_k + rank) if options.fusion == "rrf" else scale(score))
    return fused


def _scaler(ranked: list[tuple[str, float]], fusion: str):
    """Score → [0, 1]: divided by the best ("weighted"), or min-max over the candidates ("minmax")."""
    scores = [s for _, s in ranked]
    top = max(scores, default=0.0)
    low = min(scores, default=0.0) if fusion == "minmax" else 0.0
    span = top - low
    if span <= 0:  # one candidate, or all equal: each gets full credit
        return lambda score: 1.0
    return lambda score: max(score - low, 0.0) / span


def display_text(payload: dict) -> str:
    """What the agent reads: a message with its speaker, or the observation text."""
    if payload.get("tier") == "messages" and payload.get("message"):
        role = speaker(payload)
        return f"{role}: {payload['message']}" if role else str(payload["message"])
    return str(payload.get("text", ""))


WORD = re.compile(r"\w+")


def word_set(text: str) -> set[str]:
    """The text's lowercased words less stop words, for the near-duplicate test: `tokenize`'s stems and
    identifier parts change little in a 0.9 overlap of two sets, and tokenizing every long reply scanned
    was the largest share of the ranking's time in a profile over lme-dev's questions (docs/recall.md)."""
    return set(WORD.findall(text.lower())) - STOP_WORDS


def _similar(a: set[str], b: set[str], threshold: float) -> bool:
    if not a or not b or min(len(a), len(b)) < threshold * max(len(a), len(b)):
        return False  # Jaccard is at most the smaller set's size over the larger's
    return len(a & b) / len(a | b) >= threshold


def evidence_share(payload: dict, options: RankOptions) -> float:
    """The share an agent's echo of memory or its narration keeps (1.0 for anything else); none for a
    turn that only acknowledges ("Got it, I'll keep that in mind."): it is no hit."""
    if payload.get("role") != "assistant":
        return 1.0
    text = str(payload.get("message") or payload.get("text") or "")
    if is_acknowledgement(text, "assistant"):
        return 0.0
    if payload.get("echo") or cites_memory(text):  # an index written before echoes were marked: the words
        return options.echo_factor
    return options.narration_factor if is_narration(text, "assistant") else 1.0


def score_units(payloads: dict[str, dict], fused: dict[str, Fused], options: RankOptions,
                message_of: Mapping[tuple[str, str], str], speaker: str | None = None) -> dict[str, Unit]:
    """Each candidate's score (tier weight, stale, old decay, the speaker asked about) added to its unit(s).
    A statement that replaced a superseded candidate answers what that one matched: it scores at least
    the superseded one's score before its de-rank (stages/recall/supersession.py)."""
    units: dict[str, Unit] = {}
    scores: dict[str, float] = {}
    replaced: dict[str, float] = {}  # replacing event -> the best score a statement it superseded had
    for pid, item in fused.items():
        payload = payloads[pid]
        if not (share := evidence_share(payload, options)):
            continue  # an acknowledgement: what it acknowledges is the hit
        score = item.score * decay_factor(payload.get("created_ts"), options.now_ts, options.decay_rate)
        if payload.get("stale"):
            score *= options.stale_factor
        score *= 1.0 + float(payload.get("feedback") or 0.0)  # echo/fizzle, bounded to ±0.5
        score *= share
        if event := payload.get("superseded_event"):
            replaced[event] = max(replaced.get(event, 0.0), score)
        scores[pid] = score
    for pid in scores:
        payload, score = payloads[pid], scores[pid]
        if payload.get("superseded_by"):  # the ledger knows what replaced it
            score *= options.superseded_factor
        elif (event := payload.get("replaces_event")) in replaced:
            score = max(score, replaced[event])
        if payload.get("tier") == "observations":
            score *= options.observation_weight
        elif speaker is not None and said_by_other(payload, speaker):
            score *= options.speaker_factor
        keys = unit_keys(pid, payload, message_of, options.max_cited) if options.fuse_by_message else [pid]
        for key in keys:
            units.setdefault(key, Unit(key)).add(pid, score)
    return units


def time_term(created_ts: float | None, options: RankOptions, bounds: tuple[float, float] | None) -> float:
    """+time_weight inside the window a query names (`bounds`); else the bounded recency term."""
    if bounds is not None:
        inside = created_ts is not None and bounds[0] <= float(created_ts) < bounds[1]
        return options.time_weight if inside else 0.0
    return recency_term(created_ts, options.now_ts, options.recency_weight, options.recency_half_life_days)


def rank(payloads: dict[str, dict], fused: dict[str, Fused], options: RankOptions, window: Window | None = None,
         message_of: Mapping[tuple[str, str], str] | None = None, speaker: str | None = None) -> list[RecallHit]:
    """Units scored and dated, sorted, near-duplicates collapsed, capped. A near-duplicate left out
    (the same words said again, in the same session or another) gives the hit it repeats its sources, one
    among as many candidates again as the list holds too: the list shows the words once and where
    they were said.

    `payloads` holds every fused id and every message point in `message_of` (built from `payloads`
    when not given); `window` is the time the query names, if any; `speaker` the one whose words it
    asks about ("user", "assistant", or a dialogue's speaker by name: stages/recall/speaker.py), if any.
    """
    message_of = message_index(payloads) if message_of is None else message_of
    bounds = window_bounds(window, options.report_lag_days) if window is not None and options.time_aware else None
    units = score_units(payloads, fused, options, message_of, speaker)
    unit_scores = {key: unit.score(options.member_share) for key, unit in units.items()}
    together = session_terms(unit_scores, {key: str(payloads[key].get("session_id") or "") for key in units},
                             options.session_weight, options.session_top)
    scored = []
    for key, unit in units.items():
        extra = time_term(payloads[key].get("created_ts"), options, bounds)
        scored.append((unit_scores[key] + extra + together.get(key, 0.0), key, unit, extra))
    scored.sort(key=lambda row: (-row[0], row[1]))
    hits: list[RecallHit] = []
    kept: list[set[str]] = []
    shown_sources: set[tuple[str, str]] = set()  # (session, message id): a message id is one session's
    after = 0  # candidates read after the list is full: as many as it holds, for its words said again
    floor = scored[0][0] * options.floor_share if scored else 0.0
    for score, key, unit, extra in scored:
        best = payloads[unit.best]
        if score < floor:
            break
        if len(hits) >= options.limit:
            if (after := after + 1) > options.limit:
                break
            text = display_text(best)
            if _may_repeat(text, hits) and (twin := _twin(word_set(text), kept, options)) is not None \
                    and _adds_a_source(best, options):
                hits[twin] = also_seen(hits[twin], _hit(payloads, fused, key, unit, score, extra, together.get(key, 0.0)))
            continue
        hit = _hit(payloads, fused, key, unit, score, extra, together.get(key, 0.0))
        words = word_set(hit.text)
        sources = {(hit.session_id, m) for m in hit.source_message_ids}
        if (twin := _twin(words, kept, options)) is not None:
            if _adds_a_source(best, options):
                hits[twin] = also_seen(hits[twin], hit)  # the same words said again: one hit, both sources
            continue
        if options.collapse_same_sources and sources and sources <= shown_sources:
            continue  # a fact restating messages already shown (or the message of a fact shown)
        if options.collapse_quoted and _quoted_collapse(hits, kept, hit, words):
            shown_sources |= sources
            continue
        kept.append(words)
        shown_sources |= sources
        hits.append(hit)
    return hits


def _twin(words: set[str], kept: list[set[str]], options: RankOptions) -> int | None:
    """The place of the listed hit whose words these nearly are, if any."""
    return next((at for at, seen in enumerate(kept) if _similar(words, seen, options.collapse_jaccard)), None)


def _adds_a_source(payload: dict, options: RankOptions) -> bool:
    """Whether a near-duplicate left out is a source of the hit it repeats: not the agent echoing memory
    or narrating, not a superseded memory."""
    return evidence_share(payload, options) == 1.0 and not payload.get("superseded_by")


def _may_repeat(text: str, hits: list[RecallHit]) -> bool:
    """Whether `text` is near enough in length to a listed hit's to share 0.9 of its words (a cheap
    test before the words are read)."""
    return any(0.7 * len(h.text) <= len(text) <= len(h.text) / 0.7 for h in hits)


def _quoted_collapse(hits: list[RecallHit], kept: list[set[str]], hit: RecallHit, words: set[str]) -> bool:
    """True when `hit` and a listed hit are an observation and the message it quotes: an observation
    is dropped, a message takes its observation's place (`hits` and `kept` changed in place)."""
    if hit.tier == "observations":
        said = quotes(hit.text)
        return bool(said) and any(h.tier == "messages" and quoted_in(said, h.text) for h in hits)
    for at, shown in enumerate(hits):
        if shown.tier == "observations" and quoted_in(quotes(shown.text), hit.text):
            hits[at], kept[at] = hit, words
            return True
    return False


def _hit(payloads: dict[str, dict], fused: dict[str, Fused], key: str, unit: Unit, score: float,
         extra: float, session: float) -> RecallHit:
    """The unit as the agent sees it: its best member's text, its anchor's date and sources."""
    best, anchor = payloads[unit.best], payloads[key]
    item = fused[unit.best]
    return RecallHit(
        id=unit.best,
        tier=best.get("tier", "observations"),
        text=display_text(best),
        score=float(f"{score:.6g}"),
        date=str(anchor.get("date", "")),
        session_id=str(anchor.get("session_id", "")),
        priority=best.get("priority"),
        source_message_ids=list(anchor.get("source_message_ids") or []),
        replaced_by=best.get("superseded_by"),
        project=str(best.get("project") or ""),
        scope=str(best.get("scope") or "project"),
        sources=hit_sources(payloads, [unit.best, *unit.members], key),
        provenance=point_labels(best),
        kind=CHECKPOINT if best.get("kind") == CHECKPOINT else "",
        why={
            "dense_rank": item.dense_rank,
            "dense_score": None if item.dense_score is None else round(item.dense_score, 4),
            "sparse_rank": item.sparse_rank,
            "sparse_score": None if item.sparse_score is None else round(item.sparse_score, 4),
            "fused": float(f"{item.score:.6g}"),
            "time": round(extra, 4),
            "session": round(session, 4),  # session-level evidence (stages/recall/sessions.py)
            "stale": int(bool(best.get("stale"))),
            "members": len(unit.members),  # points folded into this hit (an observation and its message)
            "mentions": int(best.get("mentions") or 1),  # sessions that observed it (maintenance merges)
            "feedback": float(best.get("feedback") or 0.0),  # echo/fizzle
            "superseded": int(bool(best.get("superseded_by"))),  # the ledger recorded a replacement
        },
    )
