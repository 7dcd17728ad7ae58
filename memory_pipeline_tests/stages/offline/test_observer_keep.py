"""What the offline Observer keeps and drops: noise classes out, durable classes in (variants written here)."""

from __future__ import annotations

import pytest

from memory_pipeline.models import SerializedTranscript
from memory_pipeline.prompts import load_prompt
from memory_pipeline.stages.ledger.classify import classify_fact
from memory_pipeline.stages.observe.observer import build_observer_messages, parse_observer_output
from memory_pipeline.stages.offline.observer import observe_offline, read_blocks
from memory_pipeline.stages.offline.observer_people import is_chat_log, personal_fact, third_person
from memory_pipeline.stages.offline.observer_cues import states_preference
from memory_pipeline.stages.offline.observer_rules import CODE_IN_PROSE


def facts_of(transcript: str, refs: int = 20):
    mapping = {f"m{n}": f"id-{n}" for n in range(1, refs + 1)}
    serialized = SerializedTranscript(text=transcript, refs=mapping)
    system, user = build_observer_messages(load_prompt("observer"), serialized, trigger="shutdown",
                                           session_name="s", day="2026-03-02")
    return parse_observer_output(observe_offline(system, user), mapping).facts


def one_turn(role: str, text: str) -> str:
    return f"[10:00] [{role}] (m1): {text}"


@pytest.mark.parametrize("text", [
    "Should the importer retry on a 429 from the billing API?",
    "Can you check why the nightly export job stopped writing files?",
    "Hi there, thanks for picking this up so quickly this morning.",
    "Good morning! Hope the weekend treated you well, ready to start.",
])
def test_user_questions_and_greetings_are_not_facts(text):
    assert facts_of(one_turn("User", text)) == []


@pytest.mark.parametrize("text", [
    "Let me look at the scheduler configuration in cron/jobs.yaml first.",
    "I'll run the migration script against the staging database now.",
    "Now I need to update the serializer to handle the new field.",
    "The issue is that I'm using the do syntax incorrectly in this block.",
    "I see the problem, the handler never awaits the database write.",
    "All 42 tests pass and the linter reports no new warnings today.",
    "Everything is committed and pushed to the feature branch now.",
    "The issue is the type annotation.",
    "It uses the helper which we fixed earlier in the session.",
    "PROJ-114 — Upgraded the invoice renderer with grouped lines.",
])
def test_agent_commentary_status_lines_and_dangling_statements_are_not_facts(text):
    assert facts_of(one_turn("Assistant", text)) == []


def test_a_failing_run_is_not_a_failed_approach_unless_it_was_abandoned():
    ordinary = facts_of(one_turn("Assistant", "The smoke test failed on the first run with a flaky network timeout."))
    abandoned = facts_of(one_turn(
        "Assistant", "Polling the queue every second failed under load, so we switched to webhook delivery instead."))
    assert not any(f.text.startswith("Failed approach") for f in ordinary)
    assert any("switched to webhook delivery" in f.text for f in abandoned)


@pytest.mark.parametrize(("role", "text", "expected"), [
    ("Assistant", "The root cause was a stale DNS cache in the resolver sidecar of the payments pod.", "stale DNS cache"),
    ("Assistant", "Fixed by pinning `urllib3` below 2.0 in requirements.txt for the legacy client.", "pinning `urllib3`"),
    ("Assistant", "Chose Postgres advisory locks over Redis locks because the jobs already share one database.",
     "advisory locks"),
    ("Assistant", "Migrated the session store from memcached to Redis 7 on the cache host.", "memcached to Redis 7"),
    ("Assistant", "The invoices are rounded twice because `round_total` runs in both the model and the view.",
     "rounded twice"),
    ("User", "I prefer squash merges for feature branches, keep main's history linear.", "squash merges"),
    ("User", "From now on, never run the seed script against production.", "never run the seed script"),
    ("User", "No, the retry budget belongs in the client config, not in the worker.", "retry budget"),
    ("User", "The exporter should live in its own package, separate from the web app.", "own package"),
    # stated context: where a service listens, when a job runs, what a flag is called
    ("User", "The staging server for orders-api listens on port 8471.", "port 8471"),
    ("User", "The nightly billing cron for orders-api runs at 04:15 UTC.", "04:15 UTC"),
    ("User", "The feature flag for the new checkout is called orders_v2_rollout.", "orders_v2_rollout"),
    # a relative clause is no embedded question: a design statement
    ("User", "the renderer (which is a misnomer imo, should be interactive-mode) needs untangling.", "misnomer"),
    # an invariant of the code
    ("Assistant", "The `if session_record` guard can never be false.", "can never be false"),
    # a recurring schedule of the environment; a prohibition with what to do instead
    ("User", "The payments gateway restarts every night at 04:15 UTC for maintenance.", "every night"),
    ("User", "Don't mock the flag client with jest.mock; use the test data source instead.", "test data source"),
    # how the code behaves, where a setting comes from; what the agent did after an acknowledgement
    ("Assistant", "The handler falls back to the old flow when the flag is off.", "falls back"),
    ("Assistant", "The port now comes from the ORDERS_API_PORT environment variable.", "ORDERS_API_PORT"),
    ("Assistant", "Okay, I switched the helper to the LaunchDarkly test data source.", "switched the helper"),
    # a cause found may say how the code can behave: no guess
    ("Assistant", "The root cause was that `session` might be None when the cache is cold.", "might be None"),
])
def test_durable_statements_are_kept_with_their_message(role, text, expected):
    facts = facts_of(one_turn(role, text))
    kept = [f for f in facts if expected in f.text]
    assert kept and kept[0].source_message_ids == ["id-1"] and kept[0].time == "10:00"


@pytest.mark.parametrize("text", [
    "The import isn't used yet because I haven't updated the template.",  # a passing state, in the claim
    "Minor cleanup (removed unnecessary cast since type narrowing works).",  # a change log with its reason
    "Removed 7 hide methods because the selectors now close themselves.",
    "Why do you think the cache is stale?",  # a question
    "why do you go 100 lines at a time you idiot ...",  # a complaint names no lesson (friction's to pair)
    "Okay, that works.",  # a bare acknowledgement
    "The client will fall back to polling if we can't open a socket.",  # a plan, not how the code behaves
])
def test_passing_states_change_logs_and_questions_are_not_facts(text):
    role = "User" if text.startswith("Why") else "Assistant"
    assert facts_of(one_turn(role, text)) == []


def test_a_users_layout_list_becomes_one_decision():
    facts = facts_of(one_turn("User", "Put them here:\nhandlers -> app/handlers\nmodels -> app/domain/models"))
    assert [f.text for f in facts] == ['User decided: handlers -> app/handlers; models -> app/domain/models']


CHAT = """[14:00] [User] (m1): Dana: Hey Sam! Good to see you! How have you been?

[14:00] [Assistant] (m2): Sam: Hi Dana! Busy, I just moved to Lisbon for a new job at a design studio.

[14:00] [User] (m3): Dana: Wow, that's amazing! What's the studio like?

[14:00] [Assistant] (m4): Sam: It's small and friendly. My brother helped me find an apartment near the river.

[14:01] [User] (m5): Dana: I started a pottery class last month and I really love it."""


def test_a_chat_log_gives_third_person_facts_about_each_speaker_citing_their_turn():
    facts = facts_of(CHAT)
    by_ref = {f.source_message_ids[0]: f.text for f in facts}
    assert set(by_ref) == {"id-2", "id-4", "id-5"}  # no greeting, question or reaction
    assert "Sam just moved to Lisbon for a new job at a design studio" in by_ref["id-2"]
    assert "Sam's brother helped Sam find an apartment" in by_ref["id-4"]
    assert by_ref["id-5"].startswith("Dana started a pottery class last month and Dana really loves it")


def test_third_person_rewrites_pronouns_and_the_verb_after_i():
    assert third_person("I have two cats and my sister walks them.", "Ana") == "Ana has two cats and Ana's sister walks them."
    assert third_person("I'm training for a marathon, I run daily.", "Ana") == "Ana is training for a marathon, Ana runs daily."
    assert personal_fact("Ana: Thanks so much, that means a lot!") is None
    assert personal_fact("no speaker label here, I went hiking") is None


def test_a_coding_session_is_not_read_as_a_chat_log():
    coding = ("[09:00] [User] (m1): Error: the build fails with exit code 2 after the webpack upgrade.\n\n"
              "[09:01] [Assistant] (m2): Note: reading the config.\n  → Read(file_path=webpack.config.js)")
    assert not is_chat_log(read_blocks(coding))
    assert is_chat_log(read_blocks(CHAT))


ADVICE_CHAT = """[10:00] [User] (m1): I'm training for a 10K in May and I run every morning before work. Any tips for my plyometric days?

[10:01] [Assistant] (m2): Remember to always warm up before starting any plyometric exercise. Since you've already got a morning routine, you can add box jumps twice a week. In winter, muscles take longer to warm up due to lower temperatures. Snorkelling with a buddy is always safer and more fun!"""


def test_the_agents_advice_and_general_knowledge_in_a_chat_are_not_facts_and_the_users_words_are():
    facts = facts_of(ADVICE_CHAT)
    assert [f.source_message_ids for f in facts] == [["id-1"]]
    assert "10K in May" in facts[0].text


def test_a_reason_the_agent_gives_counts_where_the_window_is_work_on_software():
    said = ("[09:01] [Assistant] (m2): The health check times out because it queries the database, and the "
            "staging replica is paused at night.")
    asked = "[09:00] [User] (m1): Why does the health check fail every night on staging?\n\n"
    worked = asked + said.replace("at night.", "at night.\n  → Bash(command=psql -c 'select 1')")
    assert facts_of(asked + said) == []  # no tool, no code: how general knowledge reads
    assert [f.source_message_ids for f in facts_of(worked)] == [["id-2"]]
    assert [f.source_message_ids for f in facts_of(asked.replace("health check", "`/healthz` check") + said)] == [["id-2"]]


@pytest.mark.parametrize("text, code", [
    ("The health check lives in src/health/check.py and pings the replica.", True),  # a file path
    ("run it from the top:\n$ make test", True),  # a shell prompt before a command
    ("Set ORDERS_DB_URL before starting the worker.", True),
    ("Start the worker with --dry-run first.", True),
    ("I moved in on 3/15/2024 and the rent is $ 1,200.", False),  # a date and a price, not code
    ("Open 24/7, and breakfast/lunch/dinner are all fine; see /r/cooking.", False),  # no folder of code
])
def test_one_pattern_tells_code_in_prose_for_the_observer_and_the_ledger(text, code):
    assert bool(CODE_IN_PROSE.search(text)) is code
    said = f"[09:01] [Assistant] (m2): The check fails because the replica is paused at night. {text}"
    assert bool(facts_of("[09:00] [User] (m1): Why does the check fail?\n\n" + said)) is code  # work on software
    told = f"I always run the suite before a push. {text}"
    assert (classify_fact(told, "high").type == "procedure") is code  # a way of working, or a life told


@pytest.mark.parametrize("text", [
    "Remember to always run the migrations before the tests.\n  → Bash(command=alembic upgrade head)",
    "Make sure you restart the worker after changing `config.yaml`, because it reads it once.",
    "Running the linter before each push is always a good idea.\n  → Bash(command=ruff check .)",
    # a suggestion the user has not taken up, though it gives a reason
    "In your case, since the table is large, I recommend adding an index on `created_at` first.\n"
    "  → Bash(command=psql -c '\\d orders')",
    "Since the export runs nightly, you may want to move it to the worker queue.\n  → Read(file_path=jobs/export.py)",
])
def test_the_agents_advice_to_the_user_is_no_fact_even_in_a_coding_session(text):
    assert facts_of(one_turn("Assistant", text)) == []


@pytest.mark.parametrize("text", [
    "I like the idea of a fruit tart for the party dessert table.",  # a reaction to what the agent offered
    "I like those ideas, especially the personalized cookbook.",
    "I like the exercises you suggested, especially the Pallof Press and Bird Dog.",
    "I like the variety of workouts you've suggested.",
    "I like the template, it's simple and easy to use.",
    "I like the Classic and Simple style.",  # what the Reflector calls a reply to the offer (one list for both)
    "I like the low maintenance aspect and the consistent patterns.",
    "I like its sleek design and versatility, and it seems like a great fit for my street photography.",
    "I like how it includes detailed illustrations and range maps.",  # of what? the answer just given
    "I'd like to budget for my groceries this week.",  # a want for the task at hand
    "I'd rather not talk about the book right now, let's plan the trip.",  # a wish for this moment
    "I'd like some recommendations for board games similar to Ticket to Ride.",
])
def test_a_reaction_to_the_agents_offer_or_a_want_for_the_task_is_no_preference(text):
    assert facts_of(one_turn("User", text)) == []


@pytest.mark.parametrize("text, taste", [
    ("If I find a design I like, I'll save it to my favorites.", False),  # the liking qualifies a thing
    ("I'll try out Mint and Personal Capital to see which one I like better.", False),
    ("The medications don't seem to be working as well as I'd like.", False),
    ("For the backend I prefer Go.", True),
    ("I'm also getting Architectural Digest, which I love for home decor inspiration.", True),
    ("I found a recipe I like, and I prefer it spicy.", True),
])
def test_a_liking_that_qualifies_a_thing_states_no_taste(text, taste):
    assert states_preference(text) is taste


@pytest.mark.parametrize("text", [
    "I mostly play piano and some synth sounds, and I prefer weighted keys.",
    "I'd rather use pnpm than npm in every repository.",
    "I like hotels with a rooftop pool and a quiet street.",
    "I'd like the integration tests to always use the real Redis, never a mock.",
    "I want all commits to follow conventional commits.",  # a want over every one of a kind
])
def test_a_taste_or_a_standing_want_is_still_a_preference(text):
    assert [f.source_message_ids for f in facts_of(one_turn("User", text))] == [["id-1"]]


@pytest.mark.parametrize(("text", "lead"), [
    ("We decided to keep one migration per change because reviews stay small.", "User decided:"),
    ("I think we'll go with the deluxe cabin rental.", "User decided:"),
    ("We're going with Postgres 16 for the orders service, not sure about 17 yet.", "User decided:"),
    ("Let's go with Postgres 17 for the orders service, because we need logical replication.", "User decided:"),
    ("Let's stick with pnpm for the monorepo.", "User decided:"),  # "let's" that chooses is no task
    ("We're going to use Vitest rather than Jest for the new package.", "User decided:"),
    ("We are moving off Heroku to Fly.io next month.", "User decided:"),
    ("Actually, I remember taking my bike in for a tune-up on April 20th because the gears were getting stuck.",
     "User stated:"),  # a reason tells why; no choice was made
    ("I canceled my Forbes magazine subscription in early March because the articles bored me.", "User stated:"),
])
def test_a_decision_is_a_choice_made_and_a_reason_alone_is_a_statement(text, lead):
    facts = facts_of(one_turn("User", text))
    assert len(facts) == 1 and facts[0].text.startswith(lead)


@pytest.mark.parametrize("text", [
    "I'm thinking of going with the little black dress option for the gala.",  # still weighing it
    "I've been thinking about switching to a digital coupon app, but I'm not sure if it would be worth it.",
    # the user keeping it in mind themselves, after the agent's tips: a note to self, no fact
    "Thanks for the tips! I'll also keep in mind the best practices for visualizing high-dimensional data.",
    "I was wondering if you could suggest a dinner party feel for the reception, rather than a formal one.",
    "If you have any more advice or tips, feel free to share them.",  # "any more advice" is no "anymore"
])
def test_weighing_a_choice_or_asking_for_more_is_no_decision(text):
    assert facts_of(one_turn("User", text)) == []


def test_a_cause_the_user_found_in_work_on_software_is_a_fact():
    tool = "\n[10:01] [Assistant] (m2): Checking.\n  → Bash(command=grep -rn cache_key src)"
    kept = facts_of(one_turn("User", "The bug was that the cache key ignored the tenant id.") + tool)
    assert [f.text for f in kept] == ['User stated: "The bug was that the cache key ignored the tenant id."']
    guessed = facts_of(one_turn("User", "The bug is probably that the cache expires too early.") + tool)
    assert guessed == []  # a guess, not a cause found
    chat = one_turn("User", "The problem is that my landlord never answers the phone.")
    assert [f.text for f in facts_of(chat) if "landlord" in f.text and f.text.startswith("User stated")] == []


def test_what_the_user_uses_is_context_and_what_they_will_use_for_the_task_is_not():
    assert facts_of(one_turn("User", "I'll use specific keywords like custom baby blanket to find listings.")) == []
    assert facts_of(one_turn("User", "I think I'll use the extra time to catch up on some reading.")) == []
    kept = facts_of(one_turn("User", "I use a Belkin Boost Up pad to charge my phone and my watch."))
    assert [f.source_message_ids for f in kept] == [["id-1"]]


def test_the_generic_you_of_an_explanation_in_work_on_software_is_still_a_finding():
    said = one_turn("Assistant", "If you run the migration twice, it fails because the lock file in "
                                 "`migrations/.lock` remains.\n  → Bash(command=alembic upgrade head)")
    assert [f.source_message_ids for f in facts_of(said)] == [["id-1"]]
    chat = one_turn("Assistant", "Since you've already booked the resort, it's a good reason to look for free activities.")
    assert facts_of(chat) == []


def test_an_always_in_an_aside_makes_no_invariant_of_a_list_item():
    """In work on code the agent's "always" or "never" about the code is kept ("Model changes always go through
    `setModel()`"); one inside parentheses is an aside, and the item it hangs on is a fragment of a list."""
    lines = ["[10:00] [User] (m1): Refactor `agent-session.ts` so the modes share one session.",
             "[10:01] [Assistant] (m2): Model/thinking changes always go through one path in `agent-session.ts`.",
             "[10:02] [Assistant] (m3): TUI rendering in `tui-renderer.ts` (visual testing is always tricky)"]
    texts = [f.text for f in facts_of("\n".join(lines))]
    assert any("always go through one path" in t for t in texts)
    assert not any("visual testing" in t for t in texts)


@pytest.mark.parametrize("text", [
    "I bet the worker is reading `staging.toml` instead of the production config.",  # a guess
    "If `COLORFGBG` is set, it might be loading the `light` palette instead of `dark`, which would explain it.",
    "Fixed `DateField` objects to use parser functions instead of strings.",  # what was edited
    "Changed the `export_rows` tests to pass a callback instead of a dict (API changed).",
    "Empty rows are now `None` instead of `\"\"` in the exporter output.",
    "The build is failing because the `shared` package hasn't exported its types.",  # a state of the moment
    "The fix is to make `Cache.clear()` actually clear, or to key the cache on the theme name.",  # two ways, none chosen
    "Actually use `headerText` - wrap the heading in `theme.fg(\"headerText\", ...)` instead of `theme.bold()`.",
    "`footerText` is defined in the theme but never used.",  # dead code the session then wires up
    "Otherwise, I hope your movie night turns out to be an amazing success, and your guests have a blast!",  # a wish
    "I hope the retry turns out to be the fix for the flaky `export_rows` test.",
])
def test_guesses_edits_and_fixes_not_yet_chosen_are_not_the_agents_findings(text):
    assert facts_of(one_turn("Assistant", text)) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("`TruncatedText` must stop when it encounters a tab character ...", "must stop"),
    ("hmmm, the settings dialog in `settings.ts` needs to save on the next tick, or else the form flickers",
     "next tick"),
])
def test_what_a_part_of_the_code_must_do_is_the_users_rule(text, expected):
    assert [f for f in facts_of(one_turn("User", text)) if expected in f.text]


def test_what_must_happen_in_a_users_life_is_no_rule_of_the_code():
    """In a chat (no tool, no code) "has to" tells of the user's life; a rule there would be a P0 of the pack."""
    said = facts_of(one_turn("User", "My son has to wear braces until June, or else his teeth shift back."))
    assert not any(classify_fact(f.text, "high").type == "constraint" for f in said)


@pytest.mark.parametrize("text", [
    "ok, let me try the staging deploy real quick, then we should be good to go for a release",  # the user's next step
    "the footer must be dimmer, look into the footer sources",  # a change still to make
])
def test_the_users_own_next_step_or_a_change_to_make_is_no_rule(text):
    assert facts_of(one_turn("User", text)) == []


def test_a_diagnosis_the_user_turns_down_is_dropped_with_the_guesses_since_the_question():
    lines = ["[10:00] [User] (m1): any idea why the export to `reports/` is so slow on staging?",
             "[10:01] [Assistant] (m2): The issue is that the exporter opens a new connection for each row.",
             "[10:02] [User] (m3): staging uses pgbouncer in transaction mode with a pool of 20",
             "[10:03] [Assistant] (m4): The issue is that pgbouncer in transaction mode drops the prepared statements.",
             "[10:04] [User] (m5): no, that's not it, both environments use the same pool settings.",
             "[10:05] [Assistant] (m6): The root cause was the N+1 query in `export_rows`, one SELECT per invoice."]
    texts = [f.text for f in facts_of("\n".join(lines))]
    assert not any("new connection for each row" in t or "prepared statements" in t for t in texts)
    assert not any("same pool settings" in t for t in texts)  # what the cause is not, that day
    assert any("N+1 query" in t for t in texts)


def test_a_pasted_diff_or_error_is_not_what_the_user_said():
    diff = one_turn("User", "+ 12 - **Theme Colors**: the tool boxes must now use separate colours for titles\n"
                            "+314 - Tips for creating harmonious themes never hurt anyone\n\nkill this")
    error = one_turn("User", "this results in\n\n Error: 400 {\"type\":\"error\",\"message\":\"messages.236: `tool_use`\n"
                             " ids were found without `tool_result` blocks. Each\n"
                             " `tool_use` block must have a corresponding `tool_result` block in the next\n message.\"}")
    assert facts_of(diff) == [] and facts_of(error) == []


def test_the_answer_to_the_agents_question_is_not_the_sessions_task():
    from memory_pipeline.stages.offline.observer import _last_asks
    blocks = read_blocks("\n".join([
        "[10:00] [User] (m1): Release a new version of the CLI with the theme changes.",
        "[10:01] [Assistant] (m2): The release script bumps every package. Should it be a minor or a patch release?",
        "[10:02] [User] (m3): minor, this is a big change"]))
    assert _last_asks(blocks, 2) == [("Release a new version of the CLI with the theme changes.", "m1")]
    more = read_blocks("\n".join([
        "[10:00] [User] (m1): Release a new version of the CLI with the theme changes.",
        "[10:01] [Assistant] (m2): Released 0.8.0 to npm. Anything else?",
        "[10:02] [User] (m3): yes, add a dark mode toggle to the settings page"]))
    assert _last_asks(more, 1) == [("Yes, add a dark mode toggle to the settings page", "m3")]  # a new task


def test_a_way_of_working_asked_for_in_several_turns_is_a_fact_citing_each_turn():
    lines = ["[10:00] [User] (m1): read src/exporter/rows.ts in full, then add the CSV header option",
             "[10:05] [Assistant] (m2): Added the header option to `rows.ts`.",
             "[10:06] [User] (m3): you broke the quoting. i undid it, read it in full this time",
             "[10:09] [User] (m4): create a new custom theme and open it with the code command for me",
             "[10:20] [User] (m5): ok, create a new custom theme and open it with the code command for me"]
    facts = facts_of("\n".join(lines))
    asked = [f for f in facts if f.text.startswith("User asked")]
    assert [f.source_message_ids for f in asked] == [["id-1", "id-3"]]  # a task made twice is no way of working
    assert asked[0].text.startswith('User asked 2 times: "Read it in full')


def test_a_rule_of_the_code_the_user_names_or_a_list_item_without_its_subject():
    named = facts_of(one_turn("User", "i think the queue view breaks the invariant that every rendered line must "
                                      "fit the width it is given"))
    assert [f for f in named if "invariant" in f.text]
    assert facts_of(one_turn("Assistant", "Uses `Text` and `Spacer` components instead of raw strings.")) == []


def test_a_request_made_twice_in_a_chat_is_no_way_of_working():
    lines = ["[10:00] [User] (m1): Can you suggest more trails?",
             "[10:01] [Assistant] (m2): Sure: the Ridge Loop and the Pine Trail are both close.",
             "[10:02] [User] (m3): Thanks! Can you suggest more trails?"]
    assert not [f for f in facts_of("\n".join(lines)) if f.text.startswith("User asked")]


def test_a_reproach_says_what_to_check_before_a_claim():
    said = one_turn("User", "my dude, how can you say the docs look up-to-date if you haven't checked the source "
                            "code and matched the .md files against it")
    texts = [f.text for f in facts_of(said)]
    assert texts == ['User corrected the agent: "Check the source code and matched the .md files against it before '
                     'saying the docs look up-to-date."']


def after_an_edit(text: str) -> str:
    """The user's turn right after the agent edited a file: a window of work on software."""
    return f"[09:59] [Assistant] (m1): Updated the changelog.\n  → Edit(path=CHANGELOG.md)\n[10:00] [User] (m2): {text}"


@pytest.mark.parametrize("text", [
    "pls don't squash the migration commits make one commit per migration",
    "stop amending commits",
    "no default exports!",
])
def test_a_way_of_working_the_user_forbids_is_a_correction_even_unmarked(text):
    assert [f.text for f in facts_of(after_an_edit(text))][0].startswith("User corrected the agent:")
    assert facts_of(one_turn("User", "Never push to main"))[0].text == 'User stated: "Never push to main"'  # marked


@pytest.mark.parametrize("text", [
    "stop doing that!",  # a reaction
    "don't worry about the flaky test in the billing suite",
    "don't push the release branch yet",  # for the moment
    "no worries!",
    "don't we load the settings file on startup?",  # a question
    "the badge must be dimmer, don't modify the theme, look into the footer sources",  # the task at hand
])
def test_a_reaction_a_wish_for_the_moment_or_a_question_forbids_nothing(text):
    assert not [f for f in facts_of(after_an_edit(text)) if f.text.startswith("User corrected the agent")]


def test_a_short_rejection_takes_the_statement_after_it():
    said = one_turn("User", "this is not how it works. the audit log table is insert only")
    assert [f.text for f in facts_of(said)] == [
        'User corrected the agent: "This is not how it works. The audit log table is insert only"']
    coding = after_an_edit("this is not how it works. the audit log table is append only")  # once, not twice
    assert [f.text for f in facts_of(coding)] == [
        'User corrected the agent: "This is not how it works. The audit log table is append only"']


def test_a_proposal_asked_as_a_question_is_decided_when_the_agent_agrees():
    def facts(question: str, reply: str) -> list[str]:
        return [f.text for f in facts_of("\n".join([f"[10:00] [User] (m1): {question}",
                                                    f"[10:01] [Assistant] (m2): {reply}\n  → Read(path=src/job.ts)"]))]
    asked = "actually, i think ExportJob should take a resolveCredentials(bucket: string)?"
    assert facts(asked, "Good idea. That keeps the job free of global state.") == [
        'User decided: "ExportJob should take a resolveCredentials(bucket: string)"']
    assert facts("- should we drop the retry queue and always use the dead-letter topic?", "Makes sense, doing it.") == [
        'User decided: "We should drop the retry queue and always use the dead-letter topic"']
    assert facts(asked, "Let me look at how ExportJob is built first.") == []  # not agreed (yet)
    assert facts("well, i think it should be titleColor and bodyColor?", "You're right!") == []  # "it": the chat's
    assert facts("what about the split batches?", "Good point, let me check.") == []  # asks, proposes nothing


def test_a_request_for_something_new_is_no_correction_and_a_finding_by_line_number_is_that_days():
    asked = one_turn("User", "please write an export example in examples/ that streams every row to S3 instead of "
                             "buffering the last 10k rows")
    assert facts_of(asked) == []
    assert facts_of(one_turn("Assistant", "The problem is at line 212: `if (!job.bucket)` throws when `job` is "
                                          "undefined.")) == []
    assert facts_of(one_turn("Assistant", "Wait, looking at the screenshot again, the issue is that the legend starts "
                                          "at `cmp` instead of `usr`.")) == []
    assert facts_of(one_turn("User", "no, use the staging bucket instead of the prod bucket for the export tests"))


def test_the_check_command_named_in_several_turns_is_how_work_is_checked_there():
    lines = ["[10:00] [User] (m1): change the export to stream rows, do a pnpm run verify in the root dir",
             "[10:05] [Assistant] (m2): Streaming now; `pnpm run verify` passes.",
             "[10:20] [User] (m3): stop amending commits",
             "[10:30] [User] (m4): fixed some more stuff myself, pnpm run verify"]
    facts = facts_of("\n".join(lines))
    asked = [f for f in facts if f.text.startswith("User asked")]
    assert [(f.text, f.source_message_ids) for f in asked] == [
        ('User asked 2 times: "Run `pnpm run verify`"', ["id-1", "id-4"])]
    assert [f.source_message_ids[-1] for f in facts] == ["id-3", "id-4"]  # each where it was said (last asked)
    once = facts_of("[10:00] [User] (m1): change the export to stream rows, then pnpm run verify")
    assert not [f for f in once if f.text.startswith("User asked")]
    ran = ["[10:00] [User] (m1): this exploded\n\n➜  shop git:(main) ✗ npx tsx src/cli.ts -r\nError: bad colour",
           "[10:05] [User] (m2): put the check in test/ so i can execute it with npx tsx",
           "[10:09] [User] (m3): same again\n\n➜  shop git:(main) ✗ npx tsx src/cli.ts"]
    assert not [f for f in facts_of("\n".join(ran)) if f.text.startswith("User asked")]  # ran or will run it


def test_in_a_chat_advice_taken_or_a_wish_is_no_decision_nor_correction():
    chat = "\n".join(["[10:00] [User] (m1): I think I should get a fitness tracker for my morning runs?",
                      "[10:01] [Assistant] (m2): Yes, great idea! A tracker helps you pace your runs.",
                      "[10:02] [User] (m3): don't include any seafood in the dinner recipes"])
    assert not [f for f in facts_of(chat) if f.text.startswith(("User decided", "User corrected"))]


def test_a_property_of_the_design_the_user_states_is_kept_in_work_on_software():
    texts = [f.text for f in facts_of(after_an_edit("the audit log table is append only"))]
    assert texts == ['User stated: "The audit log table is append only"']
    assert facts_of(one_turn("User", "My mom relies on me for her weekly groceries.")) == []  # a chat's


def test_an_issue_opened_for_later_is_an_open_item_of_the_pack_not_a_memory_line():
    said = after_an_edit('ok, open a new issue "Untangle the export retries" with label exporter, and describe the '
                         'current mess')
    [fact] = facts_of(said)
    assert fact.text == "Follow up later (the user had an issue opened for it): Untangle the export retries"
    typed = classify_fact(fact.text, "high")
    assert typed.type == "commitment" and typed.status == "open"
    assert facts_of(after_an_edit("open issue 288 in the browser")) == []  # opens nothing for later


def test_which_copy_is_meant_is_no_change_of_state():
    said = "\n".join(["[10:00] [User] (m1): the export is missing the xml file",
                      "[10:01] [Assistant] (m2): The feature is in the installed script. Installed version "
                      "(`~/bin/export_session.py`). The export script was installed to ~/bin with setup.sh."])
    assert [f.text for f in facts_of(said)] == ["The export script was installed to ~/bin with setup.sh."]


def test_what_the_user_asks_to_keep_in_mind_after_a_reply_is_stated():
    said = after_an_edit("that looks good and would work but keep in mind often i have several sessions running at "
                         "one time in the same folder.")
    assert [f.text for f in facts_of(said)] == [
        'User stated: "Often I have several sessions running at one time in the same folder."']
    assert facts_of(after_an_edit("looks good, and remember to run the tests")) == []  # a task, not a fact
    assert facts_of(after_an_edit("ok but keep in mind that it is slow")) == []  # points at what was said


def test_a_request_the_user_saw_was_not_done_is_a_correction():
    said = after_an_edit("please make sure all files in the working directory are updated to latest versions.  "
                         "I didnt see any files updated there with this change.")
    assert [f.text for f in facts_of(said)] == [
        'User corrected the agent: "Please make sure all files in the working directory are updated to latest '
        'versions."']
    assert facts_of(after_an_edit("i dont see the folder copied to the working directory")) == []  # a report
    assert facts_of(after_an_edit("please update the readme. I like it.")) == []


def test_a_terminal_pasted_with_its_prompt_is_the_shells_not_the_users():
    said = after_an_edit("still no\n\n(venv) jim@box:/srv/app_test$ claude -c\nNo conversation found to continue\n"
                         "$ claude -r\nNo conversations found to resume.\n\nnow the app folder is renamed, so what next")
    assert facts_of(said) == []


@pytest.mark.parametrize(("said", "kept"), [
    ("i think we would want to include all sources related to a session and name an empty one as empty.",
     'User decided: "We would want to include all sources related to a session and name an empty one as empty."'),
    ("i think for now we should keep writing all of the old export files for backwards compatibility",
     'User decided: "For now we should keep writing all of the old export files for backwards compatibility"'),
])
def test_how_we_want_it_built_with_its_scope_or_reason_is_a_decision(said, kept):
    assert [f.text for f in facts_of(after_an_edit(said))] == [kept]


@pytest.mark.parametrize("said", [
    "we need to improve the custom compaction docs, we need to explain what all the fields mean",
    "i think we should fix all of the failing tests first",
    "we should rename all of the session helpers",
])
def test_what_we_do_next_is_no_decision(said):
    assert not [f for f in facts_of(after_an_edit(said)) if f.text.startswith("User decided")]


def test_a_finding_the_agent_names_is_kept_without_its_label():
    said = ("[10:00] [User] (m1): why can't it resume the session in the test folder?\n"
            "[10:01] [Assistant] (m2): **Key finding:** Claude Code turns underscores into hyphens:\n"
            "- `/srv/app_test` → `-srv-app-test`")
    assert [f.text for f in facts_of(said)] == ["Finding: Claude Code turns underscores into hyphens"]


def test_what_comes_before_any_edit_is_how_the_user_orders_the_work():
    assert [f.text for f in facts_of(after_an_edit("let's think first, before we change anything"))] == [
        'User stated: "Let\'s think first, before we change anything"']
    assert facts_of(after_an_edit("can we look at the logs before we change anything?")) == []
    assert facts_of(one_turn("User", "let's grab lunch before we go anywhere")) == []


def test_a_line_the_user_quotes_and_turns_down_is_no_decision():
    assert facts_of(after_an_edit("Database query function with parameters → make a custom tool nahhh")) == []
    assert [f.text for f in facts_of(after_an_edit("api.ts -> core/api.ts\nutils.ts -> core/utils.ts"))] == [
        "User decided: api.ts -> core/api.ts; utils.ts -> core/utils.ts"]


def test_a_chat_agents_cause_or_change_is_what_it_knows_kept_but_not_high():
    """An agent with no tools, in a chat, found nothing in the user's work: its "caused by" and "switched" are
    general knowledge, kept as facts (recall reads them) but never high (no proposal, no 🔴 line)."""
    chat = ("[09:00] [User] (m1): My sourdough keeps coming out dense, any idea why?\n"
            "[09:01] [Assistant] (m2): Dense and heavy bread can be caused by a variety of factors, not just an "
            "under-active starter. During the war the US Mint switched from copper to zinc-coated steel cents. "
            "Key takeaway: a cold kitchen slows the rise of any dough.")
    code = ("[09:00] [User] (m1): The `export_rows` job keeps timing out, any idea why?\n"
            "[09:01] [Assistant] (m2): The timeout was caused by the `export_rows` query scanning the orders table.")
    in_chat = facts_of(chat)
    assert {f.priority for f in in_chat} == {"medium"} and len(in_chat) == 3
    assert [(f.priority, "caused by" in f.text) for f in facts_of(code)] == [("high", True)]


@pytest.mark.parametrize("text", [
    "It turns out the staging environment uses a different OAuth client id than production.",  # no "it" before
    "The flaky test depended on dict ordering; sorting the keys fixed it.",  # a cause and what fixed it
    "The API returns 429 when more than 100 requests per minute come from one key.",  # how it behaves
    "Postgres 17 is required for the MERGE RETURNING syntax the importer uses.",
])
def test_what_the_agent_found_in_work_on_software_is_kept(text):
    tool = "\n[10:02] [Assistant] (m2): Running the suite.\n  → Bash(command=pytest -q)"
    assert [f.source_message_ids for f in facts_of(one_turn("Assistant", text) + tool)] == [["id-1"]]


@pytest.mark.parametrize("text", [
    "Tests go in tests/ next to the package, not inside src.",  # where things go, against where they do not
    "Avoid adding new dependencies without asking me first.",  # a permission asked each time
    "You should run the formatter before you show me a diff.",  # a step tied to every review
])
def test_a_rule_tied_to_every_change_holds_beyond_the_task(text):
    assert [f.text for f in facts_of(one_turn("User", text))] == [f'User stated: "{text}"']


@pytest.mark.parametrize(("said", "kept"), [
    ("Note: the staging database is reset every Sunday night.", ['User stated: "The staging database is reset every '
                                                                 'Sunday night."']),
    ("Please note the staging database is reset every Sunday night.", ['User stated: "The staging database is reset '
                                                                        'every Sunday night."']),
    ("Note the version number in the footer.", []),  # look at it: a request, nothing to keep
])
def test_a_note_to_keep_is_kept_and_a_request_to_look_at_something_is_not(said, kept):
    window = one_turn("User", said) + "\n[10:01] [Assistant] (m2): Got it, I'll keep that in mind."
    assert [f.text for f in facts_of(window)] == kept
