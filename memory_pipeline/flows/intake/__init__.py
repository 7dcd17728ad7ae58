"""Intake: events emitted and imported, each session's windows sent, the inbox taken, `ingest`."""
