"""Coding sessions held by each real client (Claude Code, pi, Codex) for the labelled set, opening with
what the real-client tests say (memory_pipeline_tests/clients: the staging port, the billing cron, the
checkout flag) and going on as a working session does. Each turn is the user's text and the agent's
answer, every sentence marked durable (True) or not, as in coding_sessions.py; `coding_sessions.record`
records them with the client named here.
"""

from __future__ import annotations

Turn = tuple[list[tuple[str, bool]], list[tuple[str, bool]]]  # (user sentences, agent sentences)

CLIENT_SESSIONS: dict[str, tuple[str, list[Turn]]] = {
    "orders-api-health": ("claude-code", [
        ([("Remember: the staging server for orders-api listens on port 8471.", True),
          ("Can you add a health check endpoint?", False)],
         [("I'll add a /healthz route to orders_api/app.py.", False),
          ("The route returns 200 with the build sha.", False)]),
        ([("Production runs behind the nginx ingress on port 443, so never hard-code 8471 in the app.", True)],
         [("Understood.", False),
          ("The port now comes from the ORDERS_API_PORT environment variable.", True)]),
        ([("Why does the health check time out on staging?", False)],
         [("Let me check the staging logs.", False),
          ("The health check times out because it queries the database, and the staging replica is paused at night.", True),
          ("I changed it to skip the database check, so it answers in a few milliseconds.", False)]),
        ([("No, keep the database check, but give it a 2 second timeout instead.", True)],
         [("Done: the database check stays, with a 2 second timeout.", False)]),
        ([("We deploy orders-api with Helm from the deploy folder; don't use kubectl apply directly.", True)],
         [("Noted.", False),
          ("I updated deploy/values-staging.yaml with the new probe path.", False)]),
        ([("Thanks, commit it.", False)],
         [("Committed as \"Add /healthz with a bounded database check\".", False)]),
    ]),
    "billing-cron": ("pi", [
        ([("The nightly billing cron for orders-api runs at 04:15 UTC.", True),
          ("It failed last night; find out why.", False)],
         [("I'll read the cron log in logs/billing-2026-11-23.log.", False),
          ("The job failed with a connection reset from the payments gateway at 04:15:07.", False)]),
        ([("The payments gateway restarts every night at 04:15 UTC for maintenance, that's probably it.", True)],
         [("That matches the log.", False),
          ("The root cause is that the cron starts exactly during the gateway's nightly restart.", True),
          ("I moved the cron to 04:45 UTC, after the restart window.", True)]),
        ([("Good.", False),
          ("I'd rather we retry with backoff than move the schedule again next time.", True)],
         [("I added a retry with exponential backoff, up to five attempts.", True)]),
        ([("Run the billing tests.", False)],
         [("Ran npm test: 64 passed.", False)]),
        ([("We tried running billing as a separate Kubernetes CronJob and abandoned it because secret rotation broke it.", True)],
         [("Understood, billing stays in the orders-api scheduler.", False)]),
        ([("ok, that's all for today.", False)],
         [("Have a good evening.", False)]),
    ]),
    "checkout-flag": ("codex", [
        ([("The feature flag for the new checkout is called orders_v2_rollout.", True),
          ("Add a check for it in the checkout handler.", False)],
         [("I added a flag check in checkout/handler.ts.", False),
          ("The handler falls back to the old flow when the flag is off.", True)]),
        ([("Flags are managed in LaunchDarkly, and the SDK key lives in the LD_SDK_KEY secret.", True)],
         [("I read the key from LD_SDK_KEY through the existing config module.", False)]),
        ([("Why is the flag always off in the tests?", False)],
         [("The flag is always off in tests because the test setup uses the offline LaunchDarkly client, which returns defaults.", True),
          ("I added a helper that sets flag values in the offline client.", False)]),
        ([("Don't mock LaunchDarkly with jest.mock; use the test data source instead, it's what the other services do.", True)],
         [("Okay, I switched the helper to the LaunchDarkly test data source.", True)]),
        ([("Please run the checkout tests.", False)],
         [("Ran npm test -- checkout: 23 passed.", False)]),
        ([("Great, thanks.", False)],
         [("You're welcome.", False)]),
    ]),
}
