"""UnionFind: transitive groups, the kept root, and the rank that picks it."""

from memory_pipeline.stages.union_find import UnionFind
from memory_pipeline.stages.vectors import cosine


def test_groups_join_transitively_in_item_order():
    sets = UnionFind("abcdef")
    assert sets.union("a", "c") and sets.union("c", "e") and sets.union("d", "b")
    assert not sets.union("e", "a")  # already one group
    assert sets.groups() == [["a", "c", "e"], ["b", "d"], ["f"]]
    assert sets.find("e") == "a"


def test_rank_keeps_the_smallest_root():
    order = {"x": 2, "y": 0, "z": 1}
    sets = UnionFind(order, rank=order.get)
    sets.union("x", "z")
    sets.union("x", "y")
    assert {sets.find(i) for i in order} == {"y"}


def test_cosine_of_unit_vectors():
    assert cosine([0.6, 0.8], [0.6, 0.8]) == 1.0
    assert cosine([1.0, 0.0], [0.0, 1.0]) == 0.0
