"""The ONNX export of a plain sentence-transformers model (Transformer → mean pooling → Normalize):
made once into the model cache from a model torch has loaded, so later processes embed on ONNX
Runtime without importing torch (resources/embedding/onnx_embedder.py)."""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import Any

PLAIN_KINDS = ["Transformer", "Pooling", "Normalize"]  # modules.json's types end in these, in this order
LEGACY_POOLING = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls", "pooling_mode_max_tokens": "max",
                  "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
                  "pooling_mode_weightedmean_tokens": "weightedmean", "pooling_mode_lasttoken": "lasttoken"}
INPUTS = ["input_ids", "attention_mask", "token_type_ids"]  # a model without segments (MPNet) takes the first two


def cache_folder(model_cache: Path | None = None) -> Path:
    """MEMORY_MODEL_CACHE (`Settings.model_cache`, handed down), else ~/.cache/memory-pipeline/models."""
    return Path(model_cache or Path.home() / ".cache" / "memory-pipeline" / "models").expanduser()


def plain_shape(location: str) -> dict | None:
    """The model folder's max_seq_length and dimension when it is Transformer → mean pooling →
    Normalize, in either sentence-transformers save format (before 6: `sentence_transformers.models.*`,
    pooling_mode_* flags, the length in sentence_bert_config.json; 6 and later: the modules under
    `sentence_transformers.base`, `pooling_mode`, the length in tokenizer_config.json)."""
    folder = Path(location)
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    kinds = [str(m.get("type", "")) for m in modules]
    plain = all(k.startswith("sentence_transformers.") for k in kinds) and [k.rpartition(".")[2] for k in kinds] == PLAIN_KINDS
    if not plain or pooling_mode(pooling) != "mean" or not (folder / "tokenizer.json").exists():
        return None
    length = config.get("max_seq_length") or tokenizer_max_length(folder)
    dimension = pooling.get("embedding_dimension") or pooling.get("word_embedding_dimension")
    if not length or not dimension:
        return None
    return {"max_seq_length": int(length), "dimension": int(dimension)}


def pooling_mode(pooling: dict) -> str | None:
    """"mean", "cls", … from a pooling config: `pooling_mode` (6 and later) or the one true
    pooling_mode_*_tokens flag (before); None for a mix."""
    if "pooling_mode" in pooling:
        mode = pooling["pooling_mode"]
        return mode if isinstance(mode, str) else None
    flags = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v]
    return LEGACY_POOLING.get(flags[0]) if len(flags) == 1 else None


def tokenizer_max_length(folder: Path) -> int | None:
    """The tokenizer's model_max_length (where sentence-transformers 6 keeps max_seq_length), capped
    at the model's positions (an unset length is a huge placeholder)."""
    try:
        tokenizer = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        model = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    limits = [int(v) for v in (tokenizer.get("model_max_length"), model.get("max_position_embeddings"))
              if isinstance(v, (int, float))]
    return min(limits) if limits else None


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
    inputs = INPUTS if getattr(bert.config, "type_vocab_size", 0) else INPUTS[:2]

    class Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, *tensors):
            return self.bert(**dict(zip(inputs, tensors, strict=True))).last_hidden_state

    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    ids = torch.ones(1, 8, dtype=torch.long)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on branches an encoder always takes one way
        try:
            torch.onnx.export(Hidden().eval(), (ids, torch.ones_like(ids), torch.zeros_like(ids))[:len(inputs)],
                              str(partial), input_names=inputs, output_names=["last_hidden_state"], opset_version=17,
                              dynamo=False,
                              dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*inputs, "last_hidden_state"]})
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
    return target
