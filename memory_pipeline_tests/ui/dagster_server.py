"""`dagster dev` for a test (the starter lives in resources/daemons/dagster_dev.py, shared with `bench
latency`), and a GraphQL call to it."""

from __future__ import annotations

import json
import urllib.request

from memory_pipeline.resources.daemons.dagster_dev import dagster_dev, free_port

__all__ = ["dagster_dev", "free_port", "graphql"]


def graphql(base: str, query: str) -> dict:
    request = urllib.request.Request(f"{base}/graphql", json.dumps({"query": query}).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())
