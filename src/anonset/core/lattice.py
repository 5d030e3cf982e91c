"""The full-domain generalization lattice: one level per quasi-identifier.

Nodes are held as an (N, d) int matrix in the C order of the level grid, so
that "every node below (or above) this one" is a box of the grid: one strided
assignment marks it.  A lattice may start above level 0 (a *minimum
generalization*, ARX's name: a floor per quasi-identifier); its nodes hold
their levels, and its grid is offset by the floor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
    min_levels : sequence of int, optional
        Lowest level of each quasi-identifier (default 0): the lattice holds
        the nodes at or above this floor only.
    """

    def __init__(self, max_levels: list[int] | tuple[int, ...], names: tuple[str, ...] = (),
                 min_levels: list[int] | tuple[int, ...] | None = None):
        self.max_levels = np.asarray(max_levels, dtype=np.int64)
        self.min_levels = (np.zeros_like(self.max_levels) if min_levels is None
                           else np.asarray(min_levels, dtype=np.int64))
        self.names = tuple(names)
        if (self.min_levels < 0).any() or (self.min_levels > self.max_levels).any():
            j = int(np.flatnonzero((self.min_levels < 0) | (self.min_levels > self.max_levels))[0])
            name = self.names[j] if j < len(self.names) else f"quasi-identifier {j}"
            raise ConfigError(f"{name}: min_level {int(self.min_levels[j])} is not a level of its hierarchy (0 to"
                              f" {int(self.max_levels[j])}); give a level in that range")
        size = 1
        for lo, m in zip(self.min_levels, self.max_levels, strict=True):
            size *= int(m) - int(lo) + 1
        if size > MAX_NODES:
            raise ConfigError(
                f"the lattice has {size:,} nodes (more than {MAX_NODES:,}); an exact search cannot enumerate it:"
                " use fewer quasi-identifiers or fewer hierarchy levels"
            )
        self.size = size
        shape = tuple(int(m) - int(lo) + 1 for lo, m in zip(self.min_levels, self.max_levels, strict=True))
        self.shape = shape
        # lexicographic order (the last attribute varies fastest), as itertools.product would give
        self.nodes = np.indices(shape, dtype=np.int64).reshape(len(shape), size).T + self.min_levels
        self.strides = np.ones(len(self.max_levels), dtype=np.int64)
        for j in range(len(self.max_levels) - 2, -1, -1):
            self.strides[j] = self.strides[j + 1] * shape[j + 1]

    def index(self, node: NDArray[np.int64] | tuple[int, ...]) -> int:
        """Row of ``node`` in :attr:`nodes`."""
        return int(np.dot(np.asarray(node, dtype=np.int64) - self.min_levels, self.strides))

    def contains(self, node: NDArray[np.int64] | tuple[int, ...]) -> bool:
        """Whether ``node`` lies between the floor and the top."""
        levels = np.asarray(node, dtype=np.int64)
        return bool(((levels >= self.min_levels) & (levels <= self.max_levels)).all())

    @property
    def bottom(self) -> tuple[int, ...]:
        """The most specific node (the floor)."""
        return tuple(int(v) for v in self.min_levels)

    @property
    def top(self) -> tuple[int, ...]:
        """The most general node."""
        return tuple(int(m) for m in self.max_levels)

    def below(self, values: NDArray[Any], node: NDArray[np.int64] | tuple[int, ...]) -> NDArray[Any]:
        """The view of ``values`` (one per node, in :attr:`nodes` order) on every node below ``node`` (a box)."""
        return values.reshape(self.shape)[tuple(slice(0, int(level) - int(lo) + 1)
                                                for level, lo in zip(node, self.min_levels, strict=True))]

    def mark_below(self, mask: NDArray[np.bool_], node: NDArray[np.int64] | tuple[int, ...]) -> None:
        """Set ``mask`` (one flag per node, in :attr:`nodes` order) on every node below ``node``, in place.

        The nodes below form a box of the level grid, so this is one strided assignment.
        """
        self.below(mask, node)[...] = True

    def mark_above(self, mask: NDArray[np.bool_], node: NDArray[np.int64] | tuple[int, ...]) -> None:
        """Set ``mask`` on every node at least as general as ``node``, in place (one strided assignment)."""
        mask.reshape(self.shape)[tuple(slice(int(level) - int(lo), None)
                                       for level, lo in zip(node, self.min_levels, strict=True))] = True
