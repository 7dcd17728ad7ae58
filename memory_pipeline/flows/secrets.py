"""Auditing and scrubbing a workspace for secrets the redaction rules recognize.

`find_secrets` reads what each store holds, decoded (resources/files/store_contents.py: JSON Lines line
by line, SQLite rows of Qdrant and Dagster with their pickles and compressed blobs opened, Redis'
append-only file command by command), and names each place where `redact` would change a value,
with the kinds of secret, never the secret itself. A JSON value is judged field by field, as it
was redacted when written (an `id` or a `signature` is opaque, not a key). `scrub_files` rewrites
the text files of the workspace (JSON stays valid JSON, bad bytes are kept); `scrub_redis`
rewrites the values in Redis and compacts its AOF. Stores it cannot rewrite in place (SQLite files
of Qdrant and Dagster) are listed for the caller to report.
"""

from __future__ import annotations

import json
import multiprocessing
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_pipeline.resources.files.store_contents import TEXT_SUFFIXES as TEXT_STORES
from memory_pipeline.resources.files.store_contents import Unreadable, contents, is_edge_shard, kind_of
from memory_pipeline.resources.workspace import atomic_write_bytes, folder_bytes
from memory_pipeline.stages.redact import redact, redact_jsonl, redact_value

_KIND = re.compile(r"\[REDACTED:([a-z\-]+)\]")
TEXT_SUFFIXES = TEXT_STORES | {""}
SKIP_PARTS = {"locks"}


@dataclass
class Finding:
    path: str
    where: str  # a line number, a SQLite `table#row`, or a Redis AOF command
    kinds: list[str]

    def __str__(self) -> str:
        return f"{self.path}:{self.where}: {', '.join(self.kinds)}"


@dataclass
class CheckReport:
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    unreadable: list[str] = field(default_factory=list)  # `path: why`
    binary: list[str] = field(default_factory=list)  # files no reader decodes (vectors, images): not read


@dataclass
class ScrubReport:
    files: list[str] = field(default_factory=list)
    redis_keys: int = 0
    not_rewritable: list[str] = field(default_factory=list)
    binary: list[str] = field(default_factory=list)  # not read, so not known to be clean


def _files(roots: list[Path]) -> Iterator[Path]:
    """Every file under `roots`; an Edge shard's folder stands for its files (read through the engine)."""
    for root in roots:
        if root.is_file() or is_edge_shard(root):
            yield root
            continue
        shards = [p for p in sorted(root.rglob("*")) if is_edge_shard(p)]
        for path in shards:
            yield path
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink() and not SKIP_PARTS & set(path.parts) and \
                    not any(shard in path.parents for shard in shards):
                yield path


def _kinds(value: Any) -> list[str]:
    """The kinds of secret `redact` would remove from a decoded value (empty: none)."""
    cleaned = redact_value(value)
    if cleaned == value:
        return []
    before, after = json.dumps(value, ensure_ascii=False), json.dumps(cleaned, ensure_ascii=False)
    return sorted(set(_KIND.findall(after)) - set(_KIND.findall(before))) or ["secret"]


def _file_findings(path: Path) -> list[Finding]:
    return [Finding(str(path), where, kinds) for where, value in contents(path) if (kinds := _kinds(value))]


PARALLEL_FROM = 64 << 20  # bytes to read from which `check_stores` reads files in worker processes: below it
# the workers' start (an interpreter and the redaction rules each, ~0.5 s) costs more than they save


def check_stores(roots: list[Path], on_found: Callable[[int], None] = lambda total: None,
                 on_file: Callable[[Path, int], None] = lambda path, size: None, workers: int = 1,
                 parallel_from: int = PARALLEL_FROM) -> CheckReport:
    """Each place in each store under `roots` that holds something the rules would redact. `on_found` is told
    the bytes to read once the files are listed, `on_file` each file (an Edge shard: its folder) and its bytes
    once read: a year's workspace (5.6 GB) takes many minutes. With `workers` > 1 and `parallel_from` bytes or
    more, that many processes read the files at once (the rules are pure Python: threads would take turns);
    the findings come in the files' order all the same."""
    report = CheckReport()
    listed = [(path, folder_bytes(path) if path.is_dir() else _size(path)) for path in _files(roots)]
    total = sum(size for _, size in listed)
    on_found(total)
    pooled = workers > 1 and len(listed) > 1 and total >= parallel_from
    results: dict[Path, tuple[list[Finding], str | None]] = {}
    for path, size, result in (_pooled(listed, workers) if pooled else _serial(listed)):
        results[path] = result
        on_file(path, size)
    for path, _ in listed:
        findings, unreadable = results[path]
        if unreadable == BINARY:
            report.binary.append(str(path))
        elif unreadable is None:
            report.findings += findings
            report.files += 1
        else:
            report.unreadable.append(f"{path}: {unreadable}")
    return report


BINARY = "binary"


def _checked_file(path: Path) -> tuple[list[Finding], str | None]:
    """The file's findings, or why it could not be read (`BINARY`: no reader decodes it)."""
    try:
        if not path.is_dir() and kind_of(path) == "binary":
            return [], BINARY
        return _file_findings(path), None
    except (OSError, Unreadable) as exc:
        return [], str(exc)


def _serial(listed: list[tuple[Path, int]]) -> Iterator[tuple[Path, int, tuple[list[Finding], str | None]]]:
    for path, size in listed:
        yield path, size, _checked_file(path)


def _pooled(listed: list[tuple[Path, int]], workers: int) -> Iterator[tuple[Path, int, tuple[list[Finding], str | None]]]:
    """The files checked by `workers` processes, as each is done; the largest are handed out first, so a
    big store read last does not leave the other workers idle. Spawned, not forked: the caller's progress
    bar runs a thread, and a fork copies whatever lock it holds."""
    with ProcessPoolExecutor(min(workers, len(listed)), mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(_checked_file, path): (path, size)
                   for path, size in sorted(listed, key=lambda item: item[1], reverse=True)}
        for future in as_completed(futures):
            path, size = futures[future]
            yield path, size, future.result()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # gone since it was listed: reported unreadable when read
        return 0


def find_secrets(roots: list[Path]) -> list[Finding]:
    return check_stores(roots).findings


def _scrubbed(path: Path, data: bytes) -> bytes:
    text = data.decode("utf-8", errors="surrogateescape")
    if path.suffix == ".jsonl":
        cleaned = redact_jsonl(text)
    elif path.suffix == ".json":
        try:
            cleaned = json.dumps(redact_value(json.loads(text)), ensure_ascii=False, indent=2) + "\n"
            if json.loads(cleaned) == json.loads(text):
                cleaned = text
        except ValueError:
            cleaned = redact(text)
    else:
        cleaned = redact(text)
    return cleaned.encode("utf-8", errors="surrogateescape")


def scrub_files(root: Path, report: ScrubReport) -> None:
    """Rewrite every text file under `root` that holds a secret; SQLite and other binary stores
    are listed in `report.not_rewritable` instead."""
    for path in _files([root]):
        kind = "edge" if path.is_dir() else kind_of(path)  # a folder is an Edge shard: not rewritten here
        if kind == "binary":
            report.binary.append(str(path))
            continue
        data = path.read_bytes() if kind == "text" else None
        if data is None or path.suffix not in TEXT_SUFFIXES:
            try:
                if _file_findings(path):
                    report.not_rewritable.append(str(path))
            except Unreadable:
                report.not_rewritable.append(str(path))
            continue
        cleaned = _scrubbed(path, data)
        if cleaned != data:
            atomic_write_bytes(path, cleaned)
            report.files.append(str(path))


def scrub_redis(client, report: ScrubReport) -> None:
    """Redact every string, list, set and hash value in Redis, then compact the AOF."""
    for key in client.scan_iter("*"):
        kind = client.type(key)
        if kind == "string":
            value = client.get(key)
            if value is not None and (clean := redact(value)) != value:
                client.set(key, clean, keepttl=True)
                report.redis_keys += 1
        elif kind == "hash":
            fields = client.hgetall(key)
            changed = {k: redact(v) for k, v in fields.items() if redact(v) != v}
            if changed:
                client.hset(key, mapping=changed)
                report.redis_keys += 1
        elif kind == "list":
            values = client.lrange(key, 0, -1)
            for index, value in enumerate(values):
                if (clean := redact(value)) != value:
                    client.lset(key, index, clean)
                    report.redis_keys += 1
        elif kind == "set":
            for value in client.smembers(key):
                if (clean := redact(value)) != value:
                    client.srem(key, value)
                    client.sadd(key, clean)
                    report.redis_keys += 1
    client.bgrewriteaof()
