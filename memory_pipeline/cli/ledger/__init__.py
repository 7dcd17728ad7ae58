"""`memory-pipeline ledger add|show|check|pack`: the event ledger by hand, and the recall pack built
from it. `pack` alone is the old name of `ledger pack`."""

from __future__ import annotations

from memory_pipeline.cli.common import add_alias
from memory_pipeline.cli.ledger import actions, pack


def register(sub) -> None:
    parser = sub.add_parser("ledger", help="the event ledger: add an event, show an entity, check integrity, build the pack")
    group = parser.add_subparsers(dest="ledger_action", required=True, metavar="ACTION")
    actions.add_actions(group)
    pack.add_arguments(group.add_parser("pack", help=pack.HELP))
    add_alias(sub, "pack", "ledger pack", pack.add_arguments)
