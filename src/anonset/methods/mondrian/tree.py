"""The fitted Mondrian tree: classes of the fitted records, their regions, and the placing of new records.

:class:`MondrianTree` is what :func:`anonset.methods.mondrian.regions.mondrian`
returns; it satisfies the :class:`~anonset.core.grouping.Grouping`
protocol.  :class:`TreeNodes` holds the splits (node 0 the root), and
:class:`RegionBoxes` the region of each class, as its *cell* (the part of the
domain the tree sends to it) and its *extent* (the bounding box of its fitted
records).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.dataset import Dataset
from anonset.errors import ConfigError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["MondrianTree", "RegionBoxes", "TreeNodes"]


@dataclass(frozen=True, eq=False)
class RegionBoxes:
    """The region of every class; ``(c, d)`` arrays, one row per class, one column per quasi-identifier.

    Two boxes per class: its *cell*, the part of the domain the tree sends to
    it (what :meth:`MondrianTree.assign` uses), and its *extent*, the
    bounding box of its fitted records (what the release shows).

    Attributes
    ----------
    lower, upper : numpy.ndarray
        float64 cell of a numeric column: the values in ``(lower, upper]``
        (±inf at the edges of the domain; NaN in categorical columns).  In
        relaxed mode a class may also hold fitted records equal to its
        ``lower`` cut (the median's records divided between the sides).
    node_level, node_code : numpy.ndarray
        int64 cell of a categorical column: the hierarchy node (level, code
        at that level) the splits on its path sent it to, the root when no
        split was on that column (−1 in numeric columns).
    low, high : numpy.ndarray
        float64 extent of a numeric column: smallest and largest fitted value (NaN in categorical columns).
    lca_level, lca_code : numpy.ndarray
        int64 extent of a categorical column: the lowest common ancestor of
        the fitted records' leaves, a descendant of the cell's node (−1 in numeric columns).
    """

    lower: NDArray[np.float64]
    upper: NDArray[np.float64]
    node_level: NDArray[np.int64]
    node_code: NDArray[np.int64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    lca_level: NDArray[np.int64]
    lca_code: NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class TreeNodes:
    """The nodes of a Mondrian tree: node 0 is the root, every parent precedes its children.

    Attributes
    ----------
    parent : numpy.ndarray
        (N,) int64 parent node (−1 for the root).
    key : numpy.ndarray
        (N,) int64 what sends a record from the parent to the node: 0 (value
        <= threshold) or 1 (value > threshold) under a numeric split, the
        node's code at the parent's ``split_level`` under a categorical one.
    split_attr : numpy.ndarray
        (N,) int64 quasi-identifier position the node splits on (−1 for a leaf).
    threshold : numpy.ndarray
        (N,) float64 threshold of a numeric split (NaN otherwise).
    split_level : numpy.ndarray
        (N,) int64 hierarchy level of the children of a categorical split (−1 otherwise).
    node_class : numpy.ndarray
        (N,) int64 class of a leaf (−1 for an inner node).
    """

    parent: NDArray[np.int64]
    key: NDArray[np.int64]
    split_attr: NDArray[np.int64]
    threshold: NDArray[np.float64]
    split_level: NDArray[np.int64]
    node_class: NDArray[np.int64]
    _stride: int = field(init=False, repr=False)
    _edges: NDArray[np.int64] = field(init=False, repr=False)
    _children: NDArray[np.int64] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        stride = max(int(self.key.max()) + 1, 2)
        edges = self.parent[1:] * stride + self.key[1:]
        order = np.argsort(edges)
        object.__setattr__(self, "_stride", stride)
        object.__setattr__(self, "_edges", edges[order])
        object.__setattr__(self, "_children", np.arange(1, len(self.parent))[order])

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return len(self.parent)

    def child(self, nodes: NDArray[np.int64], keys: NDArray[np.int64]) -> NDArray[np.int64]:
        """The child of each of ``nodes`` with the given key (−1 when there is none)."""
        if len(self._edges) == 0:
            return np.full(len(nodes), -1, dtype=np.int64)
        wanted = nodes * self._stride + keys
        pos = np.minimum(np.searchsorted(self._edges, wanted), len(self._edges) - 1)
        hit = (keys >= 0) & (keys < self._stride) & (self._edges[pos] == wanted)
        return np.where(hit, self._children[pos], -1)


@dataclass(frozen=True, eq=False)
class MondrianTree:
    """A fitted Mondrian partition: classes of the fitted records and the tree that places new ones.

    Attributes
    ----------
    quasi : tuple of str
        The quasi-identifiers, in the order of the box columns.
    row_class : numpy.ndarray
        (n,) int64 class of each fitted record, ``0 .. c - 1`` numbered by
        first row (Mondrian suppresses nothing).
    boxes : RegionBoxes
        The region of each class.
    nodes : TreeNodes
        The split tree.
    strict : bool
        Whether numeric splits kept equal values together.
    criterion : str
        Name of the split criterion.
    numeric : numpy.ndarray
        (d,) bool per quasi-identifier: split by value (else through its hierarchy).
    maps : tuple of tuple of numpy.ndarray
        Per quasi-identifier split through its hierarchy, the fitted
        hierarchy's leaf → ancestor maps per level (empty for numeric ones).
    """

    quasi: tuple[str, ...]
    row_class: NDArray[np.int64]
    boxes: RegionBoxes
    nodes: TreeNodes
    strict: bool
    criterion: str
    numeric: NDArray[np.bool_]
    maps: tuple[tuple[NDArray[np.int32], ...], ...]

    @property
    def n_classes(self) -> int:
        """Number of equivalence classes (leaf regions)."""
        return len(self.boxes.lower)

    def assign(self, dataset: Dataset) -> NDArray[np.int64]:
        """The class of each record of ``dataset``, found by descending the tree.

        At a numeric split a record goes left when its value is ``<=`` the
        threshold (so in relaxed mode a record equal to a threshold goes
        left); at a categorical split to the child node containing its leaf.
        A record lands in the class whose cell (``boxes.lower``/``upper``,
        ``node_level``/``node_code``) contains it, which may lie outside the
        class's extent (the fitted records' bounding box).  It is suppressed
        (−1) when a split on its path has no child for it: a categorical
        value in a branch no fitted record of that region had (at the split
        level), a leaf the fitted hierarchy does not have, or a missing
        number.  On the fitted records of a strict tree this reproduces
        ``row_class``.

        Parameters
        ----------
        dataset : Dataset
            Records with the fitted quasi-identifiers and hierarchies.

        Returns
        -------
        numpy.ndarray
            (m,) int64 class per record, −1 when suppressed.

        Raises
        ------
        ConfigError
            A fitted quasi-identifier is missing from ``dataset`` or not numeric there.
        """
        columns = [self._column(dataset, j) for j in range(len(self.quasi))]
        nodes = self.nodes
        out = np.full(dataset.n_rows, -1, dtype=np.int64)
        active = np.arange(dataset.n_rows)
        at = np.zeros(dataset.n_rows, dtype=np.int64)
        while len(active):
            attr = nodes.split_attr[at]
            leaf = attr < 0
            out[active[leaf]] = nodes.node_class[at[leaf]]
            active, at, attr = active[~leaf], at[~leaf], attr[~leaf]
            keys = np.full(len(active), -1, dtype=np.int64)
            for j in np.unique(attr):
                sel = np.flatnonzero(attr == j)
                col = columns[j][active[sel]]
                if self.numeric[j]:
                    keys[sel] = np.where(np.isnan(col), -1, col > nodes.threshold[at[sel]])
                else:
                    keys[sel] = self._ancestors(j, col, nodes.split_level[at[sel]])
            child = nodes.child(at, keys)
            found = child >= 0
            active, at = active[found], child[found]
        return out

    def _column(self, dataset: Dataset, j: int) -> NDArray[np.float64] | NDArray[np.int64]:
        """Values (numeric, NaN when missing) or leaf codes (−1 when unknown to the fitted hierarchy) of column j."""
        name = self.quasi[j]
        if name not in dataset.quasi:
            raise ConfigError(f"{dataset.source}: quasi-identifier {name!r} of the fitted Mondrian tree is"
                              " missing; give the new records the fitted attributes")
        enc = dataset.encoded[name]
        codes = enc.row_codes()
        if self.numeric[j]:
            if enc.numbers is None:
                raise ConfigError(f"{dataset.source}: {name!r} was split by value when fitting but has no numbers"
                                  " here; declare it numeric as when fitting")
            return np.take(np.asarray(enc.numbers, dtype=np.float64), codes)
        return np.where(codes < len(self.maps[j][0]), codes, -1).astype(np.int64)

    def _ancestors(self, j: int, leaves: NDArray[np.int64], levels: NDArray[np.int64]) -> NDArray[np.int64]:
        """Ancestor code at ``levels`` of each leaf of categorical column j (−1 for an unknown leaf)."""
        out = np.full(len(leaves), -1, dtype=np.int64)
        for level in np.unique(levels):
            sel = (levels == level) & (leaves >= 0)
            out[sel] = self.maps[j][int(level)][leaves[sel]]
        return out
