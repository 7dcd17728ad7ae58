"""The BM25 sparse vectors: tokenizer rules and vector properties."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory_pipeline.stages.index.sparse import sparse_vector, token_id, tokenize
from memory_pipeline_tests.support.paths import PROJECT_ROOT


def test_words_are_lowercased_and_stop_words_dropped() -> None:
    assert tokenize("The Redis server IS on a socket") == ["redis", "server", "socket"]


def test_identifiers_keep_the_whole_and_add_their_parts() -> None:
    assert tokenize("memory_pipeline/stages/sparse.py") == [
        "memory_pipeline/stages/sparse.py", "memory", "pipeline", "stage", "sparse", "py",
    ]  # fmt: skip
    assert tokenize("getUserName HTTPServer redis-wheel") == [
        "getusername", "get", "user", "name",
        "httpserver", "http", "server",
        "redis-wheel", "redis", "wheel",
    ]  # fmt: skip


def test_one_character_tokens_dropped_except_digits() -> None:
    assert tokenize("x y 7 z 42") == ["7", "42"]


def test_light_suffix_stripping() -> None:
    assert tokenize("tests queries indexing indexed classes status redis string") == [
        "test", "query", "index", "index", "class", "status", "redis", "string",
    ]  # fmt: skip


def test_ied_and_a_doubled_consonant_meet_their_plain_word() -> None:
    """studied = study, planning = planned = plan (Porter's undoubling: not l, s or z)."""
    assert tokenize("studied study planning planned plan stopped stop") == [
        "study", "study", "plan", "plan", "plan", "stop", "stop",
    ]  # fmt: skip
    assert tokenize("falling fall passed pass buzzed buzz") == ["fall", "fall", "pass", "pass", "buzz", "buzz"]


def test_unicode_words_are_tokens() -> None:
    assert tokenize("Café crème 東京") == ["café", "crème", "東京"]


def test_token_ids_are_stable_crc32_values() -> None:
    # computed once with zlib.crc32(token) & 0x7FFFFFFF; must never change (stored vectors use them)
    assert token_id("redis") == 2066075671
    assert token_id("qdrant") == 960205894
    assert token_id("memory_pipeline") == 1805865314


def test_sparse_vector_merges_duplicates_with_bm25_saturation() -> None:
    indices, values = sparse_vector("Redis redis qdrant")
    assert indices == [960205894, 2066075671]
    assert values == pytest.approx([1.6356877, 1.8763326])
    assert values[1] < 2 * values[0]  # a repeated term counts less than twice


def test_longer_documents_weigh_each_term_less() -> None:
    short = dict(zip(*sparse_vector("redis socket")))
    long = dict(zip(*sparse_vector("redis socket " + " ".join(f"word{i}" for i in range(100)))))
    assert long[token_id("redis")] < short[token_id("redis")]


def test_empty_text_gives_an_empty_vector() -> None:
    assert sparse_vector("") == ([], [])
    assert sparse_vector("the a of !!") == ([], [])


def test_vector_is_the_same_in_another_process() -> None:
    code = "from memory_pipeline.stages.index.sparse import sparse_vector; print(sparse_vector('Dagster sensor retries'))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PROJECT_ROOT,
        env={"PYTHONPATH": str(PROJECT_ROOT), "PYTHONHASHSEED": "123"},
    ).stdout  # fmt: skip
    assert out.strip() == str(sparse_vector("Dagster sensor retries"))


@given(st.text(max_size=200))
def test_vector_shape_invariants(text: str) -> None:
    indices, values = sparse_vector(text)
    assert len(indices) == len(values)
    assert indices == sorted(set(indices))
    assert all(0 <= i < 2**31 for i in indices)
    assert all(v > 0 for v in values)
