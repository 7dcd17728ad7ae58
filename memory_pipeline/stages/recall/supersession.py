"""A fact the ledger superseded, marked on its payload so ranking de-ranks it and names its replacement."""

from __future__ import annotations


def with_supersession(payloads: dict[str, dict], superseded: dict[str, dict]) -> dict[str, dict]:
    """Payloads of facts the ledger superseded get `superseded_by` ("EVT-…: the replacement")."""
    if not superseded:
        return payloads
    return {pid: payload | {"superseded_by": f"{superseded[pid]['by']}: {superseded[pid]['text']}"}
            if pid in superseded else payload for pid, payload in payloads.items()}
