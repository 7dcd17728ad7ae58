"""The Anthropic Observer: the shipped prompt, with its keep/drop principles, goes over the Messages API
(a loopback server) and the model's answer becomes facts that cite the transcript's message ids."""

from __future__ import annotations

import json

from benchmarks.observe_run import BenchRunner
from memory_pipeline.config import Settings
from memory_pipeline.prompts import load_prompt
from memory_pipeline.stages.transcripts.parse import parse_transcript
from memory_pipeline_tests.support.anthropic_server import anthropic_server  # noqa: F401


def line(uuid: str, parent: str | None, role: str, text: str, when: str) -> str:
    message = {"role": role, "content": text} if role == "user" else {
        "id": f"msg-{uuid}", "role": role, "model": "m", "content": [{"type": "text", "text": text}]}
    return json.dumps({"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "s-anthropic", "cwd": "/srv",
                       "timestamp": when, "isSidechain": False, "message": message})


TRANSCRIPT = "\n".join([
    line("u-1", None, "user", "Why do the invoice emails go out twice?", "2026-03-02T09:00:00.000Z"),
    line("a-1", "u-1", "assistant", "Let me look at the scheduler. The root cause is that two cron entries run "
         "`send_invoices` at 06:00.", "2026-03-02T09:03:00.000Z"),
    line("u-2", "a-1", "user", "From now on, schedule jobs only in jobs/schedule.py, never in crontab.",
         "2026-03-02T09:05:00.000Z"),
]) + "\n"

ANSWER = """<observations>
Date: 2026-03-02

<segment>
<title>Duplicate invoice emails</title>
<narrative>The user asked why invoice emails went out twice; two cron entries ran the job.</narrative>
<facts>
* 🔴 (09:03) Root cause of duplicate invoice emails: two cron entries both run `send_invoices` at 06:00 [m2]
* 🔴 (09:05) User rule: schedule jobs only in jobs/schedule.py, "never in crontab" [m3]
</facts>
</segment>
</observations>

<current-task>
Primary: remove the duplicate cron entry
Secondary: none
</current-task>

<suggested-response>
Session completed normally.
</suggested-response>"""


def test_the_observer_prompt_is_sent_and_the_answer_parsed(anthropic_server, tmp_path):
    anthropic_server.reply_text(ANSWER, input_tokens=900, output_tokens=120)
    settings = Settings.from_env({"MEMORY_LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": anthropic_server.api_key,
                                  "ANTHROPIC_BASE_URL": anthropic_server.url, "MEMORY_WORKSPACE": str(tmp_path)})
    runner = BenchRunner(settings)

    observation = runner.observe(parse_transcript(TRANSCRIPT, format="claude-code"), "s-anthropic")

    [request] = anthropic_server.requests
    prompt = load_prompt("observer")
    assert request.body["model"] == settings.observer_model
    assert request.body["system"] == prompt.system
    assert "running commentary" in request.body["system"] and "status lines" in request.body["system"]
    user = request.body["messages"][0]["content"]
    assert "(m2): Let me look at the scheduler." in user and "<transcript-" in user
    facts = [f for s in observation.segments for f in s.facts]
    assert [f.source_message_ids for f in facts] == [["a-1"], ["u-2"]]
    assert [f.time for f in facts] == ["09:03", "09:05"] and all(f.priority == "high" for f in facts)
    assert observation.usage.input_tokens == 900 and observation.usage.calls == 1
