"""Auditing and scrubbing a workspace for secrets the redaction rules recognize.

`find_secrets` reads every file under the given roots (text and binary alike: Redis' AOF,
Qdrant's and Dagster's SQLite files hold text too) line by line and names each line where
`redact` would change something, with the kinds of secret, never the secret itself.
`scrub_files` rewrites the text files of the workspace (JSON stays valid JSON, bad bytes are
kept); `scrub_redis` rewrites the values in Redis and compacts its AOF. Stores it cannot rewrite
in place (SQLite files of Qdrant and Dagster) are listed for the caller to report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memory_pipeline.resources.workspace import atomic_write_bytes
from memory_pipeline.stages.redact import redact, redact_jsonl, redact_value

MAX_LINE_CHARS = 200_000
_KIND = re.compile(r"\[REDACTED:([a-z\-]+)\]")
TEXT_SUFFIXES = {".md", ".txt", ".log", ".jsonl", ".json", ".yaml", ".yml", ""}
SKIP_PARTS = {"locks"}


@dataclass
class Finding:
    path: str
    line: int
    kinds: list[str]

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {', '.join(self.kinds)}"


@dataclass
class ScrubReport:
    files: list[str] = field(default_factory=list)
    redis_keys: int = 0
    not_rewritable: list[str] = field(default_factory=list)


def _files(roots: list[Path]) -> Iterator[Path]:
    for root in roots:
        if root.is_file():
            yield root
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink() and not SKIP_PARTS & set(path.parts):
                yield path


def _kinds(line: str) -> list[str]:
    cleaned = redact(line)
    if cleaned == line:
        return []
    before = set(_KIND.findall(line))
    return sorted({k for k in _KIND.findall(cleaned)} - before) or ["secret"]


def find_secrets(roots: list[Path]) -> list[Finding]:
    """Each line of each file under `roots` that holds something the rules would redact."""
    found = []
    for path in _files(roots):
        try:
            handle = path.open("rb")
        except OSError:
            continue
        with handle:
            for number, raw in enumerate(handle, start=1):
                line = raw.decode("utf-8", errors="replace")[:MAX_LINE_CHARS]
                if kinds := _kinds(line):
                    found.append(Finding(str(path), number, kinds))
    return found


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
        data = path.read_bytes()
        if b"\0" in data[:4096] or path.suffix not in TEXT_SUFFIXES or path.name.endswith(".aof"):
            if any(_kinds(chunk.decode("utf-8", errors="replace")) for chunk in data.split(b"\n")):
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
