"""What a coding agent's user says once and means for every later session, without a rule's marks
("always", "never", "from now on"): kept by the offline Observer in work on software, and this task's
requests, reports and moments left out (stages/offline/observer_standing). Sentences written here."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.ledger.classify import classify_fact, entity_of
from memory_pipeline.stages.offline.reflector_rules import categorize
from memory_pipeline.stages.projects import fact_scope
from memory_pipeline_tests.stages.offline.test_observer_keep import facts_of

TOOL = "\n[10:01] [Assistant] (m2): Checking.\n  → Bash(command=git status)"


def kept_in_work(user_text: str) -> list[str]:
    """The facts of a window that is work on software (the agent ran a command) where the user said `user_text`."""
    return [f.text for f in facts_of(f"[10:00] [User] (m1): {user_text}{TOOL}") if f.text.startswith("User")]


def kept_in_chat(user_text: str) -> list[str]:
    return [f.text for f in facts_of(f"[10:00] [User] (m1): {user_text}\n[10:01] [Assistant] (m2): Sure.")
            if f.text.startswith("User")]


@pytest.mark.parametrize("text", [
    "When you change the schema, also update the migration docs.",
    "Whenever you add a dependency, pin the exact version.",
    "If you add a new environment variable, document it in .env.example.",
    "It's important that the export stays backwards compatible.",
    "Any change to the public API needs a changelog entry.",
    "Every PR needs at least one approval before merging.",
    "All money amounts are integers in cents.",
    "The main branch is protected, open a PR for everything.",
    "Make sure every new endpoint has an integration test.",
    "Timestamps are stored in UTC everywhere.",
    "The orders service owns the payments table; nobody else writes to it.",
    "Nobody should push directly to production.",
    "Feature flags live in config/flags.yaml.",
    "The billing service is owned by the payments team.",
    "The docs site is generated from the docstrings.",
    "Config values are read from config.toml at startup.",
    "The build uses pnpm workspaces, not npm.",
    "Commit messages follow the conventional commits format.",
    "We deploy on Tuesdays and Thursdays only.",
    "We use trunk-based development here.",
    "We dropped Python 3.8 support in March.",
    "Migrations must be reversible.",
    "Integration tests must not hit the real Stripe API.",
    "The integration tests need a running Redis on port 6380.",
    "I'm the only maintainer, so keep the dependencies minimal.",
    "The staging database is a copy of prod from last Sunday, so don't trust the counts.",
    "Please keep commit messages under 72 characters.",
    "Keep the public API small.",
    "The auth module is legacy code; avoid refactoring it unless necessary.",
    # what the user learnt before: a failed approach, what fixed it, when a fault shows, a cause, a reason
    "I tried bumping the pool size to 50 but it didn't help.",
    "We already tried caching the tokens in Redis; it made the race worse.",
    "I gave Celery a shot a while ago and the retries didn't work with our broker.",
    "Downgrading to Node 18 fixed the build for me last time.",
    "Turning off HTTP/2 made the timeouts go away.",
    "The flaky test only fails when the suite runs in parallel.",
    "Don't bother with the official Docker image, it doesn't ship an ARM build.",
    "We're not using an ORM, raw SQL is easier to review here.",
    "The reason we pin numpy is that the wheels for 2.0 break the CUDA build.",
    "Last month the culprit was the proxy stripping the Authorization header.",
    "Setting the timeout higher just hides the problem, the real issue is the N+1 query.",
    # what holds until someone changes it: its "still" is no moment, its "can't … yet" a constraint
    "The mobile app still calls the v1 API, so we can't remove it yet.",
    "We still support Internet Explorer 11, so no optional chaining in the frontend.",
    "The legacy admin still depends on jQuery.",
    "We target Python 3.11 and 3.12.",  # its versions are words, not symbols
    # where a part of the setup is or goes, named
    "The staging URL is staging.example.com.",
    "Deploys go through Jenkins.",
    "Our logs go to Datadog.",
    "The orders database is db-3.internal.",
    "Secrets live in Vault.",
    "This project uses Poetry for the Python tools.",  # "This project" is no pointer to this task's thing
    # what reads from, writes to or calls what
    "The reports job reads from the replica.",
    "The frontend calls the v2 API through the gateway.",
    "Our worker publishes to the events topic.",
])
def test_a_standing_statement_of_work_on_software_is_kept(text):
    assert any(text.rstrip(".") in fact for fact in kept_in_work(text)), kept_in_work(text)


@pytest.mark.parametrize("text", [
    "It's important to get this merged before Friday.",
    "When you're finished, summarize what you changed.",
    "If you can, also fix the typo in the header.",
    "Every time I click the button, the page reloads.",
    "Keep trying, it's almost there.",
    "Can you keep the logs for now?",
    "Make sure the tests pass before you commit this.",
    "When you're done with that, run the linter.",
    "The tests are green on CI now.",
    "Use the same approach for the other endpoint.",
    "Nobody seems to know why this started.",
    "I need this working by tomorrow.",
    "Limited time only, so don't miss out!",
    "I'm thinking of inviting some friends who live in Tokyo to join me.",
    "I tried running it again and it still fails.",
    "I tried your fix and it doesn't work.",
    "Restarting fixed it.",
    "I'm not using the debugger at the moment.",
    "Something fixed it, no idea what.",
    "It still calls the old function after your edit, please check.",
    "The test is still red on CI.",
    "The page still doesn't load.",
    "We still can't deploy, the pipeline is broken.",
    # how a part of the setup is doing: no name of where it is
    "The logs are empty.", "The cache is stale.", "The URL is wrong.", "The queue is full.",
    "The port is already in use.", "The docs are out of date.",
    # what a part did in this run, or to this task's thing
    "The app calls it twice.", "The server sends me an error.",
    "This test uses the wrong fixture.",
])
def test_a_request_a_report_or_a_moment_of_this_task_is_not(text):
    assert kept_in_work(text) == []


@pytest.mark.parametrize("text", [
    "Any change to the public API needs a changelog entry.",
    "The billing service is owned by the payments team.",
    "We ship on Tuesdays and Thursdays only.",
])
def test_outside_work_on_software_the_project_shapes_are_not_read(text):
    assert kept_in_chat(text) == []


def test_a_user_naming_a_part_of_the_setup_is_work_on_software_with_no_tool_called():
    """"deploy" is a part of a software setup (observer_rules.SETUP_TERM): the window is work on software."""
    assert kept_in_chat("We deploy on Tuesdays and Thursdays only.") == [
        'User stated: "We deploy on Tuesdays and Thursdays only."']


@pytest.mark.parametrize("text", ["Be concise in your answers, I don't need long explanations.",
                                  "Please answer briefly."])
def test_how_answers_should_read_is_kept_in_any_conversation(text):
    assert kept_in_work(text) and kept_in_chat(text)


@pytest.mark.parametrize("text", [
    "Webpack 5 no longer polyfills Node core modules, so we need to add a fallback for crypto.",
    "pytest-xdist doesn't share session fixtures between workers, so each worker starts its own database.",
    "Jest doesn't support ES modules without the experimental VM flag.",
    "The 502s came from the load balancer's idle timeout being shorter than the upstream keep-alive.",
    "The deadlock came from two workers taking the locks in opposite order.",
    "Postgres truncates identifiers longer than 63 characters.",
    "The CDN caches the 404 for an hour, which is why the fix didn't show up.",
    "Vite only exposes variables prefixed with VITE_ to the client bundle.",
    "Node's fetch doesn't send cookies across origins by default.",
    "The ORM opens a new connection per request unless pooling is enabled in settings.py.",
])
def test_what_a_tool_does_or_where_a_fault_came_from_is_the_agents_finding(text):
    facts = facts_of(f"[10:00] [User] (m1): Why does it fail?\n[10:01] [Assistant] (m2): {text}\n"
                     "  → Bash(command=npm test)")
    assert any(text[:40] in f.text for f in facts), [f.text for f in facts]


@pytest.mark.parametrize("text", ["I can't find the config file in the repo.", "I've updated the handler and added a test.",
                                  "The Stripe API rejects it.",
                                  "Doing 3 rounds of the workout, 3 times a week, is a good way to make progress.",
                                  "You're in luck because the hotel is in the heart of the shopping district."])
def test_the_agents_own_doings_are_no_finding(text):
    facts = facts_of(f"[10:00] [User] (m1): Why does it fail?\n[10:01] [Assistant] (m2): {text}\n"
                     "  → Bash(command=npm test)")
    assert not any(text[:30] in f.text for f in facts)


@pytest.mark.parametrize(("text", "kind", "priority"), [
    ("When you add a route, also add it to the OpenAPI spec in docs/openapi.yaml.", "procedure", "P1"),
    ("Please keep your answers short, I read them on my phone.", "preference", "P1"),
    ("It's important that every refund is written to the audit table.", "constraint", "P0"),
    ("Migrations must be reversible.", "constraint", "P0"),
    ("The payments service owns the ledger table; no other service writes to it.", "relationship", "P1"),
])
def test_the_ledger_types_them_by_what_they_say(text, kind, priority):
    typed = classify_fact(f'User stated: "{text}"', "high")
    assert (typed.type, typed.priority) == (kind, priority)


def test_how_answers_should_read_is_the_users_in_every_project():
    assert fact_scope('User stated: "Please keep your answers short, I read them on my phone."', ["user"]) == "user"
    assert fact_scope('User stated: "Migrations must be reversible."', ["user"]) == "project"


@pytest.mark.parametrize(("text", "section"), [
    ("We already tried adding more API workers; it made the database contention worse.", "Patterns"),
    ("Switching the reindex to batches of 1000 fixed a similar lock problem in the billing service.", "Patterns"),
    ("When you add a route, also add it to the OpenAPI spec in docs/openapi.yaml.", "Hard Rules"),
    ("Please keep your answers short, I read them on my phone.", "User"),
    ("The reason we keep search in Postgres is that no one here can run an Elasticsearch cluster.", "System Architecture"),
    # what the setup uses or how it is put together, however it is said: one section
    ("We use pnpm now.", "System Architecture"),
    ("Our tests run on Jest.", "System Architecture"),
    ("Deploys go through Argo CD.", "System Architecture"),
    ("The reports job reads from the replica.", "System Architecture"),
    ("Never run jest with --watch in CI.", "Hard Rules"),  # a rule that names a tool stays a rule
])
def test_a_proposal_files_them_where_memory_md_keeps_their_kind(text, section):
    assert categorize(text, quoted=True) == section


def test_a_contraction_names_nothing():
    assert entity_of('User stated: "Don\'t bother with the Elasticsearch plugin, it doesn\'t support our Postgres."') \
        == "elasticsearch"


def test_outside_work_on_software_what_a_product_lacks_is_what_the_agent_knows():
    facts = facts_of("[10:00] [User] (m1): Which soundbar should I get?\n[10:01] [Assistant] (m2): Like the Sonos Beam, "
                     "the YAS-209 doesn't support Dolby Atmos by default.")
    assert not any("Dolby" in f.text for f in facts)
