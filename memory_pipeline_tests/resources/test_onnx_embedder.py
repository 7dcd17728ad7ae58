"""The shipped model exported to ONNX gives the torch model's vectors, and the recall engine uses it
without importing torch."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memory_pipeline.resources.embedder import Embedder, resolve_model_location
from memory_pipeline.resources.onnx_embedder import OnnxEmbedder, export_onnx, plain_shape, query_embedder

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytestmark = pytest.mark.slow

TEXTS = ["Redis keeps the hot observation list",
         "We switched to keyset pagination on (created_at, id) because OFFSET scanned 2M rows.",
         "",
         " ".join(f"token{n} of a very long tool output" for n in range(400))]  # past the 256-token window


@pytest.fixture
def exported(embedder: Embedder, tmp_path, monkeypatch) -> str:
    monkeypatch.setenv("MEMORY_MODEL_CACHE", str(tmp_path / "models"))
    location = resolve_model_location(embedder.model_name)
    assert export_onnx(embedder.model, location) is not None
    return location


def test_the_export_gives_the_torch_vectors(embedder: Embedder, exported: str) -> None:
    onnx = query_embedder(embedder.model_name)
    assert isinstance(onnx, OnnxEmbedder) and onnx.dimension == embedder.dimension == 384
    for ours, theirs in zip(onnx.encode(TEXTS), embedder.encode(TEXTS), strict=True):
        assert max(abs(a - b) for a, b in zip(ours, theirs, strict=True)) < 1e-4
    assert onnx.encode_query(TEXTS[0]) == onnx.encode([TEXTS[0]])[0]


def test_the_recall_engine_embeds_queries_without_torch(embedder: Embedder, exported: str, workspace) -> None:
    code = ("import sys; from memory_pipeline.flows.recall.engine import RecallEngine; "
            "from memory_pipeline.resources.workspace import Workspace; from memory_pipeline.config import Settings; "
            "e = RecallEngine(Workspace(Settings.from_env().workspace)); "
            "v = e.embedder.encode_query('why did redis fail'); "
            "print(type(e.embedder).__name__, len(v), 'torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["OnnxEmbedder", "384", "False"]


def test_without_an_export_queries_use_torch(embedder: Embedder, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MEMORY_MODEL_CACHE", str(tmp_path / "empty"))
    assert query_embedder(embedder.model_name) is embedder


def test_only_the_plain_shape_is_exported(tmp_path) -> None:
    assert plain_shape(str(tmp_path)) is None  # no modules.json: any other model stays on torch
