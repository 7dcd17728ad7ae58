"""Coding sessions for the labelled set, modelled on issue 26's examples: each turn is the user's
text and the agent's answer, every sentence marked durable (True) or not. `record` has a real client
hold each session against the loopback model server (the answers are the scripted agent text), so
the transcripts are the client's own files, as the real-client tests write them: Claude Code for
these, the client each names for those of client_sessions.py (pi, Codex).

    python -m memory_pipeline_tests.support.coding_sessions [NAME…]   # rewrites bench/sessions/ and the labels
"""

from __future__ import annotations

from memory_pipeline_tests.support.client_sessions import CLIENT_SESSIONS, Turn

SESSIONS: dict[str, list[Turn]] = {
    "orders-postgres": [
        ([("Context for today: the orders service runs on Postgres 15 (RDS instance orders-db-1), and migrations use Alembic.", True),
          ("Please add a nullable shipped_at column to the orders table.", False)],
         [("I'll add an Alembic migration for the shipped_at column.", False),
          ("I created migrations/versions/20261102_add_shipped_at.py with an op.add_column call.", False),
          ("Running alembic upgrade head against the local database now.", False),
          ("The migration applied cleanly and all 42 tests pass.", False)]),
        ([("We keep one migration per change, so don't fold the index into this migration.", True),
          ("Put the index in its own migration.", False)],
         [("Understood.", False),
          ("I split the index into a second migration, 20261102_index_shipped_at.py.", False),
          ("Both migrations apply cleanly.", False)]),
        ([("Staging reads reports from the replica orders-db-1-ro; never point report queries at the primary.", True)],
         [("Noted.", False),
          ("The reports module already reads from the replica through REPORTS_DATABASE_URL.", True)]),
        ([("Can you also check why the nightly export is slow?", False)],
         [("Let me look at the export query plan.", False),
          ("The root cause is a missing index on orders.created_at: the export scans the whole table every night.", True),
          ("I added the index on created_at in a third migration.", True),
          ("The export now finishes in 40 seconds instead of 12 minutes.", False)]),
        ([("Thanks, that's great.", False),
          ("Commit it with a short message.", False)],
         [("Committed as \"Add shipped_at and created_at index\".", False)]),
    ],
    "orders-upgrade": [
        ([("We upgraded the orders service from Postgres 15 to Postgres 16 last night; 15 is gone, orders-db-2 is the new instance.", True),
          ("Update the local setup to match.", False)],
         [("Got it.", False),
          ("I updated DATABASE_URL in .env.example to point at orders-db-2.", False),
          ("I changed the docker-compose image to postgres:16.", False)]),
        ([("I prefer explicit SQL in migrations over autogenerate, because autogenerate missed our partial indexes twice.", True)],
         [("Makes sense.", False),
          ("I rewrote the new migration with explicit op.execute statements.", False)]),
        ([("Run the tests.", False)],
         [("Ran uv run pytest -q: 118 passed, 2 skipped.", False)]),
        ([("We tried pgbouncer in transaction mode last month and abandoned it because prepared statements broke; don't suggest it again.", True)],
         [("Understood, I won't propose pgbouncer transaction mode.", False),
          ("Instead I set the SQLAlchemy pool size to 10 per worker.", False)]),
        ([("Why do the integration tests hang on CI but not locally?", False)],
         [("I'll check the CI logs.", False),
          ("The integration tests hang because CI starts Postgres without waiting for it to accept connections.", True),
          ("The fix is a pg_isready loop in the CI job before pytest starts.", True),
          ("I added it to .github/workflows/test.yml.", False)]),
        ([("Good.", False),
          ("From now on, every CI job that needs Postgres waits on pg_isready first.", True)],
         [("Done, I applied it to the three jobs that use Postgres.", False)]),
    ],
    "billing-uv": [
        ([("Please add httpx as a dependency and write a client for the billing API.", False)],
         [("I'll run pip install httpx first.", False),
          ("The install failed with externally-managed-environment.", False)]),
        ([("No, don't use pip here.", True),
          ("This repo uses uv: run uv sync and uv run pytest.", True),
          ("I've told you this before.", False)],
         [("Sorry about that.", False),
          ("I added httpx with uv add httpx and ran uv sync.", False),
          ("I wrote billing/client.py with a BillingClient class.", False)]),
        ([("The billing API is at https://billing.internal:8443 and it needs the X-Tenant header on every request.", True)],
         [("I added the X-Tenant header to every request in BillingClient.", False),
          ("Ran uv run pytest -q: 31 passed.", False)]),
        ([("Use a timeout of 10 seconds on every billing call, we never want unbounded calls to billing.", True)],
         [("Done: the client now uses a 10-second timeout.", False)]),
        ([("What does the retry decorator in billing/retry.py do?", False)],
         [("It retries on 502 and 503 up to three times with exponential backoff.", False)]),
        ([("Let's not retry on 503 any more, billing returns 503 during deploys and retries make the pile-up worse.", True)],
         [("I removed 503 from the retried statuses.", False),
          ("Ran uv run pytest -q: 31 passed.", False)]),
    ],
    "billing-uv-again": [
        ([("Add a test for the tenant header.", False)],
         [("I'll install pytest-httpx with pip install pytest-httpx.", False)]),
        ([("No, use uv, not pip: uv add --dev pytest-httpx.", True),
          ("This is the third time.", False)],
         [("You're right, sorry.", False),
          ("I ran uv add --dev pytest-httpx.", False),
          ("I wrote tests/test_client.py with a test that checks the X-Tenant header.", False)]),
        ([("Our staging tenant id is acme-staging, and production is acme.", True)],
         [("I used acme-staging in the test fixtures.", False)]),
        ([("Tests should never call the real billing API.", True)],
         [("The tests mock the transport with pytest-httpx, so no call leaves the machine.", False)]),
        ([("I tried caching tokens in Redis earlier and gave up on it because token refresh raced between workers.", True),
          ("Keep tokens in memory per process.", True)],
         [("Okay, the client keeps its token in memory and refreshes it when a call gets 401.", False)]),
        ([("Looks good, thanks!", False)],
         [("Glad it helps.", False)]),
    ],
    # a choice of the stack talked through, and findings said in ordinary words (2026-12-01): "let's go with",
    # "rather than", "moving off … to", a cause the user found, "it turns out", "…fixed it", "returns 429 when …"
    "orders-db-choice": [
        ([("We need to pick the database for the new orders service: Postgres or MySQL?", False)],
         [("Let me look at what the team already runs.", False),
          ("The billing service runs MySQL 8 (billing/docker-compose.yml), nothing else uses Postgres yet.", False)]),
        ([("Let's go with Postgres 17 for the orders service, because we need logical replication for the analytics feed.", True),
          ("Never use MySQL for new services.", True)],
         [("Understood: the orders service will run on Postgres 17.", False),
          ("I added a postgres:17 service to orders/docker-compose.yml.", False)]),
        ([("We're going to use Vitest rather than Jest for the new dashboard package.", True),
          ("Set it up.", False)],
         [("I'll add Vitest to packages/dashboard.", False),
          ("It turns out the dashboard already depends on jsdom, so Vitest uses it as the test environment.", True)]),
        ([("The dashboard tests are flaky, can you look?", False)],
         [("The flaky test depended on object key order; sorting the keys fixed it.", True),
          ("All 12 tests pass now.", False)]),
        ([("The bug in last week's export was that the cache key ignored the tenant id.", True),
          ("We are moving off Heroku to Fly.io next month.", True)],
         [("Noted.", False),
          ("The partner API returns 429 when more than 100 requests per minute come from one key.", True)]),
        ([("I prefer small pull requests, one change each, so reviews stay quick.", True)],
         [("Noted, I will keep pull requests small.", False)]),
    ],
    # conventions said once, in ordinary words, without "always" or "never" (stages/offline/observer_standing)
    "payments-conventions": [
        ([("Add a refund endpoint to the payments API.", False)],
         [("Let me look at the existing routes.", False),
          ("The payment routes are in payments/api/routes.py.", False)]),
        ([("Any endpoint that moves money needs an idempotency key.", True),
          ("When you add a route, also add it to the OpenAPI spec in docs/openapi.yaml.", True)],
         [("I'll add the idempotency key check to the refund handler.", False),
          ("Stripe rejects a refund larger than the original charge, so the handler validates the amount first.",
           True)]),
        ([("Amounts are stored as integer cents, never floats.", True),
          ("Run the tests.", False)],
         [("All 31 tests pass.", False)]),
        ([("It's important that every refund is written to the audit table.", True),
          ("The payments service owns the ledger table; no other service writes to it.", True)],
         [("Noted.", False),
          ("The audit logger defaults to async mode, so the test waits for the flush.", True)]),
        ([("Please keep your answers short, I read them on my phone.", True),
          ("Open the PR.", False)],
         [("PR opened: refund endpoint with an idempotency key.", False)]),
    ],
    # what the user learnt before, told once while debugging (failed approaches, fixes, causes, reasons)
    "search-timeouts": [
        ([("The search endpoint times out under load again, can you look into it?", False)],
         [("Let me check the slow query log.", False),
          ("The query in `search/queries.py` scans the whole documents table.", False)]),
        ([("We already tried adding more API workers; it made the database contention worse.", True),
          ("The timeouts only happen when the nightly reindex is running.", True)],
         [("That narrows it down.", False),
          ("The reindex job holds a lock on the documents table for the whole run, so search queries wait on it.",
           True)]),
        ([("Switching the reindex to batches of 1000 fixed a similar lock problem in the billing service.", True),
          ("Try that here.", False)],
         [("I changed the reindex job to commit every 1000 rows.", False),
          ("The search p95 dropped from 9 seconds to 300 ms under the load test.", False)]),
        ([("Don't bother with the Elasticsearch plugin, it doesn't support our Postgres version.", True),
          ("The reason we keep search in Postgres is that the team has no one to run an Elasticsearch cluster.", True)],
         [("Understood, search stays in Postgres.", False)]),
        ([("Great, commit it.", False)],
         [("Committed.", False)]),
    ],
}


def turn_text(sentences: list[tuple[str, bool]]) -> str:
    return " ".join(text for text, _ in sentences)


def all_sessions() -> dict[str, tuple[str, list[Turn]]]:
    """name → (client, turns) of every recorded session."""
    return {name: ("claude-code", turns) for name, turns in SESSIONS.items()} | CLIENT_SESSIONS


def hold_session(home, client: str, project, turns: list[str]):
    """Each turn typed into the real client, one after the other in one session; its transcript file."""
    if client == "claude-code":
        home.claude_conversation(["--model", "claude-sonnet-4-5"], project, turns)
        [recorded] = list(home.claude_projects.glob("*/*.jsonl"))
        return recorded
    for n, text in enumerate(turns):
        if client == "pi":
            done = home.pi(["-p", *(["--continue"] if n else []), text], cwd=project)
        else:
            done = home.codex(["exec", "--skip-git-repo-check", *(["resume", "--last"] if n else []), text], cwd=project)
        assert done.returncode == 0, done.stderr[-2000:]
    [recorded] = list((home.pi_sessions if client == "pi" else home.codex_sessions).rglob("*.jsonl"))
    return recorded


def record(out_dir, labels_path, names: list[str] | None = None) -> None:
    """Record the named sessions (default: every one) with their real client and write their labels
    (message ids from the transcript); the labels of the others stay as they are."""
    import json
    import shutil
    import tempfile
    from pathlib import Path

    from memory_pipeline_tests.support.agent_clients import ClientHome, installed_clients
    from memory_pipeline_tests.support.loopback_models import LoopbackModels

    clients = installed_clients()
    if isinstance(clients, str):
        raise SystemExit(f"cannot record: {clients}")
    sessions = {name: held for name, held in all_sessions().items() if not names or name in names}
    labels = json.loads(Path(labels_path).read_text(encoding="utf-8"))
    fixtures = [f for f in labels["fixtures"] if f["path"].removeprefix("bench:").removesuffix(".jsonl") not in sessions]
    for name, (client, turns) in sessions.items():
        with tempfile.TemporaryDirectory() as tmp, LoopbackModels() as models:
            for user, agent in turns:
                models.answer_when(turn_text(user), turn_text(agent))
            home, project = ClientHome(clients, Path(tmp) / "home", models.url), Path(tmp) / name
            project.mkdir()
            target = Path(out_dir) / f"{name}.jsonl"
            shutil.copyfile(hold_session(home, client, project, [turn_text(u) for u, _ in turns]), target)
        fixtures.append({"path": f"bench:{name}.jsonl", "sentences": labelled_sentences(target, turns)})
    labels["fixtures"] = fixtures
    Path(labels_path).write_text(json.dumps(labels, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def labelled_sentences(transcript, turns: list[Turn]) -> list[dict]:
    """Each scripted sentence with the id of the transcript message that holds it."""
    from memory_pipeline.stages.transcripts.parse import parse_transcript

    messages = [m for m in parse_transcript(transcript).messages if m.role in ("user", "assistant") and m.text.strip()]
    sentences = []
    for user, agent in turns:
        for role, said in (("user", user), ("assistant", agent)):
            source = next(m for m in messages if m.role == role and turn_text(said) in m.text)
            sentences += [{"message_id": source.id, "role": role, "text": text, "durable": durable}
                          for text, durable in said]
    return sentences


if __name__ == "__main__":
    from benchmarks.observe_coding import LABELS, SESSIONS_DIR

    import sys

    record(SESSIONS_DIR, LABELS, sys.argv[1:] or None)
