"""LLMClient (cache, retries, validation), the offline provider and build_llm_client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError, LLMError
from memory_pipeline.resources.llm import (
    OFFLINE_EXTRACTORS,
    AnthropicProvider,
    LLMClient,
    LLMTransientError,
    OfflineProvider,
    build_llm_client,
    cache_key,
    default_offline_provider,
)
from memory_pipeline.stages.tokens import estimate_tokens
from memory_pipeline_tests.support.fake_llm import QueuedProvider

CALL = dict(task="observer", model="m1", system="sys", prompt="the prompt")


def no_sleep(_: float) -> None:
    pass


def cache_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


# --- cache -------------------------------------------------------------------------------


def test_same_call_twice_hits_the_cache(tmp_path):
    provider = QueuedProvider().enqueue("answer one")
    client = LLMClient(provider, cache_dir=tmp_path / "cache")

    first, first_usage = client.complete(**CALL)
    second, second_usage = client.complete(**CALL)

    assert first == second == "answer one"
    assert len(provider.calls) == 1
    assert (first_usage.calls, first_usage.cache_hits) == (1, 0)
    assert (second_usage.calls, second_usage.cache_hits) == (0, 1)
    assert second_usage.input_tokens == first_usage.input_tokens > 0
    assert second_usage.output_tokens == first_usage.output_tokens > 0
    assert client.total_usage.calls == 1 and client.total_usage.cache_hits == 1


def test_a_different_system_model_or_prompt_is_a_miss(tmp_path):
    provider = QueuedProvider().enqueue("a", "b", "c", "d")
    client = LLMClient(provider, cache_dir=tmp_path / "cache")

    answers = [
        client.complete(**CALL)[0],
        client.complete(**{**CALL, "system": "another system"})[0],
        client.complete(**{**CALL, "model": "m2"})[0],
        client.complete(**{**CALL, "prompt": "another prompt"})[0],
    ]

    assert answers == ["a", "b", "c", "d"]
    assert len(provider.calls) == 4


def test_cache_key_covers_provider_model_system_and_prompt():
    base = cache_key("anthropic", "m", "s", "p")
    assert base == cache_key("anthropic", "m", "s", "p")
    others = {cache_key("offline", "m", "s", "p"), cache_key("anthropic", "m2", "s", "p"),
              cache_key("anthropic", "m", "s2", "p"), cache_key("anthropic", "m", "s", "p2"),
              cache_key("anthropic", "m", "sp", ""), cache_key("anthropic", "m", "", "sp")}
    assert base not in others and len(others) == 6


def test_cache_file_layout_and_atomic_write(tmp_path):
    root = tmp_path / "cache"
    client = LLMClient(QueuedProvider().enqueue("stored"), cache_dir=root)

    client.complete(**CALL)

    key = cache_key("fake", CALL["model"], CALL["system"], CALL["prompt"])
    assert cache_files(root) == [root / key[:2] / f"{key}.json"]  # no temp files left beside it
    record = json.loads((root / key[:2] / f"{key}.json").read_text())
    assert record["response"]["text"] == "stored"


def test_corrupt_cache_file_is_ignored_and_overwritten(tmp_path):
    root = tmp_path / "cache"
    key = cache_key("fake", CALL["model"], CALL["system"], CALL["prompt"])
    path = root / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"response": {"text": trunc')
    provider = QueuedProvider().enqueue("fresh")
    client = LLMClient(provider, cache_dir=root)

    text, usage = client.complete(**CALL)

    assert (text, usage.calls, usage.cache_hits) == ("fresh", 1, 0)
    assert json.loads(path.read_text())["response"]["text"] == "fresh"
    assert client.complete(**CALL)[0] == "fresh"
    assert len(provider.calls) == 1


def test_no_cache_dir_means_no_caching(tmp_path):
    provider = QueuedProvider().enqueue("one", "two")
    client = LLMClient(provider, cache_dir=None)

    assert [client.complete(**CALL)[0], client.complete(**CALL)[0]] == ["one", "two"]
    assert list(tmp_path.iterdir()) == []


def test_answers_that_never_validate_are_not_cached(tmp_path):
    root = tmp_path / "cache"
    client = LLMClient(QueuedProvider().enqueue("x", "y"), cache_dir=root)

    with pytest.raises(LLMError):
        client.complete(**CALL, validate=json.loads)
    assert cache_files(root) == []


def test_a_cached_answer_the_validator_now_rejects_is_asked_again(tmp_path):
    provider = QueuedProvider().enqueue("plain text", '{"ok": true}')
    client = LLMClient(provider, cache_dir=tmp_path / "cache")
    client.complete(**CALL)

    value, usage = client.complete(**CALL, validate=json.loads)

    assert value == {"ok": True}
    assert (usage.calls, usage.cache_hits) == (1, 0)
    assert client.complete(**CALL, validate=json.loads)[0] == {"ok": True}
    assert len(provider.calls) == 2


# --- retries and validation ---------------------------------------------------------------


def test_non_transient_errors_are_not_retried():
    waits: list[float] = []
    provider = QueuedProvider().enqueue(LLMError("HTTP 400: bad"))
    client = LLMClient(provider, cache_dir=None, sleep=waits.append)

    with pytest.raises(LLMError, match="HTTP 400: bad"):
        client.complete(**CALL)
    assert (len(provider.calls), waits) == (1, [])


def test_retries_back_off_exponentially_and_name_the_attempts():
    waits: list[float] = []
    provider = QueuedProvider().enqueue(*[LLMTransientError(f"overloaded {i}") for i in range(3)])
    client = LLMClient(provider, cache_dir=None, retries=2, backoff_seconds=0.25, sleep=waits.append)

    with pytest.raises(LLMError, match="after 3 attempts: overloaded 2"):
        client.complete(**CALL)
    assert waits == [0.25, 0.5]


def test_validation_reask_uses_the_same_system_and_appends_the_note():
    provider = QueuedProvider().enqueue("garbage", "[1, 2]")
    client = LLMClient(provider, cache_dir=None)

    value, usage = client.complete(**CALL, validate=json.loads)

    assert value == [1, 2]
    assert usage.calls == 2
    first, second = provider.calls
    assert second["system"] == first["system"] == "sys"
    assert second["prompt"].startswith("the prompt\n\nYour previous answer could not be used: Expecting value")
    assert second["prompt"].endswith(". Answer again, following the required output format exactly.")


def test_second_validation_failure_raises_with_the_message():
    def must_be_yes(text: str) -> str:
        if text != "yes":
            raise ValueError(f"expected yes, got {text!r}")
        return text

    client = LLMClient(QueuedProvider().enqueue("no", "maybe"), cache_dir=None)

    with pytest.raises(LLMError, match="failed validation twice: expected yes, got 'maybe'"):
        client.complete(**CALL, validate=must_be_yes)


def test_total_usage_keeps_calls_made_before_a_failure():
    client = LLMClient(QueuedProvider().enqueue("not json", LLMError("HTTP 401: no")), cache_dir=None)

    with pytest.raises(LLMError, match="401"):
        client.complete(**CALL, validate=json.loads)
    assert client.total_usage.calls == 1 and client.total_usage.output_tokens == estimate_tokens("not json")


def test_oversized_answer_counts_as_a_validation_failure():
    provider = QueuedProvider().enqueue("x" * 11, "short")
    client = LLMClient(provider, cache_dir=None, max_output_chars=10)

    text, _ = client.complete(**CALL)

    assert text == "short"
    assert "over the limit of 10" in provider.calls[1]["prompt"]


def test_queued_provider_fails_loudly_when_empty():
    with pytest.raises(AssertionError, match="no queued answer"):
        QueuedProvider().complete(task="t", model="m", system="s", prompt="p", max_tokens=1)


# --- offline provider --------------------------------------------------------------------


def test_offline_provider_unknown_task_names_it():
    provider = OfflineProvider()
    provider.register("observer", lambda system, prompt: "obs")

    with pytest.raises(LLMError, match="'friction'.*registered: observer"):
        provider.complete(task="friction", model="m", system="s", prompt="p", max_tokens=10)


def test_offline_provider_answers_with_estimated_tokens_and_is_not_cached(tmp_path):
    provider = OfflineProvider()
    provider.register("rewrite", lambda system, prompt: prompt.upper())
    client = LLMClient(provider, cache_dir=tmp_path / "cache")

    text, usage = client.complete(task="rewrite", model="offline", system="s" * 8, prompt="abcdef")

    assert text == "ABCDEF"
    assert (usage.input_tokens, usage.output_tokens, usage.calls) == (2 + 2, 2, 1)
    assert not (tmp_path / "cache").exists()


def test_default_offline_provider_answers_every_offline_task():
    provider = default_offline_provider()
    assert set(provider.extractors) == set(OFFLINE_EXTRACTORS) == {"observer", "reflector", "rewrite", "friction", "ledger"}
    with pytest.raises(LLMError, match="no extractor for task 'ghost'"):
        provider.complete(task="ghost", model="offline", system="", prompt="hi", max_tokens=10)


# --- build_llm_client --------------------------------------------------------------------


def settings_with(tmp_path: Path, **env: str) -> Settings:
    return Settings.from_env({"MEMORY_WORKSPACE": str(tmp_path / "ws"), **env})


def test_build_offline_client_by_default(tmp_path):
    client = build_llm_client(settings_with(tmp_path), cache_dir=None)
    assert isinstance(client.provider, OfflineProvider)


def test_a_key_alone_keeps_the_offline_provider(tmp_path):
    settings = settings_with(tmp_path, ANTHROPIC_API_KEY="sk-test", ANTHROPIC_BASE_URL="http://127.0.0.1:9")
    assert isinstance(build_llm_client(settings, cache_dir=None).provider, OfflineProvider)


def test_build_anthropic_client_when_chosen(tmp_path):
    settings = settings_with(tmp_path, MEMORY_LLM_PROVIDER="anthropic", ANTHROPIC_API_KEY="sk-test",
                             ANTHROPIC_BASE_URL="http://127.0.0.1:9")
    client = build_llm_client(settings, cache_dir=tmp_path / "cache")
    assert isinstance(client.provider.provider, AnthropicProvider)  # inside the daily budget
    assert str(client.provider.provider.client.base_url).startswith("http://127.0.0.1:9")


def test_anthropic_without_a_key_is_bad_input(tmp_path):
    settings = settings_with(tmp_path, MEMORY_LLM_PROVIDER="anthropic")
    with pytest.raises(BadInputError, match="ANTHROPIC_API_KEY"):
        build_llm_client(settings, cache_dir=None)


def test_unknown_provider_is_bad_input(tmp_path):
    with pytest.raises(BadInputError, match="'gemini'"):  # `openai` is short for openai-compatible
        build_llm_client(settings_with(tmp_path, MEMORY_LLM_PROVIDER="gemini"), cache_dir=None)
