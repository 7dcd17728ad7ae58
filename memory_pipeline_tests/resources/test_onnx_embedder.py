"""The shipped model exported to ONNX gives the torch model's vectors; ingest and the recall engine
use it on CPU without importing torch; a missing export is made by a child process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.resources.embedding.embedder import Embedder, resolve_model_location
from memory_pipeline.resources.embedding import onnx_embedder
from memory_pipeline.resources.embedding.onnx_embedder import OnnxEmbedder, embedder_for, export_onnx, export_path, plain_shape

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
    assert export_onnx(embedder.model, location, tmp_path / "models") is not None
    return location


def test_the_export_gives_the_torch_vectors(embedder: Embedder, exported: str) -> None:
    onnx = embedder_for(embedder.model_name, settings=Settings.from_env())
    assert isinstance(onnx, OnnxEmbedder) and onnx.dimension == embedder.dimension == 384
    for ours, theirs in zip(onnx.encode(TEXTS), embedder.encode(TEXTS), strict=True):
        assert max(abs(a - b) for a, b in zip(ours, theirs, strict=True)) < 1e-4
    assert onnx.encode_query(TEXTS[0]) == onnx.encode([TEXTS[0]])[0]


def test_load_starts_the_callers_work_after_the_imports_and_before_the_session(embedder: Embedder, exported: str) -> None:
    shared = embedder_for(embedder.model_name, settings=Settings.from_env())
    fresh = OnnxEmbedder(shared.model_name, shared.path, shared.location, shared.shape)
    seen: list[tuple[bool, bool]] = []
    fresh.load(starting=lambda: seen.append(("onnxruntime" in sys.modules, fresh._session is None)))
    assert seen == [(True, True)] and fresh._session is not None
    session = fresh._session
    fresh.load(starting=lambda: seen.append(("loaded", fresh._session is session)))
    assert seen[1:] == [("loaded", True)]  # loaded once; the caller's work still starts
    assert fresh.encode_query(TEXTS[0]) == shared.encode_query(TEXTS[0])


def test_the_recall_engine_embeds_queries_without_torch(embedder: Embedder, exported: str, workspace) -> None:
    code = ("import sys; from memory_pipeline.flows.recall.engine import RecallEngine; "
            "from memory_pipeline.resources.workspace import Workspace; from memory_pipeline.config import Settings; "
            "e = RecallEngine(Workspace(Settings.from_env().workspace), Settings.from_env()); "
            "v = e.embedder.encode_query('why did redis fail'); "
            "print(type(e.embedder).__name__, len(v), 'torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["OnnxEmbedder", "384", "False"]


def test_a_missing_export_is_made_by_a_child_process(embedder: Embedder, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MEMORY_MODEL_CACHE", str(tmp_path / "empty"))
    location = resolve_model_location(embedder.model_name)
    assert not export_path(location, tmp_path / "empty").exists()
    made = embedder_for(embedder.model_name, settings=Settings.from_env())
    assert isinstance(made, OnnxEmbedder) and made.path == export_path(location, tmp_path / "empty") and made.path.is_file()
    assert max(abs(a - b) for a, b in zip(made.encode_query(TEXTS[1]), embedder.encode_query(TEXTS[1]), strict=True)) < 1e-4


def test_a_gpu_or_a_set_device_keeps_torch(embedder: Embedder, exported: str, monkeypatch) -> None:
    monkeypatch.setattr(onnx_embedder, "gpu_visible", lambda: True)
    assert isinstance(embedder_for(embedder.model_name, settings=Settings.from_env()), Embedder)  # auto with a GPU: torch picks it
    monkeypatch.setenv("MEMORY_EMBEDDING_DEVICE", "cpu")
    assert isinstance(embedder_for(embedder.model_name, settings=Settings.from_env()), OnnxEmbedder)
    monkeypatch.setenv("MEMORY_EMBEDDING_DEVICE", "cuda:1")
    assert isinstance(embedder_for(embedder.model_name, settings=Settings.from_env()), Embedder)


def test_a_failed_export_keeps_torch(embedder: Embedder, tmp_path, monkeypatch, capsys) -> None:
    cache = tmp_path / "not-a-folder"
    cache.write_text("a file where the cache folder should be")
    monkeypatch.setenv("MEMORY_MODEL_CACHE", str(cache))
    assert isinstance(embedder_for(embedder.model_name, settings=Settings.from_env()), Embedder)
    assert "ONNX export" in capsys.readouterr().err


def test_ingest_embeds_without_torch(exported: str, workspace) -> None:
    code = ("import sys; from memory_pipeline.defs.resources import EmbedderResource; "
            "from memory_pipeline.config import Settings; e = EmbedderResource(settings=Settings.from_env()).get(); v = e.encode(['a', 'b' * 2000]); "
            "print(type(e).__name__, len(v), len(v[1]), 'torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["OnnxEmbedder", "2", "384", "False"]


def test_only_the_plain_shape_is_exported(tmp_path) -> None:
    assert plain_shape(str(tmp_path)) is None  # no modules.json: any other model stays on torch


def test_a_model_saved_by_the_installed_sentence_transformers_runs_on_onnx(embedder: Embedder, tmp_path,
                                                                           monkeypatch) -> None:
    """sentence-transformers 6 saves another layout (module paths under `base`, `pooling_mode`, the
    length in tokenizer_config.json): read as the same shape, exported, and the same vectors as torch
    (the fault suite's one-layer model is saved so; it ran every CLI process on torch before)."""
    saved = tmp_path / "saved"
    embedder.model.save(str(saved))
    shipped = plain_shape(resolve_model_location(embedder.model_name))
    assert shipped == plain_shape(str(saved)) == {"max_seq_length": 256, "dimension": 384}
    assert export_onnx(embedder.model, str(saved), tmp_path / "models") is not None
    monkeypatch.setenv("MEMORY_MODEL_CACHE", str(tmp_path / "models"))
    onnx = embedder_for(str(saved), settings=Settings.from_env())
    assert isinstance(onnx, OnnxEmbedder)
    for ours, theirs in zip(onnx.encode(TEXTS), embedder.encode(TEXTS), strict=True):
        assert max(abs(a - b) for a, b in zip(ours, theirs, strict=True)) < 1e-4


def _tiny_mpnet(folder) -> str:
    """A one-layer MPNet-shaped sentence-transformer with random weights: no segment ids (MPNet has no
    token_type_ids) and "<pad>" at id 1, as all-mpnet-base-v2 has."""
    from sentence_transformers import SentenceTransformer, models
    from tokenizers import Tokenizer, models as tokenizer_models, pre_tokenizers
    from transformers import MPNetConfig, MPNetModel, PreTrainedTokenizerFast

    words = ["<s>", "<pad>", "</s>", "[UNK]", *sorted({w.lower() for t in TEXTS for w in t.replace(".", " ").split()})]
    tokenizer = Tokenizer(tokenizer_models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    hf = folder / "hf"
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                            unk_token="[UNK]", model_max_length=64).save_pretrained(str(hf))
    config = MPNetConfig(vocab_size=len(words), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=80, pad_token_id=1)
    MPNetModel(config).save_pretrained(str(hf))
    transformer = models.Transformer(str(hf), max_seq_length=64)
    model = SentenceTransformer(modules=[transformer, models.Pooling(32, "mean"), models.Normalize()], device="cpu")
    model.save(str(folder / "saved"))
    return str(folder / "saved")


def test_a_model_without_segment_ids_and_another_padding_token_runs_on_onnx(tmp_path, monkeypatch) -> None:
    """MPNet (all-mpnet-base-v2) takes no token_type_ids and pads with "<pad>" (id 1): the export takes the
    inputs the model has and the embedder feeds what the export declares; a batch of texts of unequal length
    (padded, and masked) gives the vectors torch gives each text alone."""
    from sentence_transformers import SentenceTransformer

    saved = _tiny_mpnet(tmp_path)
    assert plain_shape(saved) == {"max_seq_length": 64, "dimension": 32}
    torch_model = SentenceTransformer(saved, device="cpu")
    assert export_onnx(torch_model, saved, tmp_path / "models") is not None
    monkeypatch.setenv("MEMORY_MODEL_CACHE", str(tmp_path / "models"))
    onnx = embedder_for(saved, settings=Settings.from_env())
    assert isinstance(onnx, OnnxEmbedder)
    texts = TEXTS[:2]
    alone = [torch_model.encode([t], normalize_embeddings=True)[0] for t in texts]
    for ours, theirs in zip(onnx.encode(texts), alone, strict=True):
        assert max(abs(a - float(b)) for a, b in zip(ours, theirs, strict=True)) < 1e-4
