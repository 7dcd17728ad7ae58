"""What the offline Reflector proposes: durable, self-contained lines in the right section, nothing else."""

from __future__ import annotations

import pytest

from memory_pipeline.models import Segment
from memory_pipeline.stages.offline.reflector_rules import clean_fact
from memory_pipeline_tests.stages.offline.test_reflector import offline
from memory_pipeline_tests.support.review_fixtures import fact, observation

# routine low-priority context, so the observations outweigh any answer (the Reflector must compress)
CONTEXT = [f"Looked at the dashboard panel number {n} while waiting for the deploy to finish" for n in range(12)]


def proposals_for(*facts_by_session: tuple[str, list[str]]):
    observations = [observation("2026-11-17", session, [Segment(title="work", facts=[
        *(fact("high", t, key=session) for t in texts), *(fact("low", c, key=session) for c in CONTEXT)])], hour=9 + i)
                    for i, (session, texts) in enumerate(facts_by_session)]
    _, output, _ = offline(observations)
    return output.proposals


@pytest.mark.parametrize("text", [
    "All 128 tests pass and the linter is clean.",
    "Error: ENOENT: no such file or directory, open '/srv/app/src/package.json'",
    'User corrected the agent: "No, that\'s horrible."',
    "The issue is the type annotation.",
    "It uses the theme loader which we fixed earlier.",
    'User stated: "Propose where each of these modules should go."',
    "Should the exporter retry on a 429 from the billing API?",
    "PROJ-12 — Upgraded the invoice renderer.",
    "We removed about 300 lines from the entry point today.",
    "Removed silent truncation, added a longer default with expand groups.",
    "But the loader is never called for that branch so the config stays empty.",
    # change logs of the session (issue 26): its narrative keeps them
    "Removed 7 hide methods and 7 selector member variables, replaced with one `showSelector` helper.",
    "Replaced ~20 instances of the status message pattern with `showStatus()`.",
    "`config.ts` moved to `src/`, all imports updated.",
    "The `TranscriptRenderer` alias was removed since it came from the old alias group.",
    "Moved the exporters to `app/exporters/` and the shared helpers to `app/common/`.",
])
def test_quotes_status_error_lines_requests_and_one_session_details_are_not_proposed(text):
    assert proposals_for(("s1", [text])) == []


@pytest.mark.parametrize(("text", "section"), [
    ('User stated: "From now on, never run the seed script against production."', "Hard Rules"),
    ('User stated: "I would only want end-to-end tests for the session API, unit tests elsewhere are noise."', "User"),
    ("The issue is that `__dirname` points at `utils/` after the move, so `dirname(__dirname)` misses the package root.",
     "Patterns"),
    ("The exporters live in `app/exporters/` and the shared helpers in `app/common/`.", "System Architecture"),
])
def test_durable_statements_land_in_their_section(text, section):
    [proposal] = proposals_for(("s1", [text]))
    assert proposal.section == section


def test_an_agents_never_describes_code_and_is_not_a_hard_rule():
    proposals = proposals_for(("s1", ["The cache warmer never runs before the migrations because the job depends on "
                                      "`migrate_all` in `jobs/schedule.py`."]))
    assert proposals and all(p.section != "Hard Rules" for p in proposals)


def test_facts_from_unrelated_sessions_sharing_only_a_folder_stay_apart():
    proposals = proposals_for(
        ("billing", ["The issue is that the invoice job reads `utils/` templates relative to the working directory, "
                     "so cron runs render empty invoices."]),
        ("frontend", ["The date pickers and modal dialogs live in the `utils/` and `components/forms/` folders."]),
    )
    assert len(proposals) == 2
    assert all(len(p.sessions) == 1 for p in proposals)


def test_a_correction_worded_as_what_to_do_is_proposed_and_a_plain_request_is_not():
    [proposal] = proposals_for(("s1", ['User corrected the agent: "Read `src/tui/renderer.ts` in full before '
                                       'rewriting it."']))
    assert proposal.text.startswith("Read `src/tui/renderer.ts` in full")
    [short] = proposals_for(("s1", ['User corrected the agent: "Read @src/tui/renderer.ts in full."']))
    assert short.text == "Read @src/tui/renderer.ts in full." and short.section == "Hard Rules"
    assert proposals_for(("s1", ['User stated: "Read `src/tui/renderer.ts` in full before rewriting it."'])) == []


@pytest.mark.parametrize("text", [
    "Use `InteractiveMode` instead of `TuiRenderer`.",  # a plan step
    "Naming clarity: `InteractiveMode` instead of `TuiRenderer`.",  # an outline label
    "The fix is simple: use `queueMessage` instead of `appendMessage` when streaming.",  # proposed, not made
    "Dialyzer knows `session_record` is never nil because of the `with` clause.",  # a checker's report
])
def test_the_agents_plans_and_reports_are_not_proposed(text):
    assert proposals_for(("s1", [text])) == []


def test_a_cause_and_its_fix_from_the_same_stretch_of_work_are_one_proposal():
    proposals = proposals_for(("s1", ["The issue is that `__dirname` is now `utils/`, so `dirname(__dirname)` misses "
                                      "the package root.",
                                      "Fixed by making `getPackageDir()` walk up to the nearest `package.json` instead."]))
    assert len(proposals) == 1 and "__dirname" in proposals[0].text and "getPackageDir" in proposals[0].text


def test_a_request_the_user_made_in_several_turns_is_proposed_with_how_often():
    [proposal] = proposals_for(("s1", ['User asked 3 times: "read it in full"']))
    assert proposal.text == "Read it in full (the user asked 3 times)."
    assert proposals_for(("s1", ['User stated: "Read it in full."'])) == []  # once: a request for that task
    [command] = proposals_for(("s1", ['User asked 2 times: "Run `pnpm run verify`"']))
    assert command.text == "Run `pnpm run verify` (the user asked 2 times)."


def test_a_rule_that_opens_with_no_before_a_noun_is_proposed():
    [proposal] = proposals_for(("s1", ['User corrected the agent: "No console logs! `setTheme` should return an error '
                                       'the caller can display however it wants"']))
    assert proposal.text.startswith("No console logs!") and proposal.section == "Hard Rules"


def test_a_reproach_turned_into_what_to_check_is_proposed():
    [proposal] = proposals_for(("s1", ['User corrected the agent: "Check the source code before saying the docs '
                                       'look up-to-date."']))
    assert proposal.text == "Check the source code before saying the docs look up-to-date."


def test_a_short_prohibition_and_a_correction_after_a_rejection_are_proposed():
    [short] = proposals_for(("s1", ['User corrected the agent: "No deprecation aliases!"']))
    assert short.text == "No deprecation aliases!" and short.section == "Hard Rules"
    [fact] = proposals_for(("s1", ['User corrected the agent: "This is not how it works. The audit log table is '
                                   'insert only"']))
    assert fact.text == "The audit log table is insert only."


def test_a_problem_whose_segment_ended_with_the_fix_is_not_proposed():
    def proposed(outcome: str) -> list[str]:
        segment = Segment(title="startup without keys", narrative=f"The user wrote: \"fix #288\". The agent modified "
                                                                  f"`sdk.ts` (12 tool calls). Outcome: {outcome}",
                          facts=[fact("high", "The issue is that `createSession` throws an error when no models are "
                                              "available.", key="s1"),
                                 *(fact("low", c, key="s1") for c in CONTEXT)])
        _, output, _ = offline([observation("2026-11-17", "s1", [segment])])
        return [p.text for p in output.proposals]
    assert proposed("The fix is complete.") == []
    assert [t for t in proposed("Let me look at the model resolver next.") if "createSession" in t]  # still open


def test_an_issue_opened_for_later_is_not_proposed_for_memory():
    assert proposals_for(("s1", ['Follow up later (the user had an issue opened for it): Untangle the export '
                                 'retries'])) == []


def test_a_rule_is_proposed_without_the_please_it_was_asked_with():
    assert clean_fact('User corrected the agent: "Please make sure the docs folder is updated."')[0] == \
        "Make sure the docs folder is updated."
    assert clean_fact('User stated: "Plase don\'t rewrite the changelog, make surgical edits"')[0] == \
        "Don't rewrite the changelog, make surgical edits."
    assert clean_fact("Please note the cache is rebuilt nightly.")[0] == "Please note the cache is rebuilt nightly."


def test_a_short_finding_the_agent_named_is_proposed():
    kept = proposals_for(("s1", ["Finding: Claude Code turns underscores into hyphens"]))
    assert [p.text for p in kept if "hyphens" in p.text] == ["Claude Code turns underscores into hyphens."]
    assert not [p for p in proposals_for(("s1", ["Claude Code turns underscores into hyphens"])) if "hyphens" in p.text]


def test_a_finding_said_again_in_fewer_words_is_not_a_second_part():
    kept = proposals_for(("s1", ["Finding: The SQLite store is not required for sessions to resume!",
                                 "Finding: The SQLite store (`__store.db`) is not required."]))
    [line] = [p.text for p in kept if "SQLite" in p.text]
    assert line == "The SQLite store (`__store.db`) is not required."  # the wording that names more of it


def test_a_finding_and_its_opposite_are_not_one_line():
    kept = proposals_for(("s1", ["Finding: The SQLite store is required for sessions to resume!",
                                 "Finding: The SQLite store (`__store.db`) is not required."]))
    said = " ".join(p.text for p in kept if "SQLite" in p.text)
    assert "is required for sessions" in said and "is not required" in said  # two lines, or two parts of one


def test_an_order_of_work_said_with_lets_is_proposed():
    kept = proposals_for(("s1", ['User stated: "Let\'s think first, before we change anything"']))
    assert [(p.section, p.text) for p in kept if "before we change" in p.text] == [  # a rule, not narration
        ("Hard Rules", "Think first, before we change anything.")]
