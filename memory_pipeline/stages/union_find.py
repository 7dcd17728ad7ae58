"""Disjoint sets: items joined transitively into groups (friction clusters, near-duplicate memories,
ledger chains)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from _typeshed import SupportsDunderLT

Item = TypeVar("Item", bound=Hashable)


class UnionFind(Generic[Item]):
    """Each group has one root. `union(keep, other)` makes `keep`'s root the root of both, unless
    `rank` is given: then the root with the smaller rank stays."""

    def __init__(self, items: Iterable[Item], rank: Callable[[Item], SupportsDunderLT[Any]] | None = None):
        self.parent: dict[Item, Item] = {item: item for item in items}
        self.rank = rank

    def find(self, item: Item) -> Item:
        parent = self.parent
        while parent[item] != item:
            parent[item] = parent[parent[item]]  # path halving
            item = parent[item]
        return item

    def union(self, keep: Item, other: Item) -> bool:
        """Join the two groups; False when they already were one."""
        root, joined = self.find(keep), self.find(other)
        if root == joined:
            return False
        if self.rank is not None and self.rank(joined) < self.rank(root):
            root, joined = joined, root
        self.parent[joined] = root
        return True

    def groups(self) -> list[list[Item]]:
        """Every group, members in the order the items were given; groups in order of first member."""
        found: dict[Item, list[Item]] = {}
        for item in self.parent:
            found.setdefault(self.find(item), []).append(item)
        return list(found.values())
