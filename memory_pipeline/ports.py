"""The seams between stages, flows and resources, as small protocols.

A flow that takes a store, an embedder or an LLM names one of these, so a reader (and a type
checker) knows what answers the call; resources/ holds the implementations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, overload

if TYPE_CHECKING:
    from memory_pipeline.models import LLMUsage, Proposal, StorePoint

T = TypeVar("T")


class Completer(Protocol):
    """One LLM call: cached, retried and validated (resources.llm.client.LLMClient)."""

    @overload
    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int = 4096,
                 validate: Callable[[str], T]) -> tuple[T, LLMUsage]: ...  # the validated value

    @overload
    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int = 4096,
                 validate: None = None) -> tuple[str, LLMUsage]: ...  # the answer's text


class Embedder(Protocol):
    """Sentence embeddings (resources.embedder.Embedder)."""

    model_name: str

    @property
    def dimension(self) -> int: ...

    def encode(self, texts: list[str]) -> list[list[float]]: ...

    def encode_query(self, text: str) -> list[float]: ...

    def load(self, starting: Callable[[], None] = ...) -> None: ...


class VectorIndex(Protocol):
    """The vector + keyword store of one day's points (resources.edge_store.EdgeStore, or a server's
    resources.vector_store.VectorStore)."""

    def where(self) -> str: ...  # the shard's folder or the server's URL: which store it is

    def session(self) -> AbstractContextManager[Any]: ...

    def holding(self) -> AbstractContextManager[Any]: ...  # an index step's: held across its sessions

    def ensure_collection(self) -> None: ...

    def upsert(self, points: list[StorePoint]) -> None: ...

    def delete(self, ids: list[str]) -> None: ...

    def set_payload(self, ids: list[str], payload: dict[str, Any]) -> None: ...

    def missing_or_changed(self, ids_and_hashes: dict[str, str]) -> set[str]: ...

    def payload_fields(self, ids: list[str], fields: list[str]) -> dict[str, dict[str, Any]]: ...

    def count(self, filter: dict[str, Any] | None = None) -> int: ...

    def scroll_all(self, with_vectors: bool = False, payload_filter: dict[str, Any] | None = None,
                   fields: list[str] | None = None) -> Iterator[StorePoint]: ...

    def retrieve(self, ids: list[str], with_vectors: bool = False) -> list[StorePoint]: ...

    def near(self, vector: list[float], limit: int, score_threshold: float,
             payload_filter: dict[str, Any] | None = None) -> list[StorePoint]: ...  # by the dense index

    def delete_vectors(self, ids: list[str]) -> None: ...

    def optimize(self) -> bool: ...

    def records(self, with_vectors: bool | list[str] = False, payload_filter: dict[str, Any] | None = None, *,
                fields: list[str] | None = None) -> Iterator[Any]: ...  # raw: id, payload, vector


class ShardedIndex(VectorIndex, Protocol):
    """The workspace's store: a server collection, or the embedded Edge shard (one for every day)."""

    def for_day(self, day: str) -> ShardedIndex: ...  # the store of the day's points: one of its own

    def shards(self) -> list[Any]: ...  # the one Edge shard, or the one server collection


class CandidateSource(Protocol):
    """Recall's candidates: the Edge shard held open (resources.edge_recall.ShardRecall) or a
    server's points in memory (resources.recall_index.RecallIndex)."""

    @property
    def generation(self) -> str: ...

    def open(self) -> None: ...  # the recall service's start: hold what each request needs

    def release(self) -> bool: ...  # a writer asked: let go until the next request

    def points_held(self) -> int | None: ...  # without waiting for a writer; None when not known now

    def candidates(self, query: Any, filters: Any) -> Any: ...

    def payloads_of(self, ids: Any) -> dict[str, dict]: ...

    def cited_messages(self, payloads: Any) -> dict[tuple[str, str], str]: ...

    def points(self, ids: list[str] | None, session_id: str | None, limit: int) -> list[dict]: ...


class ObserveLock(Protocol):
    """The Observer's per-event lock (Redis SET NX with takeover of dead holders)."""

    def claim_observe_lock(self, dedupe_key: str, version: str) -> bool: ...

    def release_observe_lock(self, dedupe_key: str, value: str | None = None) -> bool: ...


class HotList(Protocol):
    """The day's hot list of observations in Redis."""

    def observations(self, day: str) -> list[dict]: ...

    def push_observation(self, day: str, entry: dict, ttl_days: int = 30) -> bool: ...

    def replace_observation(self, day: str, index: int, entry: dict) -> None: ...

    def mark_reflect_triggered(self, day: str) -> bool: ...


class ObserveStore(ObserveLock, HotList, Protocol):
    """What the Observer's flow needs of Redis: the lock and the hot list."""


class ProposalStore(Protocol):
    """Staged proposals and their review state (resources.proposals.ProposalStore)."""

    def get(self, pid: str) -> Proposal | None: ...

    def save(self, proposal: Proposal) -> None: ...

    def all(self) -> dict[str, Proposal]: ...

    def pending(self) -> list[Proposal]: ...

    def transition(self, pid: str, expected: str, status: str, **fields: object) -> bool: ...

    def update(self, pid: str, **fields: object) -> None: ...
