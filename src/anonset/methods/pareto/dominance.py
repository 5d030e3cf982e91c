"""Dominance, box-dominance and the archive updater of Dewri et al. (Algorithm 1).

Every function works on *oriented* values: each objective turned into a
quantity to minimize (:func:`orient` negates the maximized ones), so
``a`` dominates ``b`` when ``a <= b`` everywhere and ``a < b`` somewhere.

Box-dominance, for a discretization vector ε: the box of a vector of index
values I is ``B(I) = ⌊I / ε⌋`` per objective, taken on the index values as
they are (a hypergrid at 0, ε, 2ε, … whatever the direction), then oriented
like the values.  ``a`` box-dominates ``b`` when their boxes differ and box
``B(a)`` dominates box ``B(b)``, or when the boxes are equal and ``a``
dominates ``b``.  Without ε (``None``) a vector is its own box: box-dominance
is plain dominance and a "box" holds one distinct vector, which is the limit
ε → 0 (for integer indices, ε = 1 gives the same result).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from anonset.errors import ConfigError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "BoxArchive",
    "box_dominates",
    "box_representatives",
    "boxes",
    "check_epsilon",
    "dominance_matrix",
    "dominates",
    "nondominated",
    "orient",
]

_BLOCK = 256


def check_epsilon(epsilon: Sequence[float] | NDArray[np.float64] | None,
                  n_objectives: int) -> NDArray[np.float64] | None:
    """Validate a discretization vector: one positive finite number per objective (or None).

    Returns
    -------
    numpy.ndarray or None
        The vector as float64.
    """
    if epsilon is None:
        return None
    try:
        eps = np.asarray(epsilon, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ConfigError(f"epsilon must be a list of positive numbers, one per objective; got {epsilon!r}") from None
    if len(eps) != n_objectives:
        raise ConfigError(f"epsilon has {len(eps)} entries but there are {n_objectives} objectives;"
                          " give one positive number per objective")
    bad = [float(v) for v in eps if not (math.isfinite(v) and v > 0)]
    if bad:
        raise ConfigError(f"epsilon entries must be positive finite numbers; got {bad[0]:g}")
    return eps


def orient(values: NDArray[np.float64], maximize: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Index values as quantities to minimize: maximized objectives negated.

    Parameters
    ----------
    values : numpy.ndarray
        (..., r) index values.
    maximize : numpy.ndarray
        (r,) bool, True where higher is better.
    """
    values = np.asarray(values, dtype=np.float64)
    return np.where(maximize, -values, values)


def boxes(values: NDArray[np.float64], maximize: NDArray[np.bool_],
          epsilon: NDArray[np.float64] | None) -> NDArray[np.float64]:
    """Oriented box coordinates ``⌊I / ε⌋`` of index values (the oriented values themselves without ε).

    Parameters
    ----------
    values : numpy.ndarray
        (m, r) index values (not oriented).
    maximize : numpy.ndarray
        (r,) bool.
    epsilon : numpy.ndarray or None
        (r,) discretization vector.
    """
    values = np.asarray(values, dtype=np.float64)
    grid = values if epsilon is None else np.floor(values / epsilon)
    return orient(grid, maximize)


def dominates(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Does ``a`` dominate ``b``?  Broadcasts over leading axes (oriented values, last axis = objectives)."""
    a = np.asarray(a)
    b = np.asarray(b)
    return np.asarray(np.all(a <= b, axis=-1) & np.any(a < b, axis=-1))


def dominance_matrix(oriented: NDArray[np.float64]) -> NDArray[np.bool_]:
    """(m, m) bool: entry (i, j) is True when row i dominates row j."""
    return dominates(oriented[:, None, :], oriented[None, :, :])


def box_dominates(a: NDArray[np.float64], box_a: NDArray[np.float64], b: NDArray[np.float64],
                  box_b: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Box-dominance of ``a`` over ``b`` (oriented values and oriented boxes; broadcasts)."""
    same = np.all(np.asarray(box_a) == np.asarray(box_b), axis=-1)
    return np.where(same, dominates(a, b), dominates(box_a, box_b))


def nondominated(oriented: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Bool mask of the rows no other row dominates (equal rows are all kept).

    Rows are visited in lexicographic order, where a dominator always comes
    before the rows it dominates, in blocks: a row is kept when neither the
    front found so far nor any row of its block dominates it.  A dominated
    dominator is itself dominated by a front member (transitivity), so the
    front so far suffices.
    """
    oriented = np.asarray(oriented, dtype=np.float64)
    m = len(oriented)
    keep = np.zeros(m, dtype=np.bool_)
    if m == 0:
        return keep
    order = np.lexsort(oriented.T[::-1])
    ordered = oriented[order]
    front = ordered[:0]
    for start in range(0, m, _BLOCK):
        block = ordered[start:start + _BLOCK]
        beaten = dominance_matrix(block).any(axis=0)
        if len(front):
            beaten |= dominates(front[:, None, :], block[None, :, :]).any(axis=0)
        keep[order[start:start + _BLOCK]] = ~beaten
        front = np.concatenate([front, block[~beaten]])
    return keep


def box_representatives(values: NDArray[np.float64], maximize: NDArray[np.bool_],
                        epsilon: NDArray[np.float64] | None) -> NDArray[np.int64]:
    """One row per non-dominated box of a set of index values.

    The boxes of the non-dominated rows are computed, the boxes no other box
    dominates are kept, and each is represented by its first non-dominated
    row.  This is what Algorithm 1 keeps when it is fed the non-dominated
    rows in order.

    Parameters
    ----------
    values : numpy.ndarray
        (m, r) index values (not oriented).
    maximize : numpy.ndarray
        (r,) bool.
    epsilon : numpy.ndarray or None
        Discretization vector; None keeps every non-dominated row.

    Returns
    -------
    numpy.ndarray
        Sorted row indices into ``values``.
    """
    front = np.flatnonzero(nondominated(orient(values, maximize)))
    if epsilon is None:
        return front
    box = boxes(values[front], maximize, epsilon)
    unique_boxes, first = np.unique(box, axis=0, return_index=True)
    chosen = first[nondominated(unique_boxes)]
    return np.sort(front[chosen])


class BoxArchive:
    """The archive of Algorithm 1: at most one member per box, no member box-dominated by another.

    Members are identified by an integer id (the caller's row of the node);
    their oriented values and boxes are kept in arrays so each update is one
    vectorized pass over the archive.

    Parameters
    ----------
    maximize : numpy.ndarray
        (r,) bool per objective.
    epsilon : numpy.ndarray or None
        Discretization vector (validated by :func:`check_epsilon`).
    """

    def __init__(self, maximize: NDArray[np.bool_], epsilon: NDArray[np.float64] | None):
        self.maximize = np.asarray(maximize, dtype=np.bool_)
        self.epsilon = epsilon
        r = len(self.maximize)
        self._ids = np.zeros(0, dtype=np.int64)
        self._values = np.zeros((0, r), dtype=np.float64)
        self._boxes = np.zeros((0, r), dtype=np.float64)

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def ids(self) -> NDArray[np.int64]:
        """Ids of the members, in insertion order."""
        return self._ids.copy()

    def update(self, member: int, values: NDArray[np.float64]) -> bool:
        """Offer a candidate (Algorithm 1); True when it entered the archive.

        Steps: remove the members the candidate box-dominates; insert the
        candidate unless a remaining member box-dominates it or shares its box.
        A candidate already in the archive (same id) changes nothing.
        """
        if np.any(self._ids == member):
            return False
        value = orient(np.asarray(values, dtype=np.float64).reshape(1, -1), self.maximize)[0]
        box = boxes(np.asarray(values, dtype=np.float64).reshape(1, -1), self.maximize, self.epsilon)[0]
        if len(self._ids):
            beaten = box_dominates(value, box, self._values, self._boxes)
            if beaten.any():
                keep = ~beaten
                self._ids, self._values, self._boxes = self._ids[keep], self._values[keep], self._boxes[keep]
            if box_dominates(self._values, self._boxes, value, box).any() or np.all(self._boxes == box, axis=1).any():
                return False
        self._ids = np.append(self._ids, member)
        self._values = np.vstack([self._values, value])
        self._boxes = np.vstack([self._boxes, box])
        return True
