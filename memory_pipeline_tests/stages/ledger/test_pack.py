"""The recall pack's rules: supersession, decay regimes, conflicts, open loops, budgets, determinism."""

from __future__ import annotations

import random

from memory_pipeline.stages.ledger.model import EVENT_TYPES, PRIORITIES
from memory_pipeline.stages.ledger.knowledge import knowledge_pages
from memory_pipeline.stages.ledger.pack import SECTIONS, TOTAL_WORDS, build_pack, words
from memory_pipeline_tests.stages.ledger.helpers import TODAY, Events


def section(text: str, key: str) -> str:
    headings = [s.heading for s in SECTIONS if s.heading in text]  # an empty section has no heading
    start = text.index({s.key: s.heading for s in SECTIONS}[key])
    ends = [text.index(h) for h in headings if text.index(h) > start]
    return text[start:min(ends) if ends else len(text)]


def test_a_superseded_event_leaves_the_pack_and_its_replacement_is_shown():
    log = Events()
    old = log.add("The project database is Postgres 15", entity="postgres", priority="P1", days_ago=3)
    new = log.add("We moved from Postgres 15 to 16", type="decision", entity="postgres", priority="P1",
                  supersedes=old.id)
    pack = build_pack(log.events, TODAY)
    assert old.id not in pack.text and "The project database is Postgres 15" not in pack.text
    assert new.id in pack.text and new.id in pack.included


def test_binding_commitment_older_than_90_days_stays_while_old_facts_expire():
    log = Events()
    promise = log.add("Follow up with the security team about key rotation", type="commitment", priority="P2",
                      entity="security_team", days_ago=120)
    old_fact = log.add("Staging runs on node 14", priority="P2", entity="staging", days_ago=95)
    ephemeral = log.add("The demo laptop is charging", priority="P3", entity="laptop", days_ago=31)
    aging = log.add("CI takes about 9 minutes", priority="P1", entity="ci", days_ago=40)
    pack = build_pack(log.events, TODAY)
    commitments = section(pack.text, "commitments")
    assert promise.id in commitments and "open, 120 days" in commitments
    assert old_fact.id not in pack.text and ephemeral.id not in pack.text
    assert {old_fact.id, ephemeral.id} <= set(pack.excluded_expired) and pack.binding_decayed == []
    assert f"[{aging.id}]" in pack.text and "⚠️ STALE" in pack.text.split(aging.id, 1)[1].split("\n", 1)[0]


def test_a_fact_spoken_of_again_ages_from_then_and_a_news_of_a_commitment_is_news():
    log = Events()
    pref = log.add("The team prefers squash merges on the billing repo", type="preference", priority="P1",
                   entity="billing", days_ago=100)
    alone = log.add("The team prefers tabs in the Makefile", type="preference", priority="P1", entity="make",
                    days_ago=100)
    old_fact = log.add("Staging runs on node 18", priority="P2", entity="staging", days_ago=95)
    promise = log.add("Follow up with Dana about the billing export", type="commitment", priority="P1",
                      entity="dana", days_ago=60)
    log.add("Squash merges keep the billing history readable", entity="billing", days_ago=10, related=[pref.id])
    log.add("Staging's node 18 image was rebuilt", entity="staging", days_ago=20, related=[old_fact.id])
    log.add("Dana asked for the export as CSV", entity="dana", days_ago=5, related=[promise.id])
    pack = build_pack(log.events, TODAY)
    line = lambda event: pack.text.split(f"[{event.id}]", 1)[1].split("\n", 1)[0]  # noqa: E731
    assert "STALE" not in line(pref) and "⚠️ STALE" in line(alone)  # 10 days since it was spoken of, not 100
    assert old_fact.id not in pack.excluded_expired and old_fact.id in pack.text  # 95 days old, verified 20 days ago
    assert "open, 60 days" in line(promise) and "STALE" not in line(promise)  # news 5 days ago
    page = knowledge_pages(log.events, TODAY)["entities/staging.md"]
    assert f"({old_fact.id}) [source: memory/2026-08-20.md] [verified: 2026-11-03]" in page


def test_a_closed_commitment_leaves_the_open_loops():
    log = Events()
    first = log.add("Need to rotate the API keys", type="commitment", priority="P1", entity="api_keys", days_ago=9)
    second = log.add("Need to update the changelog", type="commitment", priority="P1", entity="changelog", days_ago=5)
    log.add("Rotated the API keys", type="commitment", status="closed", related=[first.id], entity="api_keys")
    commitments = section(build_pack(log.events, TODAY).text, "commitments")
    assert first.id not in commitments and second.id in commitments


def test_a_commitment_with_no_news_for_a_month_is_marked_stale_and_listed_after_the_live_ones():
    log = Events()
    musing = log.add("i can live with main-new.ts in src/, but the rest needs moving", type="commitment",
                     priority="P1", days_ago=350)
    live = log.add("Need to write the release notes", type="commitment", priority="P1", days_ago=2)
    commitments = section(build_pack(log.events, TODAY).text, "commitments")
    assert commitments.index(live.id) < commitments.index(musing.id)
    line = commitments.split(musing.id, 1)[1].split("\n", 1)[0]
    assert "open, 350 days" in line and "⚠️ STALE" in line
    assert "STALE" not in commitments.split(live.id, 1)[1].split("\n", 1)[0]


def test_procedures_hold_ways_of_doing_something_not_commands_that_ran():
    log = Events()
    ran = log.add('Ran `git add -A && git commit -m "WP3: split the session"`', type="procedure", priority="P1",
                  days_ago=5)
    way = log.add("This repo uses uv: run `uv sync` and `uv run pytest`", type="procedure", priority="P1", days_ago=5)
    procedures = section(build_pack(log.events, TODAY).text, "procedures")
    assert way.id in procedures and ran.id not in procedures


def test_open_commitments_are_listed_oldest_first():
    log = Events()
    newer = log.add("Need to write the release notes", type="commitment", priority="P1", days_ago=2)
    older = log.add("Need to answer the license question", type="commitment", priority="P1", days_ago=20)
    commitments = section(build_pack(log.events, TODAY).text, "commitments")
    assert commitments.index(older.id) < commitments.index(newer.id)


def test_two_active_facts_that_disagree_are_both_shown_with_a_conflict_flag():
    log = Events()
    a = log.add("Redis listens on port 6379", entity="redis", priority="P1", days_ago=4)
    b = log.add("Redis listens on port 6380", entity="redis", priority="P1", days_ago=1)
    pack = build_pack(log.events, TODAY)
    assert pack.conflicts == [(a.id, b.id)]
    assert f"⚠️ CONFLICT: {a.id} says" in pack.text and f"{b.id} says" in pack.text


def test_the_word_budget_holds_with_5000_events():
    rng = random.Random(7)
    log = Events()
    vocabulary = "deploy cache schema index queue worker token billing search upload retry timeout".split()
    for n in range(5000):
        kind = rng.choice(EVENT_TYPES)
        log.add(" ".join(rng.choice(vocabulary) for _ in range(rng.randint(6, 30))) + f" item {n}", type=kind,
                priority=rng.choice(PRIORITIES), entity=f"entity_{rng.randint(0, 80)}", days_ago=rng.randint(0, 200),
                tags=["waiting"] if rng.random() < 0.05 else ["account"] if rng.random() < 0.05 else [])
    pack = build_pack(log.events, TODAY)
    assert words(pack.text) == pack.words <= TOTAL_WORDS
    for key, budget in ((s.key, s.budget) for s in SECTIONS):
        if key not in ("p0", "commitments"):
            assert pack.section_words[key] <= budget, key
    assert pack.omitted["commitments"] and "more not shown" in section(pack.text, "commitments")
    assert [s.heading for s in SECTIONS if s.key != "mantra"] == [line for line in pack.text.splitlines()
                                                            if line.startswith("## ")]  # in their fixed order
    assert pack.text.rstrip().endswith("_Nothing recorded yet: mantra (tag an event `mantra`)._")


def test_the_pack_is_deterministic_and_ignores_events_after_its_day():
    log = Events()
    log.add("Use uv for Python environments", type="procedure", entity="uv", priority="P1", days_ago=2)
    log.add("Mission: memory that knows what is no longer true", tags=["mantra"], type="decision", priority="P0")
    first, second = build_pack(log.events, TODAY), build_pack(list(log.events), TODAY)
    assert first.text == second.text and "Mission: memory" in section(first.text, "mantra")
    from datetime import timedelta

    earlier = build_pack(log.events, TODAY - timedelta(days=1))
    assert "Mission" not in earlier.text and "Use uv" in earlier.text


def test_empty_sections_are_named_on_one_line_not_shown_as_headings():
    log = Events()
    log.add("Run the migrations with `make migrate`, never by hand", type="procedure", entity="make", priority="P1")
    pack = build_pack(log.events, TODAY)
    headings = [line for line in pack.text.splitlines() if line.startswith("## ")]
    assert headings == [s.heading for s in SECTIONS if s.key == "procedures"]
    assert "_none_" not in pack.text and "No mantra" not in pack.text
    assert pack.text.rstrip().splitlines()[-1] == (
        "_Nothing recorded yet: P0 constraints, mantra (tag an event `mantra`), open commitments, waiting on, "
        "today's focus, context, accounts._")
    full = build_pack([], TODAY).text  # an empty ledger: the header and the one line
    assert full.splitlines()[2].startswith("_Nothing recorded yet: P0 constraints, mantra") and words(full) < 30


def test_each_project_gets_its_own_pack():
    log = Events()
    log.add("Default project fact about Kafka", entity="kafka", priority="P1")
    log.add("Other project fact about Flink", entity="flink", priority="P1", project="stream-app")
    default, other = build_pack(log.events, TODAY), build_pack(log.events, TODAY, project="stream-app")
    assert "Kafka" in default.text and "Flink" not in default.text
    assert "Flink" in other.text and other.text.startswith("# Recall Pack — 2026-11-23 · stream-app")


def test_context_ranks_by_durable_value_and_focus_holds_no_agent_finding():
    e = Events()
    agent = e.add("The build failed with a missing module error in the parser.", priority="P1", said_by=["assistant"])
    lesson = e.add("Root cause: the parser cached a stale module map.", priority="P1", said_by=["assistant"],
                   tags=["insight"])
    rule = e.add("Use uv, not pip.", type="constraint", priority="P1", said_by=["user"])
    how = e.add("Run `bd ready` to find the open tasks.", type="procedure", priority="P1", said_by=["user"])
    decision = e.add("We chose SQLite for the cache because it needs no server.", type="decision", priority="P2",
                     said_by=["user"])
    todo = e.add("The exporter is switched to the new API next.", type="decision", priority="P1", said_by=["user"])
    text = build_pack(e.events, TODAY).text
    assert agent.id not in section(text, "focus") and lesson.id not in section(text, "focus")
    assert todo.id in section(text, "focus") and how.id in section(text, "procedures")
    assert rule.id not in section(text, "focus") and rule.id in section(text, "context")
    context = section(text, "context")
    order = [context.index(x.id) for x in (decision, lesson, agent)]
    assert order == sorted(order)


def test_the_three_oldest_open_commitments_are_always_in_the_pack():
    log = Events()
    oldest = [log.add(f"Need to migrate the September report number {n} to the new warehouse schema", type="commitment",
                      priority="P2", entity=f"report_{n}", days_ago=80 - n) for n in range(3)]
    newer = [log.add(f"Need to review pull request {n} about the checkout flow and its many edge cases", type="commitment",
                     priority="P1", entity=f"pr_{n}", days_ago=20 - n % 20) for n in range(40)]
    commitments = section(build_pack(log.events, TODAY).text, "commitments")
    assert all(e.id in commitments for e in oldest), commitments
    assert "more not shown" in commitments and sum(e.id in commitments for e in newer) < 40  # the budget held


def test_a_line_names_its_entity_only_where_its_words_do_not():
    log = Events()
    named = log.add("Our tests run on Vitest.", type="decision", entity="vitest", priority="P1")
    hosted = log.add("We deploy to Fly.io.", type="decision", entity="fly_io", priority="P1")
    other = log.add("Bump the pool size before the sale.", entity="orders_db", priority="P1")
    text = build_pack(log.events, TODAY).text
    assert "(vitest)" not in text and "(fly_io)" not in text  # "Fly.io" names fly_io
    assert f"[{other.id}] Bump the pool size before the sale. (orders_db)" in text
    assert named.id in text and hosted.id in text
