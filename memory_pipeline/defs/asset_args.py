"""The keyword arguments of `dg.asset` that an asset's spec (its `*_SPEC`) holds, typed as Dagster
takes them so a spec passed as `**spec` is checked."""

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

import dagster as dg


class AssetArgs(TypedDict, total=False):
    group_name: str
    deps: Sequence[str | dg.AssetDep]
    kinds: set[str]
    description: str
    automation_condition: dg.AutomationCondition[dg.AssetKey]
    check_specs: Sequence[dg.AssetCheckSpec]
    op_tags: Mapping[str, Any]
    pool: str
