"""The embedding model on ONNX Runtime, for queries: the recall service starts without torch.

importing torch and sentence-transformers takes 5–8 s on 2 cores; onnxruntime and tokenizers take
0.3 s. When a sentence-transformers model of the plain shape (a Transformer, mean pooling, then
normalization: all-MiniLM-L6-v2) first loads in a process that has `onnx`, its transformer is
exported once into the model cache; later, `query_embedder` answers from that file with the same
vectors (max difference ~2e-7 on MiniLM). Without the export or onnxruntime, the torch Embedder.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

from memory_pipeline.config import Settings
from memory_pipeline.resources.embedder import Embedder, get_embedder, resolve_model_location

PLAIN_MODULES = ["sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
                 "sentence_transformers.models.Normalize"]
INPUTS = ["input_ids", "attention_mask", "token_type_ids"]


def cache_folder(settings: Settings | None = None) -> Path:
    settings = settings or Settings.from_env()
    return Path(settings.model_cache or Path.home() / ".cache" / "memory-pipeline" / "models").expanduser()


def plain_shape(location: str) -> dict | None:
    """The model folder's max_seq_length and pooling when it is Transformer → mean pooling → Normalize."""
    folder = Path(location)
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    mean_only = pooling.get("pooling_mode_mean_tokens") and not any(
        v for k, v in pooling.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens")
    if [m.get("type") for m in modules] != PLAIN_MODULES or not mean_only or not (folder / "tokenizer.json").exists():
        return None
    return {"max_seq_length": int(config.get("max_seq_length", 256)),
            "dimension": int(pooling["word_embedding_dimension"])}


def export_path(location: str, settings: Settings | None = None) -> Path:
    weights = Path(location) / "model.safetensors"
    stamp = f"{Path(location).resolve()}:{weights.stat().st_size if weights.exists() else 0}"
    return cache_folder(settings) / f"{Path(location).name}-{hashlib.sha256(stamp.encode()).hexdigest()[:12]}.onnx"


def export_onnx(model: Any, location: str) -> Path | None:
    """Export a loaded plain SentenceTransformer's transformer once (atomic); None when the shape
    is not plain or `onnx` is not installed."""
    target = export_path(location)
    if target.exists() or plain_shape(location) is None:
        return target if target.exists() else None
    try:
        import onnx  # noqa: F401  (torch's exporter needs it)
        import torch
    except ImportError:
        return None
    bert = model[0].auto_model
    if bert.device.type != "cpu":  # exported from the CPU copy only (a GPU process exports nothing)
        return None

    class Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    ids = torch.ones(1, 8, dtype=torch.long)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on branches an encoder always takes one way
        try:
            torch.onnx.export(Hidden().eval(), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(partial),
                              input_names=INPUTS, output_names=["last_hidden_state"], opset_version=17,
                              dynamo=False,
                              dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*INPUTS, "last_hidden_state"]})
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
    return target


class OnnxEmbedder:
    """Normalized mean-pooled embeddings from an exported transformer (the Embedder's interface)."""

    device = "onnx-cpu"

    def __init__(self, model_name: str, path: Path, location: str, shape: dict, threads: int = 1) -> None:
        self.model_name, self.path, self.location, self.shape, self.threads = model_name, path, location, shape, threads
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return self.shape["dimension"]

    def _load(self) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, self.threads)
        self._session = onnxruntime.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(Path(self.location) / "tokenizer.json"))
        tokenizer.enable_truncation(self.shape["max_seq_length"])
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._tokenizer = tokenizer

    def encode(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        if not texts:
            return []
        with self._lock:
            if self._session is None:
                self._load()
            encoded = self._tokenizer.encode_batch(list(texts))
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            hidden = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                              "token_type_ids": np.zeros_like(ids)})[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)).tolist()

    def encode_query(self, text: str) -> list[float]:
        return self.encode([text])[0]


def query_embedder(model_name: str, threads: int = 1) -> OnnxEmbedder | Embedder:
    """The ONNX embedder when the model's export exists and onnxruntime is installed, else torch's."""
    location = resolve_model_location(model_name)
    shape = plain_shape(location)
    if shape is not None and Settings.from_env().embedding_device in ("auto", "cpu"):
        path = export_path(location)
        if path.exists() and _has_onnxruntime():
            return OnnxEmbedder(model_name, path, location, shape, threads)
    return get_embedder(model_name)


def _has_onnxruntime() -> bool:
    if "onnxruntime" in sys.modules:
        return True
    from importlib.util import find_spec

    return find_spec("onnxruntime") is not None
