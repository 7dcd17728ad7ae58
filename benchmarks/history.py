"""A generated three-year history of Claude Code sessions, with questions, deterministic by seed.

Sessions fall six to a day (a busy day of short sessions; fewer days keep the ingest, one Dagster
run per day, within a bench's time) on days spread evenly over the three years before `today`; half are
coding sessions (a project, one of its parts, a decision and its reason, among routine chatter),
half personal (a person, an occasion, what came of it). Each decision or outcome is said once, in
one turn, so a question about it has one evidence turn whose age is known. A fifth of the topics come
back in a later session with a different outcome; their questions name the time they mean ("in
March 2025", "last spring", "two years ago"), and only that session's turn is the evidence.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

PROJECTS = ["billing-service", "orders-api", "search-indexer", "mobile-app", "auth-gateway", "data-pipeline",
            "docs-site", "payments-worker", "analytics-dashboard", "inventory-sync", "chat-backend", "ml-trainer",
            "email-relay", "geo-lookup", "report-builder", "video-transcoder"]
PARTS = ["retry logic", "cache layer", "database migration", "CI pipeline", "logging setup", "rate limiter",
         "pagination", "config loader", "test fixtures", "deploy script", "error reporting", "queue consumer",
         "feature flags", "date parsing", "image resizing", "session storage"]
CHOICES = ["tenacity", "redis streams", "alembic", "github actions", "structlog", "a token bucket", "keyset cursors",
           "pydantic settings", "factory boy", "a blue-green deploy", "sentry", "celery", "unleash", "pendulum",
           "libvips", "signed cookies", "backoff", "memcached", "sqitch", "buildkite", "loguru", "a leaky bucket",
           "offset paging", "dynaconf", "pytest fixtures", "a canary release", "rollbar", "dramatiq", "flagsmith",
           "arrow", "pillow-simd", "jwt tokens", "nats jetstream", "flyway", "gitlab ci", "opentelemetry logs"]
REASONS = ["it handles jitter for us", "the p95 dropped by half", "it needs no extra service", "the team knows it",
           "it survived the load test", "it is what the platform team supports", "the old one leaked memory",
           "it keeps the rollback simple", "the license is fine", "it cut the build by four minutes"]
PEOPLE = ["my sister Ana", "my brother Tom", "my friend Kenji", "my neighbour Rosa", "my cousin Lena", "my dad",
          "my mum", "my friend Priya", "my colleague Omar", "my aunt Grete", "my friend Malik", "my niece Ida",
          "my uncle Bruno", "my friend Sofia", "my landlord Piet", "my coach Dana"]
OCCASIONS = ["wedding", "birthday dinner", "house move", "marathon", "graduation", "garden party", "trip to Lisbon",
             "piano recital", "job interview", "camping weekend", "art exhibition", "hospital visit", "book launch",
             "sailing race", "retirement party", "chess tournament"]
OUTCOMES = ["we booked the old mill by the river", "I gave a framed map of their first city", "it rained but we stayed",
            "they finished in under four hours", "we cooked a huge paella", "I drove the van there and back",
            "the band played until two", "I lent them my camera", "we got lost in Alfama for an hour",
            "they got the offer the next week", "we saw a fox at the campsite", "I brought sunflowers",
            "the cake was lemon and thyme", "we took the night train", "I wrote a short speech"]
CODING_CHATTER = ["Running the test suite now.", "CI is green on the branch.", "Can you check the lint errors?",
                  "I pushed the fix, please review.", "The logs look clean after the restart.",
                  "Let's keep the diff small.", "Merged. Closing the ticket.", "That flaky test failed again.",
                  "Rebased on main, no conflicts.", "Added a note to the changelog."]
PERSONAL_CHATTER = ["Before we start coding, a quick personal note.", "Anyway, it was a lovely day.",
                    "Sorry, back to work in a minute.", "I'm still tired from the weekend.",
                    "Thanks for listening, let's get going.", "It was a long week."]
SEASONS = {3: "spring", 4: "spring", 5: "spring", 6: "summer", 7: "summer", 8: "summer", 9: "autumn",
           10: "autumn", 11: "autumn", 12: "winter", 1: "winter", 2: "winter"}


@dataclass
class HistorySession:
    session_id: str
    started: datetime
    turns: list[tuple[str, str, str]] = field(default_factory=list)  # (message id, role, text)


@dataclass
class HistoryQuestion:
    question: str
    evidence: str  # the message id
    evidence_time: datetime
    names_time: bool = False


REPEAT_SHARE = 0.2  # topics that come back later with another outcome
REPEAT_GAP_DAYS = 180  # ... at least this long after they were last discussed


def _topic(rng: random.Random, coding: bool, used: dict[tuple[str, str], datetime], now: datetime
           ) -> tuple[str, str]:
    """A topic of the kind never discussed before, or (sometimes) one last discussed long ago."""
    pool = [(a, b) for a in PROJECTS for b in PARTS] if coding else [(a, b) for a in PEOPLE for b in OCCASIONS]
    old = [t for t in pool if t in used and (now - used[t]).days >= REPEAT_GAP_DAYS]
    fresh = [t for t in pool if t not in used]
    if old and (rng.random() < REPEAT_SHARE or not fresh):
        return rng.choice(old)
    return rng.choice(fresh or pool)


def _key_turn(coding: bool, topic: tuple[str, str], answer: str, reason: str) -> str:
    if coding:
        return f"For the {topic[1]} in {topic[0]} we settled on {answer}, because {reason}."
    return f"About {topic[0]}'s {topic[1]}: {answer}."


CODING_ASKS = ["What did we settle on for the {part} in {project}?", "Which option did we choose for {project}'s {part}?",
               "{project}: what do we use for the {part}?", "What was decided about the {part} of {project}?"]
PERSONAL_ASKS = ["What happened at {person}'s {occasion}?", "How did {person}'s {occasion} go?",
                 "Anything memorable from {person}'s {occasion}?"]


def _question(coding: bool, topic: tuple[str, str], wording: random.Random) -> str:
    """Asked in one of several wordings (from its own random stream, so the sessions do not change)."""
    if coding:
        return wording.choice(CODING_ASKS).format(project=topic[0], part=topic[1])
    return wording.choice(PERSONAL_ASKS).format(person=topic[0], occasion=topic[1])


def time_phrase(when: datetime, today: datetime, rng: random.Random) -> str:
    """A way to name `when` that points at it from `today` (read back by stages/recall/when.py)."""
    months = (today.year - when.year) * 12 + today.month - when.month
    options = [f"in {when:%B %Y}"]
    if 20 <= months <= 28:
        options.append("two years ago")
    if 10 <= months <= 14:
        options.append("a year ago")
    season = SEASONS[when.month]
    if season != "winter" and when.year == today.year - (1 if SEASONS[today.month] == season else 0) and \
            (today - when).days < 365:
        options.append(f"last {season}")
    return rng.choice(options)


def generate(today: datetime, sessions: int = 540, seed: int = 7, years: int = 3, per_day: int = 6
             ) -> tuple[list[HistorySession], list[HistoryQuestion]]:
    rng = random.Random(seed)
    wording = random.Random(seed * 7919 + 1)
    start = today - timedelta(days=365 * years)
    days = -(-sessions // per_day)
    topics: dict[tuple[str, str], list[tuple[int, str]]] = {}
    out: list[HistorySession] = []
    questions: list[HistoryQuestion] = []
    for n in range(sessions):
        day = start + timedelta(days=round((n // per_day) * (365 * years - 2) / max(days - 1, 1)))
        started = day.replace(hour=8 + 2 * (n % per_day), minute=rng.randint(0, 59), second=0, microsecond=0)
        coding = n % 2 == 0
        topic = _topic(rng, coding, {t: out[k[-1][0]].started for t, k in topics.items()}, started)
        repeat = topic in topics
        answer = rng.choice([c for c in (CHOICES if coding else OUTCOMES) if c not in {a for _, a in topics.get(topic, [])}])
        session = HistorySession(f"hist-{seed}-{n:04d}", started)
        chatter = CODING_CHATTER if coding else PERSONAL_CHATTER
        lines = [("user", f"Let's look at {topic[0]} today." if coding else rng.choice(PERSONAL_CHATTER))]
        lines += [("assistant" if i % 2 else "user", rng.choice(chatter)) for i in range(rng.randint(3, 6))]
        key_at = len(lines)
        lines.append(("user", _key_turn(coding, topic, answer, rng.choice(REASONS))))
        lines.append(("assistant", "Noted, I'll keep that in mind."))
        lines += [("user" if i % 2 else "assistant", rng.choice(CODING_CHATTER)) for i in range(rng.randint(4, 6))]
        for i, (role, text) in enumerate(lines):
            session.turns.append((f"{session.session_id}-m{i:02d}", role, text))
        out.append(session)
        topics.setdefault(topic, []).append((n, answer))
        evidence = session.turns[key_at][0]
        if repeat:  # the topic came back: both sessions' questions must name their time
            first_n, _ = topics[topic][0]
            if len(topics[topic]) == 2:
                first = out[first_n]
                first_key = next(t for t in first.turns if t[2].startswith(("For the", "About")))
                questions = [q for q in questions if q.evidence != first_key[0]]
                questions.append(_named(_question(coding, topic, wording), first_key[0], first.started, today, rng))
            questions.append(_named(_question(coding, topic, wording), evidence, started, today, rng))
        else:
            questions.append(HistoryQuestion(_question(coding, topic, wording), evidence, started))
    return out, questions


def _named(question: str, evidence: str, when: datetime, today: datetime, rng: random.Random) -> HistoryQuestion:
    return HistoryQuestion(f"{question[:-1]} {time_phrase(when, today, rng)}?", evidence, when, True)


def session_jsonl(session: HistorySession) -> str:
    lines, parent = [], None
    for i, (mid, role, text) in enumerate(session.turns):
        when = (session.started + timedelta(seconds=30 * i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        message = {"role": "user", "content": text} if role == "user" else {
            "id": f"msg-{mid}", "role": "assistant", "model": "history", "content": [{"type": "text", "text": text}]}
        lines.append(json.dumps({"type": role, "uuid": mid, "parentUuid": parent, "sessionId": session.session_id,
                                 "cwd": "/history", "timestamp": when, "isSidechain": False, "message": message}))
        parent = mid
    return "\n".join(lines) + "\n"


def write_history(sessions: list[HistorySession], folder: Path) -> Path:
    project = folder / "-history"
    project.mkdir(parents=True, exist_ok=True)
    for session in sessions:
        (project / f"{session.session_id}.jsonl").write_text(session_jsonl(session), encoding="utf-8")
    return folder


def default_today() -> datetime:
    return datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
