"""How the thing being built behaves, as the user specifies it in work on software: kept by the offline Observer in
the user's words (a "Make it so X" states X), and bug reports, steps for now and moments left out
(stages/offline/observer_spec). Sentences written here, before the rule, beside those of a real Codex session."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.ledger.classify import classify_fact
from memory_pipeline.stages.offline.distil import is_rule
from memory_pipeline.stages.offline.observer_cues import ELIDED_SUBJECT
from memory_pipeline_tests.stages.offline.test_observer_keep import facts_of, one_turn
from memory_pipeline_tests.stages.offline.test_observer_standing import kept_in_chat, kept_in_work


@pytest.mark.parametrize(("text", "stated"), [
    ("The game simply ends if the king is captured.", "The game simply ends if the king is captured."),
    ("When a king is under check, that player can still move their other pieces.", None),
    ("If a piece is ready (no cooldown), then it moves instantly.", None),
    ("If a piece is on cooldown, moving it queues a pre-move.", None),
    ('There is also no concept of "check".', None),
    ("Any player can move off-cooldown pieces at any time.", None),
    ("A guest can only see the public boards.", None),
    ("When the cart is empty, the checkout button is disabled.", None),
    ("If a user has no email address, the invite is skipped.", None),
    ("An order is cancelled when the payment fails twice.", None),
    ("If the upload is larger than 10 MB, the API returns a 413.", None),
    ("When a subscription lapses, the account becomes read-only after 14 days.", None),
    # asked for: the fact is what it asks for
    ("Change the rule such that the game is lost when the king is captured.",
     "The game is lost when the king is captured."),
    ("Make it so each piece has a cooldown of 10 seconds as soon as you move it.",
     "Each piece has a cooldown of 10 seconds as soon as you move it."),
    ("Make it so an invoice is locked once it has been sent.", "An invoice is locked once it has been sent."),
])
def test_how_the_product_behaves_is_kept_in_work_on_software(text, stated):
    kept = kept_in_work(text)
    assert kept == [f'User stated: "{stated or text}"'], kept


@pytest.mark.parametrize("text", [
    "When I press new game, nothing happens.",  # a bug report: the user's doing, nothing follows
    "If I drag a piece, nothing happens.",
    "If you compare the two files, then you see that the new one is missing a lot of information.",
    "When I run the script, it crashes with a KeyError.",
    "If it fails again, let me know.",  # a step for now
    "When you're done, commit it.",
    "If the tests pass, push it to main.",
    "When I hover the tile, the green disappears.",
    "Currently, when the page loads, the board is empty.",  # a moment
    "If that doesn't work, try the other approach.",
    "When the build finishes, the page still shows the old version.",
    "The page crashes when the list is empty.",  # a failure in what follows the condition
    "The board doesn't render when the window is small.",
    "The modal flickers when the user scrolls.",
    "Make it so the buttons are on the right.",  # a wish about the screen, no behaviour
    "Make it so I can drag and drop the pieces.",
    "If you want, we can refactor the parser later.",
    "If the latter, then agent session needs to reload them before evaluating commands I think.",
    "When the server starts, it prints a warning about the port.",
])
def test_bug_reports_steps_for_now_and_moments_are_not_behaviour(text):
    assert kept_in_work(text) == []


def test_outside_work_on_software_a_condition_is_how_a_life_goes():
    assert kept_in_chat("When the store is closed, my neighbour waters the plants.") == []


def test_a_behaviour_the_user_states_is_a_decision_of_the_project_not_a_rule():
    """A choice made for the product: binding (it does not age out of the pack as a fact does), and no P0 rule."""
    typed = classify_fact('User stated: "If a piece is on cooldown, moving it queues a pre-move."', "high")
    assert (typed.type, typed.priority) == ("decision", "P1")
    # the same words in a chat's third-person fact are how a life goes, and the agent's are no choice of the user's
    assert classify_fact("When Dave is stressed, Dave goes for a drive.", "medium").type != "decision"


@pytest.mark.parametrize("text", [
    "`styles.css`: capture squares now use radial gradients anchored at each corner instead of full circles.",
    "`styles.css`: reintroduced a hover pseudo-element overlay (`::after`) instead of masking via box-shadow.",
    "`app.js`: deferred initialization to `DOMContentLoaded` instead of running at import, so the buttons bind later.",
    "server.ts: rewrote the handler to stream the body instead of buffering it.",
])
def test_an_edit_log_line_under_the_file_it_changed_is_no_finding(text):
    assert facts_of(one_turn("Assistant", text)) == []


def test_a_file_named_before_what_it_does_is_still_a_finding():
    text = "`config.py` reads the port from ORDERS_API_PORT instead of settings.toml, because the container sets it."
    assert [f.text for f in facts_of(one_turn("Assistant", text))] == [text]


@pytest.mark.parametrize(("text", "rule"), [
    ("Also remove the -o option and always write to prompt_history.md.", False),  # what the changed script does
    ("Make the lightweight mode the only mode and always run it.", False),
    ("Remove the debug prints and never commit them again.", True),  # holds beyond the change
    ("Add tests and always run them before pushing.", True),
    ("Make sure you always run the tests.", True),
])
def test_an_always_after_a_change_asked_of_the_code_says_what_the_code_does(text, rule):
    assert is_rule(text) is rule
    typed = classify_fact(f'User stated: "{text}"', "high")
    assert (typed.priority == "P0") is rule


@pytest.mark.parametrize("text", [
    "Warns explicitly when no assistant responses are found (likely due to a failed export).",
    "Attempts to export the session to `exported-session.jsonl`, then parses the messages from it.",
])
def test_a_list_item_whose_subject_is_its_heading_is_no_finding(text):
    assert facts_of(one_turn("Assistant", text)) == []
    assert ELIDED_SUBJECT.match(text)


@pytest.mark.parametrize("text", ["Tests run in parallel.", "Migrations must be reversible.",
                                  "Postgres truncates identifiers longer than 63 characters."])
def test_a_plural_noun_or_a_name_before_its_verb_is_a_subject(text):
    assert not ELIDED_SUBJECT.match(text)
