"""Metadata a person can read in the UI: short markdown lists instead of raw JSON."""

import dagster as dg


def md_list(items, empty: str = "none") -> dg.MetadataValue:
    """A dict renders as `key: value` bullets, a list as bullets, nothing as an italic word."""
    if isinstance(items, dict):
        lines = [f"- `{key}`: {value}" for key, value in items.items()]
    else:
        lines = [f"- {item}" for item in items]
    return dg.MetadataValue.md("\n".join(lines) if lines else f"_{empty}_")
