"""The lattice: node order and the boxes marked above and below a node."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from anonset.core.lattice import Lattice


@pytest.mark.parametrize("max_levels", [(2,), (1, 3), (2, 0, 3), (1, 2, 1, 2)])
def test_marks_are_the_nodes_above_and_below(max_levels: tuple[int, ...]) -> None:
    lattice = Lattice(list(max_levels))
    assert [tuple(n) for n in lattice.nodes] == list(itertools.product(*(range(m + 1) for m in max_levels)))
    for i, node in enumerate(lattice.nodes):
        assert lattice.index(node) == i
        above = np.zeros(lattice.size, dtype=np.bool_)
        below = np.zeros(lattice.size, dtype=np.bool_)
        lattice.mark_above(above, node)
        lattice.mark_below(below, tuple(int(v) for v in node))
        assert np.array_equal(above, (lattice.nodes >= node).all(axis=1))
        assert np.array_equal(below, (lattice.nodes <= node).all(axis=1))


def test_marks_add_to_what_is_set() -> None:
    lattice = Lattice([2, 2])
    mask = np.zeros(lattice.size, dtype=np.bool_)
    lattice.mark_below(mask, (0, 2))
    lattice.mark_below(mask, (2, 0))
    assert mask.sum() == 5
