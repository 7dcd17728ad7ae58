"""The embedder with the real shipped MiniLM model, offline."""

from __future__ import annotations

import math

import pytest

from memory_pipeline.errors import ServiceError
from memory_pipeline.resources.embedding.embedder import (BATCH_CHARS, LONG_TEXT_CHARS, MIN_BATCH, Embedder, get_embedder,
                                                length_batches, resolve_device)


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b))  # vectors are unit length


@pytest.mark.slow
def test_shipped_model_loads_offline_with_384_dimensions(embedder: Embedder) -> None:
    assert embedder.dimension == 384
    vector = embedder.encode_query("Redis keeps the hot observation list")
    assert len(vector) == 384
    assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, rel_tol=1e-4)


@pytest.mark.slow
def test_related_sentences_are_closer_than_unrelated(embedder: Embedder) -> None:
    query, related, unrelated = embedder.encode(
        [
            "How do I restart the Redis server?",
            "Restarting redis-server after changing its configuration",
            "The recipe needs two cups of flour and an egg",
        ]
    )
    assert cosine(query, related) > cosine(query, unrelated) + 0.3


@pytest.mark.slow
def test_batch_encoding_matches_single_encoding(embedder: Embedder) -> None:
    texts = [f"observation number {i} about qdrant hybrid search" for i in range(5)] + ["short"]
    batch = embedder.encode(texts)
    for text, vector in zip(texts, batch):
        assert embedder.encode_query(text) == pytest.approx(vector, abs=1e-5)
    assert embedder.encode([]) == []


def test_model_names_share_one_cached_embedder() -> None:
    assert get_embedder("all-MiniLM-L6-v2") is get_embedder("sentence-transformers/all-MiniLM-L6-v2")


@pytest.mark.slow
def test_unknown_model_is_a_service_error(tmp_path) -> None:
    with pytest.raises(ServiceError, match="could not load embedding model"):
        Embedder(str(tmp_path / "no-such-model")).dimension


def test_a_set_device_is_used_as_given() -> None:
    assert resolve_device("cpu") == "cpu" and resolve_device(" CUDA:1 ") == "cuda:1"


@pytest.mark.slow
def test_auto_device_prefers_cuda_then_apple_mps_then_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    for cuda, mps, expected in ((True, True, "cuda"), (False, True, "mps"), (False, False, "cpu")):
        monkeypatch.setattr(torch.cuda, "is_available", lambda cuda=cuda: cuda)
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda mps=mps: mps)
        assert resolve_device("auto") == expected


@pytest.mark.slow
def test_the_model_runs_on_the_resolved_device(embedder: Embedder) -> None:
    embedder.dimension  # loads the model
    assert embedder.device == resolve_device(embedder.requested_device)
    assert str(embedder.model.device).startswith(embedder.device)


def test_batches_are_budgeted_by_their_padded_size() -> None:
    # one long text then many mid-sized ones: each batch is padded to its first text, so the long
    # text's batch stays small instead of padding 20 mid-sized texts to 256 tokens
    texts = ["x" * 5000] + ["y" * 450] * 40 + ["z" * 20] * 200
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    batches = length_batches(order, texts, most=64)
    assert sorted(i for batch in batches for i in batch) == list(range(len(texts)))
    for batch in batches:
        padded = min(len(texts[batch[0]]), LONG_TEXT_CHARS)
        assert len(batch) <= 64 and (len(batch) <= MIN_BATCH or len(batch) * padded <= BATCH_CHARS)
    assert len(batches[0]) == MIN_BATCH  # the long text and seven mid-sized ones padded to it
    assert max(len(batch) for batch in batches) == 64  # short texts fill whole batches
