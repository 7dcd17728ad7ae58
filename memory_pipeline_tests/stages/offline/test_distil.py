"""Distil, don't quote (issue 52): the offline Observer keeps a durable statement in the user's words
without the chat around them, and leaves out what is transient, one-off or only meaningful in the
session; the shapes are judged on the wording alone (stages/offline/distil)."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.offline.distil import (distil, is_outline_label, is_plan_step, is_rule,
                                                     is_stated_rule, is_task_request)
from memory_pipeline_tests.stages.offline.test_observer_keep import facts_of, one_turn


@pytest.mark.parametrize(("said", "kept"), [
    ("omfg use fucking rgb values in the themes, no rgb indices!", "Use rgb values in the themes, no rgb indices!"),
    ("Hm, the cache lives in redis.", "The cache lives in redis."),
    ("Also: the billing service now uses Redis 7.", "The billing service now uses Redis 7."),
    ("FYI: we moved to Postgres 17 last week.", "We moved to Postgres 17 last week."),
    ("Remember: never push to main directly.", "Never push to main directly."),
    ("Note for the future: the staging database is reset every Sunday night.",
     "The staging database is reset every Sunday night."),
    ("For future reference, the staging database is reset every Sunday night.",
     "The staging database is reset every Sunday night."),
    ("Remember that staging uses the eu-west-1 region.", "Staging uses the eu-west-1 region."),
    ("Please note: the staging database is reset every Sunday night.", "The staging database is reset every Sunday night."),
    ("Please note the staging database is reset every Sunday night.", "The staging database is reset every Sunday night."),
    ("you haven't read the renderer in full i suppose", "You haven't read the renderer in full"),
    ("And by the way, the orders service runs on Postgres 16.", "The orders service runs on Postgres 16."),
    ("Speaking of which, staging reads from the replica.", "Staging reads from the replica."),
    ("Android builds use Gradle 8.", "Android builds use Gradle 8."),  # a word that starts with "and"
])
def test_the_chat_around_a_statement_is_dropped(said, kept):
    assert distil(said) == kept


@pytest.mark.parametrize("text", [
    "Never push to main directly, because CI deploys main to production.",
    "Use uv, not pip.",
    "Always run the linter before committing.",
    "You must not edit generated files.",
    "Use hex RGB values in the themes, no 256-colour indices!",
])
def test_rules(text):
    assert is_rule(text) and is_stated_rule(text)


@pytest.mark.parametrize("text", [
    "I've always been interested in ancient civilizations.",  # a habit described
    "Hm, i selected the theme while you were working and got a crash, that should never happen.",  # a remark
    "Should be dimmer, don't modify the theme, look into the footer sources",  # the task at hand
    "Why do we never cache this?",
    "It has always worked on Linux.",
    "No we never started over",  # an answer, then what happened ("never" + a past verb)
    "We never pushed to main before the freeze.",
    # the user's want, in the clause after a reason: no one orders a "don't want"
    "I'm thinking about bringing a water filter instead of tablets, since I'll be trekking for 10 days and don't want "
    "to carry a lot of tablets.",
    # a threshold of something described, pasted as a listing
    "Volunteer application process: Online application with a brief questionnaire; must be 16+ years old",
])
def test_not_rules(text):
    assert not is_rule(text)


def test_a_request_is_no_standing_rule_without_a_contrast_reason_or_mark():
    assert is_rule("Use the new parser in main.py") and not is_stated_rule("Use the new parser in main.py")
    assert is_task_request("Should be dimmer, don't modify the theme, look into the footer sources")


@pytest.mark.parametrize("text", [
    "Use InteractiveMode instead of TuiRenderer",
    "In `executeBash`, if `isStreaming`, queue the message instead of appending immediately",
    "Remove `agent_end` flush - flush on `prompt()` instead",
    # advice to have someone else do it, after a clause of when: no root cause found
    "During the maintenance check, have the mechanic inspect the brake system to determine the root cause.",
    "While you wait, ask the landlord for the inspection report.",
])
def test_plan_steps(text):
    assert is_plan_step(text)


def test_a_lead_clause_of_time_before_a_statement_is_no_plan_step():
    assert not is_plan_step("While the lock is held, the writer cannot flush the WAL.")
    assert not is_plan_step("The root cause was that the cache key ignored the locale.")


def test_outline_labels_but_not_causes():
    assert is_outline_label("Naming clarity: `InteractiveMode` instead of `TuiRenderer`")
    assert not is_outline_label("Root cause: the pool was never closed.")
    assert not is_outline_label("The pattern is: getters are cheap reads.")


@pytest.mark.parametrize(("role", "text"), [
    ("User", "I've always been interested in ancient civilizations."),
    ("User", "Hm, i selected the theme while you were working and got a crash, that should never happen."),
    ("User", "Should be dimmer, don't modify the theme, look into the footer sources"),
    ("User", "i actually want to move those files to their final location."),  # "those files": another turn's
    ("Assistant", "The aliases are unused because the code still uses the full module paths."),  # a passing state
    ("Assistant", "Use InteractiveMode instead of TuiRenderer"),  # a plan step
    ("Assistant", "Naming clarity: `InteractiveMode` instead of `TuiRenderer`"),  # an outline label
    ("Assistant", "The sed command didn't work because of the multiline format."),  # its own tool failing
    ("Assistant", "But `mount_computers` is never called for that branch which means the assign doesn't exist."),
])
def test_transient_and_session_bound_sentences_are_not_facts(role, text):
    assert facts_of(one_turn(role, text)) == []


@pytest.mark.parametrize(("said", "fact"), [
    ("omfg use fucking rgb values in the themes, no rgb indices!",
     'User stated: "Use rgb values in the themes, no rgb indices!"'),
    ("Update: we upgraded the orders service from Postgres 15 to Postgres 16 last night; 15 is gone.",
     'User stated: "We upgraded the orders service from Postgres 15 to Postgres 16 last night; 15 is gone."'),
    ("FYI: we moved to Postgres 17 last week.", 'User stated: "We moved to Postgres 17 last week."'),
    ("Also: the billing service now uses Redis 7 for its queue.",
     'User stated: "The billing service now uses Redis 7 for its queue."'),
])
def test_rules_and_corrections_in_ordinary_words_become_distilled_facts(said, fact):
    facts = facts_of(one_turn("User", said) + "\n[10:01] [Assistant] (m2): Understood.\n"
                     "→ Bash(command=git status)")
    assert [f.text for f in facts] == [fact] and facts[0].priority == "high"


@pytest.mark.parametrize(("said", "label"), [
    # a user telling of their own doings or plans: "instead of" and "actually" correct no one
    ("I've started taking the stairs instead of the elevator at work, and I walk to the office now.",
     "User stated"),
    ("We're considering camping at Lake Tahoe instead of staying in a hotel this summer.", "User stated"),
    # a wish about the work, or a redirect, still corrects the agent
    ("I'd rather use pnpm instead of npm for the frontend packages.", "User corrected the agent"),
    ("Use the fixtures in tests/data instead of mocking the database.", "User corrected the agent"),
    ("No, we want to put it in the pending message container.", "User corrected the agent"),
])
def test_a_user_telling_of_their_own_plans_is_no_correction_of_the_agent(said, label):
    facts = facts_of(one_turn("User", said) + "\n[10:01] [Assistant] (m2): Understood.")
    assert [f.text.split(":")[0] for f in facts] == [label]


@pytest.mark.parametrize("text", [
    "Dialyzer knows `session_record` is always a `%Session{}` because of the `with` clause.",  # a checker's report
    "The `TranscriptRenderer` alias was removed since it came from the old alias group.",  # this session's change
    "The fix is simple: use `queueMessage` instead of `appendMessage` when streaming.",  # a fix proposed, not made
])
def test_reports_changes_and_proposed_fixes_of_the_agent_are_not_facts(text):
    assert facts_of(one_turn("Assistant", text)) == []


def test_how_to_run_a_named_command_is_kept_and_a_plain_request_is_not():
    kept = facts_of(one_turn("User", "Work on the epic. Run bd show EPIC-1 to see the details and bd ready to find "
                                     "open tasks.") + "\n[10:01] [Assistant] (m2): Sure.\n→ Bash(command=bd ready)")
    assert [f.text for f in kept] == ['User stated: "Run bd show EPIC-1 to see the details and bd ready to find open '
                                      'tasks."']
    assert facts_of(one_turn("User", "Run the tests to check it works.") + "\n[10:01] [Assistant] (m2): Sure.") == []


def test_an_answer_to_the_agents_question_names_what_it_answers():
    transcript = ("[10:00] [Assistant] (m1): All committed. There's an unused import warning (BashExecutionMessage "
                  "type) but it passes. Want me to clean that up too?\n"
                  "[10:01] [User] (m2): yes need to be fully clean\n"
                  "[10:02] [Assistant] (m3): Done.\n→ Bash(command=npm run check)")
    [fact] = facts_of(transcript)
    assert fact.text == ('User answered "There\'s an unused import warning (BashExecutionMessage type) but it '
                         'passes. Want me to clean that up too?": "Need to be fully clean"')
    assert fact.priority == "high" and fact.source_message_ids == ["id-1", "id-2"]
    plain_yes = transcript.replace("yes need to be fully clean", "yes")
    assert facts_of(plain_yes) == []


def test_what_the_agent_failed_to_do_is_a_correction_and_a_change_still_to_make_is_no_fact():
    [fact] = facts_of(one_turn("User", "you havne't read @src/tui/renderer.ts in full i suppose")
                      + "\n[10:01] [Assistant] (m2): Reading it now.\n→ Read(file_path=src/tui/renderer.ts)")
    assert fact.text == 'User corrected the agent: "Read @src/tui/renderer.ts in full."'
    assert facts_of(one_turn("User", "i can live with main-new.ts in src/, but the rest needs to be duplicated or "
                                     "moved to dirs we can keep later")
                    + "\n[10:01] [Assistant] (m2): OK.\n→ Bash(command=ls)") == []


def test_an_answer_about_what_comes_next_is_no_fact():
    transcript = ("[10:00] [Assistant] (m1): This is the largest remaining work package. Would you like me to "
                  "continue with WP15, or would you prefer to test the current changes first?\n"
                  "[10:01] [User] (m2): yes, and then we test print mode and rpc mode together\n"
                  "[10:02] [Assistant] (m3): Done.\n→ Bash(command=ls)")
    assert not [f for f in facts_of(transcript) if f.text.startswith("User answered")]


def test_a_correction_that_says_it_carries_what_it_is_about():
    transcript = ("[10:00] [User] (m1): so if the user runs bash commands while streaming, they are queued until "
                  "the next prompt, right?\n"
                  "[10:01] [Assistant] (m2): Yes. Want me to show them in the chat at agent_end?\n"
                  "[10:02] [User] (m3): no, we want to put it in the pending area, and on next submit move it to "
                  "the chat.\n[10:03] [Assistant] (m4): Done.\n→ Bash(command=ls)")
    [fact] = [f for f in facts_of(transcript) if f.text.startswith("User corrected")]
    assert fact.text.endswith('(about: "If the user runs bash commands while streaming, they are queued until the '
                              'next prompt, right?")'), fact.text


@pytest.mark.parametrize("text", [
    "Tests should never call the real billing API.",
    "Let's not retry on 503 any more, billing returns 503 during deploys and retries make the pile-up worse.",
    "Production runs behind the nginx ingress on port 443, so never hard-code 8471 in the app.",
    "From now on, every CI job that needs Postgres waits on pg_isready first.",
])
def test_rules_with_a_subject_a_lets_not_or_a_from_now_on(text):
    assert is_rule(text) and is_stated_rule(text)


def test_an_imperative_update_or_remember_is_not_chat():
    assert distil("Please update the local setup to match.") == "Please update the local setup to match."
    assert distil("Update the local setup to match.") == "Update the local setup to match."
    assert distil("Remember to run the tests first.") == "Remember to run the tests first."


def test_a_request_to_update_something_is_no_fact():
    assert facts_of(one_turn("User", "Please update the local setup to match.")
                    + "\n[10:01] [Assistant] (m2): Done.\n→ Bash(command=ls)") == []


@pytest.mark.parametrize("text", ["Look into the footer sources.", "Well-known ports stay closed.",
                                  "Right now the export runs at 02:00."])
def test_words_that_open_a_statement_are_kept_without_the_comma_of_an_interjection(text):
    assert distil(text) == text
    assert distil("Look, " + text[:1].lower() + text[1:]) == text
