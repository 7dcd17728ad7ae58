"""The embedding model on ONNX Runtime: the default on CPU, for ingest and recall alike.

Importing torch and sentence-transformers takes 5–8 s on 2 cores and ~400 MB before any text is
embedded; onnxruntime and tokenizers take 0.3 s and ~80 MB, and encode as fast (measured on 1,550
LoCoMo texts: 13–18 s against 20 s for torch, vectors within 4e-7). A sentence-transformers model
of the plain shape (a Transformer, mean pooling, then normalization: all-MiniLM-L6-v2) has its
transformer exported once into the model cache, by a child process that loads torch and exits
(`python -m memory_pipeline.resources.embedding.onnx_embedder MODEL`), so no long-lived process pays for
torch. `embedder_for` answers with the export on CPU; a GPU (CUDA, Apple MPS), another model
shape, or a failed export keeps the torch Embedder.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import threading
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from memory_pipeline.config import Settings, child_environment
from memory_pipeline.resources.embedding.embedder import (
    Embedder,
    encode_by_length,
    get_embedder,
    resolve_model_location,
    return_freed_buffers_to_the_os,
)
from memory_pipeline.resources.embedding.onnx_export import cache_folder, export_onnx, export_path, plain_shape

__all__ = ["OnnxEmbedder", "embedder_for", "ensure_export", "export_onnx", "export_path", "plain_shape"]

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
        self._segments = True
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return self.shape["dimension"]

    def load(self, starting: Callable[[], None] = lambda: None) -> None:
        """Load the model now (once). `starting` is called just before ONNX Runtime reads and prepares the
        model, which it does without Python's lock (~0.27 s of the ~0.3 s load): work started there runs
        beside it. Work that holds the lock (the Edge shard's open) started earlier would hold up this
        load's imports instead."""
        with self._lock:
            if self._session is None:
                self._load(starting)
            else:
                starting()

    def _load(self, starting: Callable[[], None] = lambda: None) -> None:
        import numpy  # noqa: F401  (the first batch's import, done before `starting`)
        import onnxruntime
        from tokenizers import Tokenizer

        return_freed_buffers_to_the_os()
        tokenizer = Tokenizer.from_file(str(Path(self.location) / "tokenizer.json"))
        tokenizer.enable_truncation(self.shape["max_seq_length"])
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # masked out: any id serves (MPNet's "<pad>" is 1)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(0, self.threads)
        options.enable_mem_pattern = False  # plans per input shape: every batch has its own shape
        # the arena keeps every batch's peak for the life of the process (165 MB after 4,763 message
        # texts); shrinking it after each run gives that back at no measured cost in speed
        run_options = onnxruntime.RunOptions()
        run_options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        starting()
        self._session = onnxruntime.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        self._tokenizer, self._run_options = tokenizer, run_options
        self._segments = "token_type_ids" in {i.name for i in self._session.get_inputs()}

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
        feed = {"input_ids": ids, "attention_mask": mask} | ({"token_type_ids": np.zeros_like(ids)} if self._segments else {})
        hidden = self._session.run(None, feed, self._run_options)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)).tolist()

    def encode_query(self, text: str) -> list[float]:
        return self.encode([text])[0]


EXPORT_TIMEOUT = 600.0
_ONNX_EMBEDDERS: dict[tuple[str, int], OnnxEmbedder] = {}
_ONNX_LOCK = threading.Lock()


def embedder_for(model_name: str, settings: Settings, threads: int = 0) -> OnnxEmbedder | Embedder:
    """The process's embedder for `model_name`: ONNX Runtime on CPU (the export is made first if
    missing), the torch Embedder on a GPU, for another model shape, or when the export fails.
    `settings` (the caller's) give the device and the model cache."""
    device, cache = settings.embedding_device, settings.model_cache
    location = resolve_model_location(model_name)
    shape = plain_shape(location)
    if shape is None or not _on_cpu(device) or not _has_onnxruntime():
        return get_embedder(model_name, device, cache)
    path = ensure_export(location, cache)
    if path is None:
        return get_embedder(model_name, device, cache)
    with _ONNX_LOCK:
        key = (str(path), threads)
        if key not in _ONNX_EMBEDDERS:
            _ONNX_EMBEDDERS[key] = OnnxEmbedder(model_name, path, location, shape, threads)
        return _ONNX_EMBEDDERS[key]


def ensure_export(location: str, model_cache: Path | None = None) -> Path | None:
    """The export of the model at `location`, made by a child process when missing; None when it
    cannot be made (the reason goes to stderr and the caller keeps torch)."""
    target = export_path(location, model_cache)
    if target.exists():
        return target
    try:
        done = subprocess.run([sys.executable, "-m", __name__, location, str(cache_folder(model_cache))], capture_output=True, text=True,
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

    return find_spec("onnxruntime") is not None


def _export_main(location: str, model_cache: str) -> int:
    """Load the model with torch on CPU (Embedder._load exports it into `model_cache`) and exit."""
    _ = Embedder(location, device="cpu", model_cache=Path(model_cache)).model  # loading it exports it
    return 0 if export_path(location, Path(model_cache)).exists() else 1


if __name__ == "__main__":
    sys.exit(_export_main(sys.argv[1], sys.argv[2]))
