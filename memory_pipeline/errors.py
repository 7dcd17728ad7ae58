"""The project's exceptions: one base class, a handful of kinds."""


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
