"""Metadata a person can read in the UI: short markdown lists instead of raw JSON."""

import dagster as dg


def md_list(items, empty: str = "none") -> dg.MetadataValue:
    """A dict renders as `key: value` bullets, a list as bullets, nothing as an italic word."""
    if isinstance(items, dict):
        lines = [f"- `{key}`: {value}" for key, value in items.items()]
    else:
        lines = [f"- {item}" for item in items]
    return dg.MetadataValue.md("\n".join(lines) if lines else f"_{empty}_")


def index_result(stats, check_name: str, model_name: str) -> dg.MaterializeResult:
    """An index asset's result: its counts, and the check that the store holds exactly its points."""
    check = dg.AssetCheckResult(check_name=check_name, passed=stats.stored == stats.points,
                                metadata={"stored": stats.stored, "expected": stats.points})
    return dg.MaterializeResult(check_results=[check], metadata={
        "points": stats.points,
        "embedded_now": stats.embedded,
        "unchanged": stats.unchanged,
        "deleted_stale": stats.deleted,
        "merged_at_write": stats.merged,
        "embedding_model": model_name,
        "embedding_seconds": round(stats.embed_seconds, 2),
        **stats.parts,  # the points of the tiers indexed with it (the message index's passages)
    })
