"""Ledger rules without I/O: typing, the model's validation, open loops, integrity, archival,
knowledge pages keeping hand-written text."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.ledger.archive import plan_compaction
from memory_pipeline.stages.ledger.classify import classify_fact, event_type
from memory_pipeline.stages.ledger.event_typing import facts_block, parse_typing, type_facts_offline
from memory_pipeline.stages.ledger.index import advance_open_loops, rebuild_open_loops
from memory_pipeline.stages.ledger.integrity import structural_checks
from memory_pipeline.stages.ledger.knowledge import START, knowledge_pages, merge_generated
from memory_pipeline.stages.ledger.model import parse_lines
from memory_pipeline_tests.stages.ledger.helpers import TODAY, Events


@pytest.mark.parametrize("text, mark, kind, priority, entity", [
    ('User decided: "We moved from Postgres 15 to 16 last night."', "high", "decision", "P1", "postgres"),
    ('User stated: "Never force-push to main."', "high", "constraint", "P0", None),
    ("I will follow up with Scott about the invoice", "medium", "commitment", "P1", "scott"),
    ("We'll move Billing to the new queue next sprint", "medium", "commitment", "P1", "billing"),
    ("the Spring fair needs new stock, which will increase my costs", "medium", "fact", "P2", "spring"),
    ("Dana will review the Billing migration before it ships", "medium", "commitment", "P1", "dana"),
    # taking the agent's advice is no open commitment unless it names when
    ("I'll definitely use some of those ideas to reach my Fundraising goal", "medium", "fact", "P2", "fundraising"),
    ("I think I'll try out Mint and Personal Capital", "medium", "fact", "P3", "mint"),
    ("I think I'll start by exploring the Plotly resources you mentioned", "medium", "fact", "P3", "plotly"),
    ("I'll try to ship the Billing fix by Friday", "medium", "commitment", "P1", "billing"),
    ("I'll look into the flaky Billing test tomorrow", "medium", "commitment", "P1", "billing"),
    # a promise on a condition is no open commitment; a choice still weighed is no decision
    ("If the Billing build fails again, I'll pin the old version", "medium", "fact", "P2", "billing"),
    ("If possible, I'll finish the Billing migration by Friday", "medium", "commitment", "P1", "billing"),
    # a feeling is no promise
    ("Melanie will never forget the Perseid camping trip", "medium", "fact", "P2", "melanie"),
    ("I'll always remember the Perseid trip, and I'll send Dana the photos tomorrow", "medium", "commitment", "P1",
     "perseid"),
    ("I'll definitely use my Fitbit Versa 3 to track my sleep patterns", "medium", "fact", "P2", "fitbit"),
    ("I'll also have to give the Bee's Knees a shot, since I love gin and honey", "medium", "fact", "P2", "bee"),
    # "I like" that qualifies a thing states no taste
    ("If I find a design I like, I'll save it to my favorites", "medium", "fact", "P2", None),
    ("I think I'll try out Mint and Personal Capital to see which one I like better", "medium", "fact", "P3", "mint"),
    ("The medications don't seem to be working as well as I'd like", "medium", "fact", "P2", None),
    ("For the Billing backend I prefer Go", "medium", "preference", "P2", "billing"),
    ("I'd like the Billing exports as CSV", "medium", "preference", "P2", "billing"),
    ("John says moments like these remind him to appreciate the ones he loves", "medium", "fact", "P2", "john"),
    ("I've got a few Dyson tools like a cordless vacuum that I use regularly", "medium", "fact", "P2", "dyson"),
    ("I'm thinking of moving Billing to the new queue instead of cron", "medium", "fact", "P3", "billing"),
    ("Maybe we should go with Valkey for the Billing cache", "medium", "fact", "P3", "valkey"),
    ("We decided to go with Valkey for the Billing cache", "medium", "decision", "P1", "valkey"),
    # a life told is no procedure, whatever its "run" or "how to"; the way to do something still is
    ("I currently run 3 times a week, with one longer Saturday run", "high", "fact", "P1", None),
    ("I always run `make gen` after editing the protos", "high", "procedure", "P1", None),
    ("User prefers tabs over spaces", "low", "preference", "P3", None),
    ("Modified `src/app/db.py` — pool size", "medium", "fact", "P2", "db"),
    ("Redis runs on port 6380", "high", "fact", "P1", "redis"),
    ('Ran `git add -A && git commit -m "WP3"`', "high", "fact", "P1", "git"),  # a record, not a procedure
    ("To release, run `make release` from a clean tree", "high", "procedure", "P1", None),
    ("i can live with main-new.ts in src/, but the rest needs to be duplicated", "high", "fact", "P1", None),
])
def test_facts_are_typed_prioritized_and_named(text, mark, kind, priority, entity):
    found = classify_fact(text, mark)
    assert (found.type, found.priority, found.entity) == (kind, priority, entity)


def test_the_offline_typing_answer_parses_and_a_bad_answer_is_refused():
    block = facts_block([("We moved from Postgres 15 to 16", "high"), ("Waiting on the vendor's API key", "medium")])
    kinds = parse_typing(type_facts_offline("", f"<facts>\n{block}\n</facts>"), ["high", "medium"])
    assert kinds[0].change and kinds[0].entity == "postgres" and "waiting" in kinds[1].tags
    with pytest.raises(ValueError, match="no answer for F2"):
        parse_typing('[{"ref": "F1", "type": "fact", "priority": "P1"}]', ["high", "medium"])
    with pytest.raises(ValueError, match="type 'opinion'"):
        parse_typing('[{"ref": "F1", "type": "opinion", "priority": "P1"}]', ["high"])


def test_bad_lines_are_reported_with_their_numbers():
    log = Events()
    good = log.add("Kafka keeps 7 days of data", entity="kafka")
    lines = [good.line(), "{not json", good.line().replace('"P2"', '"P9"'), ""]
    parsed = parse_lines(lines)
    assert [e.id for e in parsed.events] == [good.id]
    assert [(e.line, e.reason.split(":")[0]) for e in parsed.errors] == [(2, "line"), (3, "priority"), (4, "line")]


def test_structural_checks_find_duplicates_gaps_and_dangling_references():
    log = Events()
    a = log.add("First", entity="x")
    b = log.add("Second", entity="x", supersedes="EVT-20200101-001", related=["EVT-20200101-002"])
    parsed = parse_lines([a.line(), b.line(), a.line()])
    checks = {c.name: c for c in structural_checks(parsed, [], None, {"last_processed_event_id": "EVT-20200101-009"})}
    assert checks["unique_ids"].found == [a.id]
    assert checks["sequential_ids"].found == [f"{a.id} after {b.id}"]
    assert checks["supersedes_resolve"].found == [f"{b.id} -> EVT-20200101-001"]
    assert checks["related_resolve"].count == 1 and not checks["checkpoint_valid"].passed
    gap = parse_lines([a.line(), log.add("Third", entity="x").line()])
    assert {c.name: c for c in structural_checks(gap, [], [], None)}["sequential_ids"].found == [b.id + " missing"]


def test_the_incremental_open_loops_index_equals_a_rebuild_at_every_step():
    log = Events()
    first = log.add("Need to fix the flaky test", type="commitment", days_ago=9)
    second = log.add("Need to bump the SDK", type="commitment", days_ago=8)
    log.add("Fixed the flaky test", type="commitment", status="closed", related=[first.id], days_ago=7)
    log.add("Need to bump the SDK to v3", type="commitment", supersedes=second.id, days_ago=6)
    log.add("Need to reply to the audit", type="commitment", days_ago=5)
    index: list[str] = []
    for n, event in enumerate(log.events, start=1):
        index = advance_open_loops(index, [event])
        assert index == rebuild_open_loops(log.events[:n])
    assert len(index) == 2 and first.id not in index and second.id not in index


def test_resolved_chains_older_than_30_days_are_archived_but_p0_p1_and_recent_ones_stay():
    log = Events()
    old = log.add("Staging uses node 16", entity="staging", days_ago=80)
    newer = log.add("Staging uses node 18", entity="staging", supersedes=old.id, days_ago=60)
    rule = log.add("Never deploy on Friday", type="constraint", priority="P1", entity="deploy", days_ago=90)
    log.add("Never deploy on Friday or Saturday", type="constraint", priority="P1", entity="deploy",
            supersedes=rule.id, days_ago=70)
    recent = log.add("Cache TTL is 60s", entity="cache", days_ago=20)
    log.add("Cache TTL is 120s", entity="cache", supersedes=recent.id, days_ago=10)
    plan = plan_compaction(log.events, TODAY, log.events[-1].ts, 1)
    assert [e.id for e in plan.archived] == [old.id, newer.id]
    [summary] = plan.summaries
    assert summary.content.startswith("Staging uses node 18") and "archived-chain" in summary.tags
    assert rule.id in {e.id for e in plan.keep} and recent.id in {e.id for e in plan.keep}


def test_knowledge_pages_keep_hand_written_text():
    log = Events()
    log.add("The billing service uses Postgres 16", entity="postgres", priority="P1", days_ago=40)
    page = knowledge_pages(log.events, TODAY)["entities/postgres.md"]
    assert page.startswith("# Postgres") and "[verified: 2026-10-14] [⚠️ STALE]" in page
    hand = "# My notes on Postgres\n\nAsk Dana before touching replication.\n"
    merged = merge_generated(hand, page)
    assert merged.startswith(hand.rstrip("\n")) and START in merged
    edited = merged + "\nA line written after the block.\n"
    again = merge_generated(edited, page.replace("16", "17"))
    assert "Ask Dana" in again and "A line written after the block." in again and "Postgres 17" in again
    assert "Postgres 16" not in again.split(START, 1)[1]


@pytest.mark.parametrize("text, kind, priority", [
    ('User stated: "Use rgb values in the themes, no rgb indices!"', "constraint", "P0"),  # the user's real rule
    ('User stated: "I\'ve always been interested in ancient civilizations."', "fact", "P1"),
    ('User stated: "Should be dimmer, don\'t modify the theme, look into the footer sources"', "fact", "P1"),
    ('User stated: "Hm, i selected the theme and got a crash, that should never happen."', "fact", "P1"),
    # the generic "you" describes; "no X" after another clause is relief, not a rule (lme-dev's P0s)
    ('User stated: "And you\'re right, you never know what opportunities might arise from those connections."',
     "fact", "P1"),
    ('User stated: "My pantry is finally organized and I can see everything I have, no more expired cans."',
     "fact", "P1"),
    ('User stated: "I did the hoof trimming two weeks ago and it was a success, no mess at all!"', "fact", "P1"),
    ('User stated: "You must never call the production API from the tests."', "constraint", "P0"),
    ('User stated: "We never deploy on Fridays, the on-call is thin."', "constraint", "P0"),
])
def test_p0_is_for_rules_shaped_like_rules(text, kind, priority):
    found = classify_fact(text, "high")
    assert (found.type, found.priority) == (kind, priority)


def test_corrections_in_ordinary_words_supersede_what_they_replace():
    from datetime import datetime, timezone

    from memory_pipeline.resources.embedding.embedder import get_embedder
    from memory_pipeline.stages.ledger.derive import FactInput, derive_events
    from memory_pipeline.stages.ledger.state import LedgerState
    from memory_pipeline.stages.vectors import cosine

    embed = get_embedder().encode

    def similarity(text, others):
        first, *rest = embed([text, *others])
        return [max(0.0, cosine(first, other)) for other in rest]

    said = ['User stated: "The orders service runs on Postgres 15."',
            'User stated: "Update: we upgraded the orders service from Postgres 15 to Postgres 16 last night; '
            '15 is gone."',
            'User stated: "FYI: we moved the orders service to Postgres 17 last week."']
    facts = [FactInput(fact_id=f"f{n}", text=text, observer_priority="high", day=f"2026-11-2{n}",
                       ts=datetime(2026, 11, 20 + n, 9, tzinfo=timezone.utc), source="memory/x.md", roles=("user",))
             for n, text in enumerate(said)]
    state = LedgerState.of([])
    events = derive_events(facts, [classify_fact(f.text, "high") for f in facts], state, similarity, {})
    assert [e.entity for e in events] == ["postgres"] * 3  # not "update" or "fyi"
    assert events[1].supersedes == events[0].id and events[2].supersedes == events[1].id
    assert events[2].content == "We moved the orders service to Postgres 17 last week."
    assert [e.id for e in state.active()] == [events[2].id]


def test_an_answer_is_a_decision_with_its_question_and_a_correction_keeps_its_subject():
    from memory_pipeline.stages.ledger.classify import plain_text

    answered = ('User answered "There\'s an unused import warning but it passes. Want me to clean that up too?": '
                '"Need to be fully clean"')
    assert classify_fact(answered, "high").type == "decision"  # not an open commitment ("need to")
    assert plain_text(answered) == ("Need to be fully clean (the user's answer to: There's an unused import warning "
                                    "but it passes. Want me to clean that up too?)")
    about = 'User corrected the agent: "No, we want to put it in the pending area." (about: "bash results")'
    assert plain_text(about) == "No, we want to put it in the pending area (about: bash results)"


def test_a_change_supersedes_only_a_fact_about_the_same_thing():
    """Facts filed under one person are not one fact: "went to a parade" after "went to a council meeting"
    supersedes nothing (a change cue and the name's cosine were enough before: LoCoMo dev lost 12 facts
    and their messages to it); a change of the entity itself, or of a thing both name, still does."""
    from datetime import datetime, timezone

    from memory_pipeline.resources.embedding.embedder import get_embedder
    from memory_pipeline.stages.ledger.derive import FactInput, derive_events
    from memory_pipeline.stages.ledger.state import LedgerState
    from memory_pipeline.stages.vectors import cosine

    embed = get_embedder().encode

    def similarity(text, others):
        first, *rest = embed([text, *others])
        return [max(0.0, cosine(first, other)) for other in rest]

    def derived(said: list[str]):
        facts = [FactInput(fact_id=f"f{n}", text=text, observer_priority="high", day=f"2026-11-2{n}",
                           ts=datetime(2026, 11, 20 + n, 9, tzinfo=timezone.utc), source="memory/x.md",
                           roles=("user",)) for n, text in enumerate(said)]
        kinds = [classify_fact(f.text, "high") for f in facts]
        return kinds, derive_events(facts, kinds, LedgerState.of([]), similarity, {})

    kinds, events = derived(["Last Friday Caroline went to a council meeting for adoption.",
                             "One special memory for Caroline was this pride parade Caroline went to a few weeks ago.",
                             "Caroline moved from Caroline's home country four years ago."])
    assert [e.entity for e in events] == ["caroline"] * 3
    assert not kinds[1].change  # "went to" an outing is no change
    assert kinds[2].change  # "moved from" is, but of nothing the others name
    assert [e.supersedes for e in events] == [None, None, None]
    kinds, events = derived(["Caroline feels really proud of the LGBTQ community.",
                             "Actually, Caroline is really enjoying the camping trip with the kids."])
    assert kinds[1].change and events[1].supersedes is None  # a cue, and only a filler in common
    _, events = derived(["The orders service runs on Postgres 16.", "We moved to Postgres 17 last week.",
                         "We moved the orders service to Postgres 18 today."])
    assert events[1].supersedes == events[0].id and events[2].supersedes == events[1].id


def test_a_fact_its_session_already_stated_in_other_words_adds_no_second_event():
    """The agent's finding said twice in one session is one line of the pack; the same words from another session,
    the other polarity or other numbers are not a restatement."""
    from datetime import datetime, timezone

    from memory_pipeline.stages.ledger.derive import FactInput, derive_events
    from memory_pipeline.stages.ledger.state import LedgerState

    def derived(said: list[tuple[str, str]], roles=(("assistant",), ("assistant",))):
        facts = [FactInput(fact_id=f"f{n}", text=text, observer_priority="high", day="2026-01-06",
                           ts=datetime(2026, 1, 6, 9, n, tzinfo=timezone.utc), source="memory/x.md", session=session,
                           roles=roles[n]) for n, (session, text) in enumerate(said)]
        kinds = [classify_fact(f.text, "high") for f in facts]
        return derive_events(facts, kinds, LedgerState.of([]), lambda text, others: [0.0] * len(others), {})

    first = "Finding: The SQLite database is NOT required for session functionality!"
    again = "Finding: The SQLite database (`__store.db`) is NOT required."
    events = derived([("s1", first), ("s1", again)])
    assert len(events) == 1 and "session functionality" in events[0].content
    assert len(derived([("s1", first), ("s2", again)])) == 2  # another session says it: the ledger shows both
    assert len(derived([("s1", first), ("s1", again)], roles=(("assistant",), ("web",)))) == 2  # another speaker
    assert len(derived([("s1", first), ("s1", "Finding: The SQLite database (`__store.db`) is required.")])) == 2
    assert len(derived([("s1", "The worker pool runs 4 threads for the search index"),
                        ("s1", "The worker pool runs 8 threads")])) == 2


@pytest.mark.parametrize(("text", "kind"), [
    # a life told, whoever tells it: "run", "steps" and "how to" name no way of doing something
    ("They've been there for Caroline every step of the way", "fact"),
    ("Melanie will never forget the day her son took his first steps", "fact"),
    ("It taught Caroline self-acceptance and how to find support", "fact"),
    ("After John's last run, John saw the impact John could make in the community", "fact"),
    ("John set up a 5K charity run in our neighborhood", "fact"),
    # the way to do something: a command named, an instruction, a "how to", a named process's steps
    ("Run bd show spotter-dov to see the issue details", "procedure"),
    ("To deploy, run the deploy script from the ops repo", "procedure"),
    ("How to release: tag main and push the tag", "procedure"),
    ("The release steps are: tag, build, publish", "procedure"),
    ("Our workflow: branch, open a PR, squash-merge", "procedure"),
    # a decision's words as verbs of a choice made: not their nouns, not a fit, not the time of something else
    ("Caroline just contacted her mentor for adoption advice", "fact"),
    ("First run the migrations, then restart the workers", "procedure"),
    ("They're so comfortable and I love how they go with my jeans and dresses", "fact"),
    ("I found it hard to understand the cultural context when I first moved to Japan", "fact"),
    ("Both blood and the ones we choose", "fact"),
    ("We migrated billing to the new queue", "decision"),
    ("We adopted Biome instead of ESLint", "decision"),
    ("I'm going with the black dress", "decision"),
    ("Go with BlockingConnectionPool with a 5 second timeout", "decision"),
    ("We moved to Postgres 17 last week", "decision"),
])
def test_a_procedure_is_a_way_of_doing_something_and_a_decision_a_choice_made(text, kind):
    assert event_type(text) == kind
