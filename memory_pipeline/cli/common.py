"""Helpers shared by the commands: the workspace, JSON output, the console."""

from __future__ import annotations

import json
import sys

from memory_pipeline.config import Settings
from memory_pipeline.resources.workspace import Workspace


def workspace_from_env() -> Workspace:
    return Workspace(Settings.from_env().workspace).create()


def print_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, default=str) + "\n")


def console():
    from rich.console import Console

    return Console()


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
