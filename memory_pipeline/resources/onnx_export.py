"""The ONNX export of a plain sentence-transformers model (Transformer → mean pooling → Normalize):
made once into the model cache from a model torch has loaded, so later processes embed on ONNX
Runtime without importing torch (resources/onnx_embedder.py)."""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import Any

PLAIN_MODULES = ["sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
                 "sentence_transformers.models.Normalize"]
INPUTS = ["input_ids", "attention_mask", "token_type_ids"]


def cache_folder(model_cache: Path | None = None) -> Path:
    """MEMORY_MODEL_CACHE (`Settings.model_cache`, handed down), else ~/.cache/memory-pipeline/models."""
    return Path(model_cache or Path.home() / ".cache" / "memory-pipeline" / "models").expanduser()


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


def export_path(location: str, model_cache: Path | None = None) -> Path:
    weights = Path(location) / "model.safetensors"
    stamp = f"{Path(location).resolve()}:{weights.stat().st_size if weights.exists() else 0}"
    return cache_folder(model_cache) / f"{Path(location).name}-{hashlib.sha256(stamp.encode()).hexdigest()[:12]}.onnx"


def export_onnx(model: Any, location: str, model_cache: Path | None = None) -> Path | None:
    """Export a loaded plain SentenceTransformer's transformer once (atomic); None when the shape
    is not plain or `onnx` is not installed."""
    target = export_path(location, model_cache)
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
