"""Knowledge pages note what changed and why at the bottom (seed 001), keeping hand-written text."""

from __future__ import annotations

from memory_pipeline.stages.ledger.knowledge import START, knowledge_pages, merge_generated
from memory_pipeline.stages.ledger.knowledge_changes import CHANGES, change_note, generated_block, with_change_note
from memory_pipeline_tests.stages.ledger.helpers import TODAY, Events

PAGE = "entities/postgres.md"


def rebuild(page: str, events, day: str) -> str:
    """What LedgerFiles.write_knowledge does to one page."""
    generated = knowledge_pages(events, TODAY)[PAGE]
    new = merge_generated(page, generated)
    return with_change_note(new, change_note(generated_block(page), generated_block(new), day))


def test_a_rebuild_notes_what_came_in_and_what_went_out_and_why_below_the_hand_written_text():
    log = Events()
    old = log.add("The billing service uses Postgres 15", entity="postgres", priority="P1", days_ago=10)
    port = log.add("Postgres listens on port 5432", entity="postgres", days_ago=9)
    hand = "# My notes on Postgres\n\nAsk Dana before touching replication.\n"
    first = merge_generated(hand, knowledge_pages(log.events, TODAY)[PAGE])
    assert "[verified: 2026-11-13]" in first and CHANGES not in first
    new = log.add("The billing service moved to Postgres 16", entity="postgres", priority="P1", supersedes=old.id)
    second = rebuild(first + "\nA line written after the block.\n", log.events, "2026-11-23")
    assert second.startswith(hand.rstrip("\n")) and "A line written after the block." in second
    note = f"- 2026-11-23: added {new.id}; removed {old.id} (superseded by {new.id})"
    assert second.rstrip().endswith(f"{CHANGES}\n{note}")
    log.add("Postgres port is a hand-tuned setting", entity="postgres", type="relationship", days_ago=0)
    third = rebuild(second, log.events, "2026-11-24")
    assert third.count(CHANGES) == 1 and "A line written after the block." in third
    assert third.rstrip().splitlines()[-2].startswith("- 2026-11-23: added") and "- 2026-11-24: added" in third
    assert rebuild(third, log.events, "2026-11-25") == third  # nothing came in or went out: no note
    assert port.id in generated_block(third) and third.split(START, 1)[0] == second.split(START, 1)[0]


def test_an_event_no_page_lists_any_more_is_noted_without_a_reason_it_does_not_have():
    note = change_note("## Key Facts\n- a (EVT-20261120-001)\n- b (EVT-20261120-002)\n",
                       "## Key Facts\n- b (EVT-20261120-002)\n", "2026-11-23")
    assert note == "- 2026-11-23: removed EVT-20261120-001 (no longer active in the ledger)"
    assert with_change_note("page\n", None) == "page\n"
