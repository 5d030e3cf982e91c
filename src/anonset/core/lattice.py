"""The full-domain generalization lattice: one level per quasi-identifier.

Nodes are held as an (N, d) int matrix in the C order of the level grid, so
that "every node below (or above) this one" is a box of the grid: one strided
assignment marks it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

from anonset.errors import ConfigError

__all__ = ["Lattice"]

MAX_NODES = 20_000_000


class Lattice:
    """All combinations of levels ``0..max_levels[j]``.

    Parameters
    ----------
    max_levels : sequence of int
        Highest level of each quasi-identifier.
    names : sequence of str
        Quasi-identifier names (for messages).
    """

    def __init__(self, max_levels: list[int] | tuple[int, ...], names: tuple[str, ...] = ()):
        self.max_levels = np.asarray(max_levels, dtype=np.int64)
        self.names = tuple(names)
        size = 1
        for m in self.max_levels:
            size *= int(m) + 1
        if size > MAX_NODES:
            raise ConfigError(
                f"the lattice has {size:,} nodes (more than {MAX_NODES:,}); an exact search cannot enumerate it:"
                " use fewer quasi-identifiers or fewer hierarchy levels"
            )
        self.size = size
        shape = tuple(int(m) + 1 for m in self.max_levels)
        self.shape = shape
        # lexicographic order (the last attribute varies fastest), as itertools.product would give
        self.nodes = np.indices(shape, dtype=np.int64).reshape(len(shape), size).T.copy()
        self.strides = np.ones(len(self.max_levels), dtype=np.int64)
        for j in range(len(self.max_levels) - 2, -1, -1):
            self.strides[j] = self.strides[j + 1] * (self.max_levels[j + 1] + 1)

    def index(self, node: NDArray[np.int64] | tuple[int, ...]) -> int:
        """Row of ``node`` in :attr:`nodes`."""
        return int(np.dot(np.asarray(node, dtype=np.int64), self.strides))

    @property
    def bottom(self) -> tuple[int, ...]:
        """The most specific node."""
        return tuple(0 for _ in self.max_levels)

    @property
    def top(self) -> tuple[int, ...]:
        """The most general node."""
        return tuple(int(m) for m in self.max_levels)

    def mark_below(self, mask: NDArray[np.bool_], node: NDArray[np.int64] | tuple[int, ...]) -> None:
        """Set ``mask`` (one flag per node, in :attr:`nodes` order) on every node below ``node``, in place.

        The nodes below form a box of the level grid, so this is one strided assignment.
        """
        mask.reshape(self.shape)[tuple(slice(0, int(level) + 1) for level in node)] = True

    def mark_above(self, mask: NDArray[np.bool_], node: NDArray[np.int64] | tuple[int, ...]) -> None:
        """Set ``mask`` on every node at least as general as ``node``, in place (one strided assignment)."""
        mask.reshape(self.shape)[tuple(slice(int(level), None) for level in node)] = True
