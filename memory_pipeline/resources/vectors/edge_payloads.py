"""The Edge shard's payloads kept beside it (`state/vectors.payloads.sqlite`): each point's whole payload
(text and content hash included) by its id, read with the file's own reads, not through a memory map.

Why (docs/vector-engine.md, "The shipped shard"): Edge maps its payload files, and a recall
reads the payloads of its 80 ranked candidates at random; after a few hundred queries the service mapped
every page of them (511 MiB at 1M points), counted in its RSS. Read here, the pages sit in the system's
page cache, which the kernel gives back under pressure, and the service's memory is its own. The shard
keeps only the fields its filters and payload indexes use (edge_store.SHARD_FIELDS).

Each write is one SQLite transaction (write-ahead log, `synchronous=NORMAL`: a killed process loses no
committed write). The store writes here before the shard and deletes here after it, so a point the shard
holds always has its row; a kill between the two leaves at most a row of no point, which nothing reads
by itself (reads start from the shard's ids). `complete` is set once the table holds every point of the
shard: a shard written before the table existed is read into it at its first open (`EdgeStore`). Each row
also keeps its point's keyword length, and `meta` their totals, changed in the same transaction as the
rows (BM25's average length: `keyword_totals`)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

CHUNK = 500  # ids per SELECT / DELETE (SQLite's bound parameters)
SCHEMA = ("CREATE TABLE IF NOT EXISTS payloads (id TEXT NOT NULL UNIQUE, payload BLOB NOT NULL, cites TEXT, dense BLOB, "
          "keywords REAL)",
          "CREATE INDEX IF NOT EXISTS payloads_cites ON payloads (cites) WHERE cites IS NOT NULL",
          "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
MESSAGES = "messages"  # the tier whose points carry the message they index (its session and first source id)


def table_path(shard: Path) -> Path:
    """The payload table of the shard at `shard` (`state/vectors` → `state/vectors.payloads.sqlite`)."""
    return shard.parent / f"{shard.name}.payloads.sqlite"


def encode(payload: dict[str, Any]) -> bytes:
    """A payload as the table stores it: its JSON, deflated (at 1M points 645 → 363 bytes a row on average)."""
    return zlib.compress(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 1)


def decode(stored: bytes) -> dict[str, Any]:
    return json.loads(zlib.decompress(stored))


def dense_bytes(vector: Any) -> bytes | None:
    """A dense vector as the table keeps it (float16: 768 bytes at 384 dimensions), None for none."""
    import numpy as np  # here, not at import: the recall service's start and the CLI do not need it

    return None if vector is None else np.asarray(vector, dtype=np.float16).tobytes()


def cite_key(session_id: str, message_id: str) -> str:
    return f"{session_id}\x1f{message_id}"


def cites(payload: dict[str, Any]) -> str | None:
    """The message a point of the messages' tier indexes, as `cite_key` (None for any other point): what an
    observation's source_message_ids name, so recall finds the cited messages' points by it."""
    sources = payload.get("source_message_ids") or []
    if payload.get("tier") != MESSAGES or not sources:
        return None
    return cite_key(str(payload.get("session_id", "")), str(sources[0]))


def _chunks(values: list[str]) -> Iterator[tuple[list[str], str]]:
    """`values` CHUNK at a time, each with its SQL placeholders ("?,?,…")."""
    for start in range(0, len(values), CHUNK):
        chunk = values[start:start + CHUNK]
        yield chunk, ",".join("?" * len(chunk))


class PayloadTable:
    """One SQLite file of id → payload (deflated JSON), opened on first use and closed with the shard. A table
    with row ids and an index on the point id, not one keyed by the id: rows of ~0.4-1 KB inserted in the
    random order of their ids split the pages of a table keyed by them, which held the year's 456k payloads
    in 978 MB."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            for statement in SCHEMA:
                db.execute(statement)
            columns = {row[1] for row in db.execute("PRAGMA table_info(payloads)")}
            if "dense" not in columns:  # a table of before the vectors' copies: filled at the open
                db.execute("ALTER TABLE payloads ADD COLUMN dense BLOB")
            if "keywords" not in columns:  # or before the keyword lengths: filled at the open (`keywords`)
                db.execute("ALTER TABLE payloads ADD COLUMN keywords REAL")
            self._db = db
        return self._db

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            db = self._connection()
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            db, self._db = self._db, None
            if db is not None:
                with contextlib.suppress(sqlite3.Error):
                    db.close()

    def reset(self) -> None:
        """Drop the table's file (a shard created anew starts an empty one)."""
        self.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def move_to(self, path: Path) -> None:
        """Rename the table's file (and its log's) to `path` (a staged shard moved into place)."""
        self.close()
        for suffix in ("", "-wal", "-shm"):
            source = Path(f"{self.path}{suffix}")
            if source.exists():
                source.replace(Path(f"{path}{suffix}"))

    def complete(self, key: str = "complete") -> bool:
        """Whether the table holds every point of the shard (`complete`), or every dense vector's copy
        (`vectors`: a table made before it kept them has its payloads but not their vectors), or every
        point's keyword length (`keywords`)."""
        if not self.path.exists():
            return False
        with self._lock:
            row = self._connection().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row is not None and row[0] == "1"

    def mark_complete(self, keys: tuple[str, ...] = ("complete", "vectors", "keywords")) -> None:
        with self._transaction() as db:
            db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", [(key,) for key in keys])

    def put_vectors(self, rows: Iterable[tuple[str, Any]]) -> None:
        """Set the dense vector's copy of these (id, vector) rows, in one transaction."""
        encoded = [(dense_bytes(dense), point_id) for point_id, dense in rows if dense is not None]
        if encoded:
            with self._transaction() as db:
                db.executemany("UPDATE payloads SET dense = ? WHERE id = ?", encoded)

    def put(self, rows: Iterable[tuple[str, dict[str, Any], Any, float | None]]) -> None:
        """Write these (id, payload, dense vector or None, keyword length or None: no keyword document) rows,
        replacing any of the same id, in one transaction; the keyword totals follow (a row replaced leaves
        them with its old length, so a point written again, or by two writers, counts once)."""
        latest = {point_id: (payload, dense, keywords) for point_id, payload, dense, keywords in rows}
        encoded = [(point_id, encode(payload), cites(payload), dense_bytes(dense), keywords)
                   for point_id, (payload, dense, keywords) in latest.items()]
        if encoded:
            with self._transaction() as db:
                old = [length for (length,) in self._rows(db, "keywords", "id", list(latest)) if length is not None]
                new = [length for *_, length in encoded if length is not None]
                db.executemany("INSERT OR REPLACE INTO payloads (id, payload, cites, dense, keywords) "
                               "VALUES (?, ?, ?, ?, ?)", encoded)
                self._add_keywords(db, len(new) - len(old), sum(new) - sum(old))

    def _add_keywords(self, db: sqlite3.Connection, documents: int, length: float) -> None:
        if documents or length:
            now_documents, now_length = self._keywords(db)
            db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                           [("keyword_documents", str(max(0, now_documents + documents))),
                            ("keyword_length", repr(max(0.0, now_length + length)))])

    @staticmethod
    def _keywords(db: sqlite3.Connection) -> tuple[int, float]:
        found = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('keyword_documents', 'keyword_length')"))
        return int(found.get("keyword_documents", 0)), float(found.get("keyword_length", 0.0))

    def keyword_totals(self) -> tuple[int, float]:
        """The keyword documents among the rows and their total length (BM25's average is their ratio)."""
        with self._lock:
            return self._keywords(self._connection())

    def set_keywords(self, rows: Iterable[tuple[str, float | None]]) -> None:
        """Set the keyword length of these (id, length or None) rows (a re-key, or a table of before the
        lengths), in one transaction; `recount_keywords` then counts the totals afresh."""
        with self._transaction() as db:
            db.executemany("UPDATE payloads SET keywords = ? WHERE id = ?", ((length, i) for i, length in rows))

    def recount_keywords(self) -> None:
        """The keyword totals counted afresh from every row."""
        with self._transaction() as db:
            documents, length = db.execute("SELECT count(keywords), total(keywords) FROM payloads").fetchone()
            db.execute("DELETE FROM meta WHERE key IN ('keyword_documents', 'keyword_length')")
            self._add_keywords(db, int(documents), float(length))

    def each(self, batch: int = 2048) -> Iterator[list[tuple[str, dict[str, Any]]]]:
        """Every row's (id, payload), `batch` rows a page, in the table's own order."""
        last = 0
        while True:
            with self._lock:
                page = self._connection().execute("SELECT rowid, id, payload FROM payloads WHERE rowid > ? "
                                                  "ORDER BY rowid LIMIT ?", (last, batch)).fetchall()
            if not page:
                return
            last = page[-1][0]
            yield [(point_id, decode(payload)) for _, point_id, payload in page]

    def _rows(self, db: sqlite3.Connection, columns: str, key: str, values: list[str]) -> Iterator[tuple]:
        """`columns` of the rows whose `key` is among `values`, CHUNK values a SELECT."""
        for chunk, marks in _chunks(values):
            yield from db.execute(f"SELECT {columns} FROM payloads WHERE {key} IN ({marks})", chunk).fetchall()

    def get(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """id → payload of the rows among `ids` (missing ids are left out)."""
        with self._lock:
            return {point_id: decode(payload)
                    for point_id, payload in self._rows(self._connection(), "id, payload", "id", ids)}

    def vectors(self, ids: list[str]) -> dict[str, Any]:
        """id → the dense vector (a float32 array, from its float16 copy) of the rows among `ids` that have one."""
        import numpy as np

        with self._lock:
            return {point_id: np.frombuffer(dense, dtype=np.float16).astype(np.float32)
                    for point_id, dense in self._rows(self._connection(), "id, dense", "id", ids) if dense is not None}

    def citing(self, keys: list[str]) -> dict[str, str]:
        """`cite_key` → the id of the messages' point that indexes it, for the keys among `keys` (the last
        written where two do)."""
        with self._lock:
            return {key: point_id for point_id, key in self._rows(self._connection(), "id, cites", "cites", keys)}

    def merge(self, ids: list[str], fields: dict[str, Any]) -> None:
        """Set `fields` in the payloads of these ids (as the shard's set_payload does), in one transaction."""
        with self._transaction() as db:
            merged = [(point_id, decode(payload) | fields)
                      for point_id, payload in self._rows(db, "id, payload", "id", ids)]
            db.executemany("UPDATE payloads SET payload = ?, cites = ? WHERE id = ?",
                           [(encode(payload), cites(payload), point_id) for point_id, payload in merged])

    def delete(self, ids: list[str]) -> None:
        with self._transaction() as db:
            old = [length for (length,) in self._rows(db, "keywords", "id", list(dict.fromkeys(ids)))
                   if length is not None]
            for chunk, marks in _chunks(ids):
                db.execute(f"DELETE FROM payloads WHERE id IN ({marks})", chunk)
            self._add_keywords(db, -len(old), -sum(old))

    def damage(self) -> str | None:
        """What SQLite finds wrong with the file (`PRAGMA quick_check`: every page read), or None."""
        try:
            with self._lock:
                found = [str(row[0]) for row in self._connection().execute("PRAGMA quick_check").fetchall()]
        except sqlite3.DatabaseError as exc:
            return f"{self.path.name}: {exc}"
        return None if found == ["ok"] else f"{self.path.name}: {'; '.join(found[:3])}"

    def count(self) -> int:
        with self._lock:
            return int(self._connection().execute("SELECT count(*) FROM payloads").fetchone()[0])
