"""memory-pipeline: durable, reviewable, searchable memory for coding agents."""

__version__ = "0.1.0"
