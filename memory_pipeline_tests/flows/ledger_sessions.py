"""Text sessions observed offline for the ledger tests: emit → intake → sessions → observations."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.inbox import take_inbox
from memory_pipeline.flows.observe import collect_sessions, observe_day
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.llm import LLMClient, default_offline_provider
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.support.doors import env_settings

POSTGRES_15 = """[{day} 10:00] [User]: For the billing service we use Postgres 15 as the main database.
[{day} 10:01] [Assistant]: Understood, the billing service stores its data in Postgres 15.
[{day} 10:02] [User]: Always run the migrations before deploying.
[{day} 10:03] [Assistant]: I will run the migrations first.
"""
POSTGRES_16 = """[{day} 09:00] [User]: We moved from Postgres 15 to 16 last night.
[{day} 09:01] [Assistant]: Noted, the billing database is now on Postgres 16.
"""


def offline_llm() -> LLMClient:
    return LLMClient(default_offline_provider(), None)


def observe_text(workspace: Workspace, tmp_path, day: str, name: str, text: str, hour: int = 18) -> None:
    """One text session captured on `day`, observed with the offline Observer."""
    path = tmp_path / f"{name}.txt"
    path.write_text(text.format(day=day))
    captured = datetime.fromisoformat(f"{day}T{hour:02d}:00:00").replace(tzinfo=timezone.utc)
    emit_session_event(workspace, path, trigger="compaction", session_id=name, captured_at=captured, settings=env_settings())  # always observed
    take_inbox(workspace, settings=env_settings())
    collect_sessions(workspace, day)
    observe_day(workspace, day, llm=offline_llm(), prompt=load_prompt("observer"), model="offline", settings=env_settings())
