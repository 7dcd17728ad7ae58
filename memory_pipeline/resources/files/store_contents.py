"""What a workspace's stores hold, decoded: the values a reader of each store would see.

`contents(path)` yields `(where, value)` for one file: a JSON Lines file line by line (decoded),
a JSON file whole, a text file line by line, a SQLite file (Qdrant's local storage, Dagster's
runs.db and event logs) row by row and column by column, a Redis append-only file command by
command, and a Qdrant Edge shard (a folder) point by point, through the engine. Values are decoded
the way their store wrote them: JSON text is parsed, zlib blobs
(Dagster's snapshots) inflated, pickles (Qdrant's points, and their base64 ids) read by an
unpickler that builds plain stand-ins and never imports a class, so a file cannot run code.
A text store (`.md`, `.jsonl`, `.log`, …) is read as text whatever it holds: one NUL byte from a
transcript once made a daily log "binary", and its secrets were neither found nor scrubbed. Any other
binary file yields nothing (`kind_of` says "binary", and the check lists it as not read): its bytes are
not text anyone reads, and reading them as text is what made `redact-check` report hundreds of
"secrets" in a clean workspace. A file that cannot be read as its kind raises `Unreadable` with the reason.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickle
import sqlite3
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memory_pipeline.resources.vectors.edge_shard import scrolled, shard_lock

SQLITE_MAGIC = b"SQLite format 3\0"
MAX_TEXT_CHARS = 200_000
JSON_SUFFIXES = {".json", ".jsonl"}
TEXT_SUFFIXES = {".md", ".txt", ".log", ".jsonl", ".json", ".yaml", ".yml"}  # the workspace's text stores
MAX_NUL_SHARE = 0.01  # a text file may hold a stray NUL; a binary file has them everywhere


class Unreadable(Exception):
    """A store that could not be decoded (the message says why)."""


class _Stub:
    """Stands in for any class a pickle names: keeps its arguments and state, runs nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.state = list(args) + list(kwargs.values()), None

    def __setstate__(self, state: Any) -> None:
        self.state = state


class _StubUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> type:
        return _Stub


def _plain(value: Any) -> Any:
    """A pickle's object graph as JSON-like values (stand-ins become their state)."""
    if isinstance(value, _Stub):
        return _plain(value.state if value.state is not None else value.args)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return None
    return value


def unpickle(data: bytes) -> Any:
    return _plain(_StubUnpickler(io.BytesIO(data)).load())


def decode(value: Any) -> Any:
    """One stored value as what it holds: JSON parsed, pickles and zlib blobs opened, binary dropped."""
    if isinstance(value, bytes):
        return _decode_bytes(value)
    if not isinstance(value, str):
        return value
    if value[:1] in ("{", "[") and value[-1:] in ("}", "]"):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    if value.startswith("gAS"):  # a base64 pickle (Qdrant keeps point ids so)
        try:
            return unpickle(base64.b64decode(value, validate=True))
        except (binascii.Error, pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError):
            return value
    return value


def _decode_bytes(data: bytes) -> Any:
    if data[:1] == b"\x80":
        try:
            return unpickle(data)
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, AttributeError):
            return None
    if data[:1] == b"x":
        try:
            return decode(zlib.decompress(data).decode("utf-8"))
        except (zlib.error, UnicodeDecodeError):
            pass
    try:
        return decode(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None  # binary: vectors, pages, compressed data nobody reads as text


def sqlite_contents(path: Path) -> Iterator[tuple[str, Any]]:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            quoted = '"' + table.replace('"', '""') + '"'
            for number, row in enumerate(db.execute(f"SELECT * FROM {quoted}"), start=1):  # noqa: S608 (a name read back)
                for value in row:
                    if (decoded := decode(value)) is not None:
                        yield f"{table}#{number}", decoded
        db.close()
    except sqlite3.Error as exc:
        raise Unreadable(f"SQLite: {exc}") from exc


def _resp_commands(data: bytes) -> Iterator[list[bytes]]:
    """The commands of a Redis append-only file (RESP arrays of bulk strings)."""
    stream = io.BytesIO(data)
    while header := stream.readline():
        if not header.startswith(b"*"):
            raise Unreadable("Redis AOF: not a RESP command (an RDB preamble?)")
        args = []
        for _ in range(int(header[1:])):
            size = stream.readline()
            if not size.startswith(b"$"):
                raise Unreadable("Redis AOF: truncated command")
            args.append(stream.read(int(size[1:])))
            stream.read(2)
        yield args


def aof_contents(path: Path) -> Iterator[tuple[str, Any]]:
    try:
        commands = list(_resp_commands(path.read_bytes()))
    except ValueError as exc:
        raise Unreadable(f"Redis AOF: {exc}") from exc
    for number, args in enumerate(commands, start=1):
        key = args[1].decode("utf-8", errors="replace") if len(args) > 1 else ""
        for value in args[2:]:
            if (decoded := decode(value)) is not None:
                yield f"command {number} ({key})", decoded


def text_contents(path: Path, data: bytes) -> Iterator[tuple[str, Any]]:
    text = data.decode("utf-8", errors="replace")
    if path.suffix == ".json":
        try:
            yield "1", json.loads(text)
            return
        except (ValueError, RecursionError):
            pass
    for number, line in enumerate(text.split("\n"), start=1):
        if path.suffix in JSON_SUFFIXES and line.strip():
            try:
                yield str(number), json.loads(line)
                continue
            except (ValueError, RecursionError):
                pass
        yield str(number), line[:MAX_TEXT_CHARS]


EDGE_CONFIG = "edge_config.json"


def is_edge_shard(folder: Path) -> bool:
    """A Qdrant Edge shard's folder (the embedded vector store): read through the engine, not by file."""
    return folder.is_dir() and (folder / EDGE_CONFIG).is_file()


def edge_contents(folder: Path, lock_timeout: float = 30.0) -> Iterator[tuple[str, Any]]:
    """Each point's payload (text included) of the Edge shard in `folder`, opened under its lock."""
    from qdrant_edge import EdgeShard


    with shard_lock(folder, lock_timeout):
        try:
            shard = EdgeShard.load(str(folder))
        except Exception as exc:  # the engine raises plain Exception with its message
            raise Unreadable(f"cannot open the Edge shard: {exc}") from exc
        try:
            for record in scrolled(shard, limit=1024, with_payload=True, with_vector=False):
                yield f"point {record.id}", dict(record.payload or {})
        finally:
            shard.close()


def is_text(path: Path, head: bytes) -> bool:
    """A text store (by its name: a daily log with a stray NUL is still a daily log), or a file whose first
    bytes are UTF-8 text with at most a stray NUL among them."""
    if path.suffix in TEXT_SUFFIXES:
        return True
    try:
        head[:-4].decode("utf-8") if len(head) > 4 else head.decode("utf-8")  # a character cut at the end is fine
    except UnicodeDecodeError:
        return False
    return head.count(b"\0") <= len(head) * MAX_NUL_SHARE


SQLITE_PARTS = ("-wal", "-shm", "-journal")  # read with their database, through SQLite


def kind_of(path: Path) -> str:
    """How `contents` reads `path`: "edge", "sqlite", "aof", "text", "sqlite-part" (a database's log or shared
    memory: read through the database), or "binary" (not read: no reader for it)."""
    if is_edge_shard(path):
        return "edge"
    for part in SQLITE_PARTS:
        if path.name.endswith(part) and path.with_name(path.name.removesuffix(part)).is_file():
            return "sqlite-part"
    with path.open("rb") as handle:
        head = handle.read(4096)
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if path.suffix == ".aof":
        return "aof"
    return "text" if is_text(path, head) else "binary"


def contents(path: Path) -> Iterator[tuple[str, Any]]:
    """Every value `path` holds, decoded for its kind of store, with where it sits (nothing for a binary file:
    `kind_of` says so)."""
    kind = kind_of(path)
    if kind == "edge":
        yield from edge_contents(path)
    elif kind == "sqlite":
        yield from sqlite_contents(path)
    elif kind == "aof":
        yield from aof_contents(path)
    elif kind == "text":
        yield from text_contents(path, path.read_bytes())
