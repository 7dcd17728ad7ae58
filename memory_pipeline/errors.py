"""The project's exceptions: one base class, a handful of kinds."""

import errno


class MemoryPipelineError(Exception):
    """Base class for every error this project raises on purpose."""


class BadInputError(MemoryPipelineError):
    """Input from a user, an agent or a file that cannot be used (CLI exit code 2)."""


class EmptyTranscriptError(BadInputError):
    """A transcript that parses but holds no user or assistant message (nothing to remember)."""


class ServiceError(MemoryPipelineError):
    """Redis, Qdrant or the embedder is unreachable or failed (CLI exit code 1)."""


class LLMError(MemoryPipelineError):
    """The LLM provider failed after retries, or its output never validated."""


class StoreLockedError(ServiceError):
    """The embedded Qdrant store stayed locked by another process past the timeout."""


class DiskFullError(MemoryPipelineError):
    """A run failed on a full disk: one line saying where, and where Dagster's own output went."""

    def __init__(self, where: str, output: str | None = None) -> None:
        super().__init__(f"disk full at {where}" + (f" ({output})" if output else ""))


DISK_FULL_TEXTS = ("no space left on device", "database or disk is full", "disk quota exceeded",
                   "disk full at ")  # the last: DiskFullError's own, as a failed Dagster step reports it
# what sqlite says when a write of its journal or WAL fails, as it does on a full tmpfs
DISK_IO_TEXTS = ("disk i/o error",)


def _chain(exc: BaseException):
    """`exc` and everything in its cause chain, however wrapped (SQLAlchemy's `orig` too)."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        error = stack.pop()
        if id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        stack += [e for e in (error.__cause__, error.__context__, getattr(error, "orig", None)) if e is not None]


def disk_full_at(exc: BaseException, default: str = "the workspace") -> str | None:
    """Where the disk filled up, when `exc` (or anything in its cause chain, however wrapped: an
    SQLAlchemy or Dagster error around sqlite's, a failed run's message) is a full disk; else None."""
    for error in _chain(exc):
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            return str(error.filename or default)
        if any(text in str(error).lower() for text in DISK_FULL_TEXTS):
            return default
    return None


def is_disk_io_error(exc: BaseException) -> bool:
    """sqlite's "disk I/O error" (or EIO) anywhere in the chain: a full or failing disk."""
    return any((isinstance(e, OSError) and e.errno == errno.EIO) or any(t in str(e).lower() for t in DISK_IO_TEXTS)
               for e in _chain(exc))


def is_disk_full_message(message: str | None) -> bool:
    if not message:
        return False
    return any(text in message.lower() for text in DISK_FULL_TEXTS)
