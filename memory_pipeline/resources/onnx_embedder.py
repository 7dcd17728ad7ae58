"""The embedding model on ONNX Runtime: the default on CPU, for ingest and recall alike.

Importing torch and sentence-transformers takes 5–8 s on 2 cores and ~400 MB before any text is
embedded; onnxruntime and tokenizers take 0.3 s and ~80 MB, and encode as fast (measured on 1,550
LoCoMo texts: 13–18 s against 20 s for torch, vectors within 4e-7). A sentence-transformers model
of the plain shape (a Transformer, mean pooling, then normalization: all-MiniLM-L6-v2) has its
transformer exported once into the model cache, by a child process that loads torch and exits
(`python -m memory_pipeline.resources.onnx_embedder MODEL`), so no long-lived process pays for
torch. `embedder_for` answers with the export on CPU; a GPU (CUDA, Apple MPS), another model
shape, or a failed export keeps the torch Embedder.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

from memory_pipeline.config import Settings, child_environment
from memory_pipeline.resources.embedder import (
    Embedder,
    encode_by_length,
    get_embedder,
    resolve_model_location,
    return_freed_buffers_to_the_os,
)

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


# Half the torch Embedder's budget (sized for GPU batches): four 256-token texts at most. On 2 CPU
# cores it encodes 1,551 LoCoMo texts as fast (16.0–17.6 s against 17.8–18.2 s) and a batch's
# working memory drops from ~104 to ~40 MB.
ONNX_BATCH_CHARS = 4800
ONNX_MIN_BATCH = 4


class OnnxEmbedder:
    """Normalized mean-pooled embeddings from an exported transformer (the Embedder's interface)."""

    device = "onnx-cpu"

    def __init__(self, model_name: str, path: Path, location: str, shape: dict, threads: int = 0,
                 batch_size: int = 64) -> None:
        self.model_name, self.path, self.location, self.shape = model_name, path, location, shape
        self.threads, self.batch_size = threads, batch_size  # threads 0: onnxruntime's default (the cores)
        self._session: Any = None
        self._tokenizer: Any = None
        self._run_options: Any = None
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return self.shape["dimension"]

    def _load(self) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        return_freed_buffers_to_the_os()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(0, self.threads)
        options.enable_mem_pattern = False  # plans per input shape: every batch has its own shape
        self._session = onnxruntime.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        # the arena keeps every batch's peak for the life of the process (165 MB after 4,763 message
        # texts); shrinking it after each run gives that back at no measured cost in speed
        self._run_options = onnxruntime.RunOptions()
        self._run_options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        tokenizer = Tokenizer.from_file(str(Path(self.location) / "tokenizer.json"))
        tokenizer.enable_truncation(self.shape["max_seq_length"])
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._tokenizer = tokenizer

    def encode(self, texts: list[str]) -> list[list[float]]:
        """One unit-length vector per text, in length-sorted batches (as the torch Embedder batches)."""
        if not texts:
            return []
        with self._lock:
            if self._session is None:
                self._load()
            return encode_by_length(texts, self._encode_batch, self.batch_size, ONNX_BATCH_CHARS, ONNX_MIN_BATCH)

    def _encode_batch(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        encoded = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        hidden = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                          "token_type_ids": np.zeros_like(ids)}, self._run_options)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)).tolist()

    def encode_query(self, text: str) -> list[float]:
        return self.encode([text])[0]


EXPORT_TIMEOUT = 600.0
_ONNX_EMBEDDERS: dict[tuple[str, int], OnnxEmbedder] = {}
_ONNX_LOCK = threading.Lock()


def embedder_for(model_name: str, threads: int = 0) -> OnnxEmbedder | Embedder:
    """The process's embedder for `model_name`: ONNX Runtime on CPU (the export is made first if
    missing), the torch Embedder on a GPU, for another model shape, or when the export fails."""
    location = resolve_model_location(model_name)
    shape = plain_shape(location)
    if shape is None or not _on_cpu(Settings.from_env().embedding_device) or not _has_onnxruntime():
        return get_embedder(model_name)
    path = ensure_export(location)
    if path is None:
        return get_embedder(model_name)
    with _ONNX_LOCK:
        key = (str(path), threads)
        if key not in _ONNX_EMBEDDERS:
            _ONNX_EMBEDDERS[key] = OnnxEmbedder(model_name, path, location, shape, threads)
        return _ONNX_EMBEDDERS[key]


def ensure_export(location: str) -> Path | None:
    """The export of the model at `location`, made by a child process when missing; None when it
    cannot be made (the reason goes to stderr and the caller keeps torch)."""
    target = export_path(location)
    if target.exists():
        return target
    try:
        done = subprocess.run([sys.executable, "-m", __name__, location], capture_output=True, text=True,
                              timeout=EXPORT_TIMEOUT, env=child_environment(HF_HUB_OFFLINE="1"))
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"memory-pipeline: ONNX export of {location} failed: {exc}", file=sys.stderr)
        return None
    if done.returncode != 0 or not target.exists():
        print(f"memory-pipeline: ONNX export of {location} failed: {done.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    return target


def gpu_visible() -> bool:
    """A GPU torch would pick under `auto`, judged without importing torch: an NVIDIA or AMD device
    node on Linux, Apple silicon on macOS."""
    if sys.platform == "darwin":
        return platform.machine() == "arm64"
    return any(Path(node).exists() for node in ("/dev/nvidiactl", "/proc/driver/nvidia/version", "/dev/kfd"))


def _on_cpu(device: str) -> bool:
    wanted = device.strip().lower()
    return wanted == "cpu" or (wanted == "auto" and not gpu_visible())


def _has_onnxruntime() -> bool:
    if "onnxruntime" in sys.modules:
        return True
    from importlib.util import find_spec

    return find_spec("onnxruntime") is not None


def _export_main(location: str) -> int:
    """Load the model with torch on CPU (Embedder._load exports it) and exit."""
    Embedder(location, device="cpu").model
    return 0 if export_path(location).exists() else 1


if __name__ == "__main__":
    sys.exit(_export_main(sys.argv[1]))
