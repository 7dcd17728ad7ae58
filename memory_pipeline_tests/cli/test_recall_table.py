"""`recall`'s table at 80 columns: the hit's text keeps most of the width (it was 8–12 characters)."""

from __future__ import annotations

from memory_pipeline.cli.recall import print_table
from memory_pipeline.models import RecallHit

TEXT = "User: The orders service runs on Postgres 16 and its replica on the reporting host reports-db-1."


def test_the_text_keeps_most_of_an_80_column_terminal(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    hit = RecallHit(id="x", tier="messages", text=TEXT, score=0.267, date="2026-11-20", session_id="pg16",
                    source_message_ids=["t1"], why={"dense_rank": 3, "sparse_rank": 2}, project="orders",
                    replaced_by="EVT-20261127-001: We moved to Postgres 17 last week.", provenance=["user"])
    print_table([hit], "looked at this folder's project orders + your user-level memories")
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    widest = max(len(part.strip()) for line in lines for part in line.split("│") if "Postgres 16" in part
                 or "reports-db-1" in part)
    assert widest >= 50  # the text column
    flat = " ".join(part.strip() for line in lines for part in line.split("│")[3:4])
    assert "Postgres 16 and its replica" in flat and "said by user" in flat and "d3 s2" in flat
    assert "↳ replaced by EVT-20261127-001" in out
