"""Transcripts: parse Claude Code, pi, Codex and plain-text sessions into one model; serialize them."""

from memory_pipeline.stages.transcripts.detect import detect_format
from memory_pipeline.stages.transcripts.files import files_touched
from memory_pipeline.stages.transcripts.parse import parse_parts, parse_transcript
from memory_pipeline.stages.transcripts.serialize import serialize_transcript
from memory_pipeline.stages.transcripts.window import messages_since_last_compaction

__all__ = [
    "detect_format",
    "files_touched",
    "messages_since_last_compaction",
    "parse_parts",
    "parse_transcript",
    "serialize_transcript",
]
