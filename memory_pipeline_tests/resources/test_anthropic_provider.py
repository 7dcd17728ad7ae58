"""The real AnthropicProvider + LLMClient against a loopback server speaking the Messages API."""

from __future__ import annotations

import json
import re

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.errors import LLMError
from memory_pipeline.resources.llm import AnthropicProvider, LLMClient, LLMTransientError, build_llm_client
from memory_pipeline_tests.support.anthropic_server import AnthropicServer, anthropic_server  # noqa: F401

MODEL = "claude-haiku-4-5"


class SleepRecorder:
    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def make_client(server: AnthropicServer, *, retries: int = 3, timeout: float = 10.0, api_key: str | None = None):
    sleep = SleepRecorder()
    provider = AnthropicProvider(api_key or server.api_key, base_url=server.url, timeout=timeout)
    return LLMClient(provider, cache_dir=None, retries=retries, sleep=sleep), sleep


def ask(client: LLMClient, **overrides):
    call = dict(task="observer", model=MODEL, system="You observe.", prompt="Summarize this.", max_tokens=512)
    call.update(overrides)
    return client.complete(**call)


def test_normal_reply_sends_a_proper_request_and_counts_usage(anthropic_server):
    anthropic_server.reply_text("the summary", input_tokens=123, output_tokens=45)
    client, sleep = make_client(anthropic_server)

    text, usage = ask(client)

    assert text == "the summary"
    assert (usage.calls, usage.input_tokens, usage.output_tokens, usage.cache_hits) == (1, 123, 45, 0)
    assert sleep.waits == []
    [request] = anthropic_server.requests
    assert request.path == "/v1/messages"
    assert request.api_key == anthropic_server.api_key
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", request.headers["anthropic-version"])
    assert request.body["model"] == MODEL
    assert request.body["system"] == "You observe."
    assert request.body["messages"] == [{"role": "user", "content": "Summarize this."}]
    assert request.body["max_tokens"] == 512
    assert "temperature" not in request.body  # removed in API version 2026-10-21 (SDK 2.x)


def test_provider_joins_text_and_reports_model_and_tokens(anthropic_server):
    anthropic_server.reply_text("hello", input_tokens=7, output_tokens=2)
    provider = AnthropicProvider(anthropic_server.api_key, base_url=anthropic_server.url)

    response = provider.complete(task="t", model=MODEL, system="s", prompt="p", max_tokens=16)

    assert (response.text, response.model, response.provider) == ("hello", MODEL, "anthropic")
    assert (response.input_tokens, response.output_tokens, response.cached) == (7, 2, False)


def test_overloaded_529_is_retried_after_a_backoff(anthropic_server):
    anthropic_server.reply_error(529)
    anthropic_server.reply_text("after the storm")
    client, sleep = make_client(anthropic_server)

    text, usage = ask(client)

    assert text == "after the storm"
    assert len(anthropic_server.requests) == 2
    assert sleep.waits == [0.5]
    assert usage.calls == 1


def test_rate_limit_429_is_transient(anthropic_server):
    anthropic_server.reply_error(429, message="slow down")
    provider = AnthropicProvider(anthropic_server.api_key, base_url=anthropic_server.url)

    with pytest.raises(LLMTransientError, match="429.*slow down"):
        provider.complete(task="t", model=MODEL, system="s", prompt="p", max_tokens=16)


def test_server_error_four_times_gives_up_with_a_typed_error(anthropic_server):
    for _ in range(4):
        anthropic_server.reply_error(500, message="internal trouble")
    client, sleep = make_client(anthropic_server, retries=3)

    with pytest.raises(LLMError, match="after 4 attempts.*500.*internal trouble") as raised:
        ask(client)

    assert not isinstance(raised.value, LLMTransientError)
    assert len(anthropic_server.requests) == 4
    assert sleep.waits == [0.5, 1.0, 2.0]


def test_wrong_api_key_fails_at_once_without_retry(anthropic_server):
    client, sleep = make_client(anthropic_server, api_key="not-the-key")

    with pytest.raises(LLMError, match="401.*authentication_error.*invalid x-api-key") as raised:
        ask(client)

    assert not isinstance(raised.value, LLMTransientError)
    assert len(anthropic_server.requests) == 1
    assert sleep.waits == []


def test_bad_request_400_is_not_retried(anthropic_server):
    anthropic_server.reply_error(400, message="max_tokens: too large")
    client, sleep = make_client(anthropic_server)

    with pytest.raises(LLMError, match="400.*max_tokens: too large"):
        ask(client)

    assert len(anthropic_server.requests) == 1
    assert sleep.waits == []


def test_timeout_is_retried_then_reported(anthropic_server):
    anthropic_server.reply_delay(5)
    anthropic_server.reply_delay(5)
    client, sleep = make_client(anthropic_server, retries=1, timeout=0.3)

    with pytest.raises(LLMError, match="after 2 attempts.*timed out"):
        ask(client)

    assert len(anthropic_server.requests) == 2
    assert sleep.waits == [0.5]


def test_connection_refused_is_retried_then_reported():
    with AnthropicServer() as server:
        url, key = server.url, server.api_key  # the port is closed once the server stops
    client = LLMClient(AnthropicProvider(key, base_url=url, timeout=2), None, retries=1, sleep=lambda _: None)

    with pytest.raises(LLMError, match="after 2 attempts.*connection"):
        ask(client)


def test_invalid_answer_is_asked_again_once_with_a_note(anthropic_server):
    anthropic_server.reply_text("not json at all", input_tokens=10, output_tokens=4)
    anthropic_server.reply_text('{"facts": 3}', input_tokens=20, output_tokens=6)
    client, _ = make_client(anthropic_server)

    value, usage = ask(client, validate=json.loads)

    assert value == {"facts": 3}
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (2, 30, 10)
    first, second = (r.body for r in anthropic_server.requests)
    assert second["system"] == first["system"]
    reasked = second["messages"][0]["content"]
    assert reasked.startswith("Summarize this.\n\nYour previous answer could not be used: ")
    assert reasked.endswith("Answer again, following the required output format exactly.")


def test_answer_failing_validation_twice_raises(anthropic_server):
    anthropic_server.reply_text("nope")
    anthropic_server.reply_text("still nope")
    client, _ = make_client(anthropic_server)

    with pytest.raises(LLMError, match="failed validation twice"):
        ask(client, validate=json.loads)
    assert len(anthropic_server.requests) == 2


def test_build_llm_client_talks_to_the_configured_base_url(anthropic_server, tmp_path):
    settings = Settings.from_env(
        {
            "MEMORY_WORKSPACE": str(tmp_path / "ws"),
            "MEMORY_LLM_PROVIDER": "anthropic",
            "ANTHROPIC_API_KEY": anthropic_server.api_key,
            "ANTHROPIC_BASE_URL": anthropic_server.url,
        }
    )
    anthropic_server.reply_text("from settings")
    client = build_llm_client(settings, cache_dir=tmp_path / "cache")

    text, _ = ask(client, model=settings.observer_model)

    assert text == "from settings"
    assert anthropic_server.requests[0].body["model"] == settings.observer_model


def test_the_llm_layer_and_status_load_without_the_sdk():
    """The SDK's import takes ~1.4 s: the offline default and `status` must not pay it."""
    import subprocess
    import sys

    code = ("import sys; import memory_pipeline.resources.llm, memory_pipeline.flows.status; "
            "print('anthropic' in sys.modules)")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert loaded.returncode == 0 and loaded.stdout.strip() == "False", loaded.stderr[-2000:]
