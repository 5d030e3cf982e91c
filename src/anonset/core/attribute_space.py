"""The quasi-identifiers as regions and queries see them: by value, or through their hierarchy level by level.

:class:`AttributeSpace` holds numeric, date and ordinal quasi-identifiers (with
a number, date or rank on every row, :func:`anonset.core.dataset.row_values`)
by value and every other one through its hierarchy, leaf codes mapped to
ancestors level by level.  Mondrian's split criteria cut regions of it, and
selection predicates (:mod:`anonset.core.selections`) are compiled against it,
so the imprecision metric and Mondrian read the same space.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.dataset import Dataset, row_values
from anonset.core.weights import weight_vector

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["AttributeSpace", "attribute_space"]


@dataclass(frozen=True, eq=False)
class AttributeSpace:
    """The quasi-identifiers of a dataset as Mondrian splits them (transposed, as the clustering kernels read them).

    Attributes
    ----------
    quasi : tuple of str
        The quasi-identifiers, in dataset order (the order that breaks ties).
    numeric : numpy.ndarray
        (d,) bool per quasi-identifier: split by value (True) or through its hierarchy.
    column : numpy.ndarray
        (d,) int64 row of the attribute in ``values`` (numeric) or ``codes`` (categorical).
    weight : numpy.ndarray
        (d,) float64 weight multiplying the attribute's normalized range.
    values : numpy.ndarray
        (p, n) float64 values of the numeric attributes.
    span : numpy.ndarray
        (p,) float64 range (max − min) of each numeric attribute over the table.
    codes : numpy.ndarray
        (q, n) int32 leaf codes of the categorical attributes.
    maps : numpy.ndarray
        (q, levels, width) int32 ancestor code of each leaf per level; levels
        above an attribute's root repeat the root (code 0).
    share : numpy.ndarray
        (q, levels, width) float64 normalized range of each node, indexed by
        its code at its level: (leaves under the node − 1) / (leaves − 1),
        0 for a leaf (and for a single-leaf hierarchy).
    top : numpy.ndarray
        (q,) int64 root level (``max_level``) of each categorical attribute's hierarchy.
    """

    quasi: tuple[str, ...]
    numeric: NDArray[np.bool_]
    column: NDArray[np.int64]
    weight: NDArray[np.float64]
    values: NDArray[np.float64]
    span: NDArray[np.float64]
    codes: NDArray[np.int32]
    maps: NDArray[np.int32]
    share: NDArray[np.float64]
    top: NDArray[np.int64]

    @property
    def n_rows(self) -> int:
        """Records of the table."""
        return int(self.values.shape[1] if len(self.values) else self.codes.shape[1])


def attribute_space(dataset: Dataset, weights: Mapping[str, float] | None = None,
                    who: str = "mondrian") -> AttributeSpace:
    """The quasi-identifiers of ``dataset`` in the form Mondrian splits them.

    Parameters
    ----------
    dataset : Dataset
        An in-memory dataset.
    weights : mapping of str to float, optional
        Weight of a quasi-identifier's normalized range (default 1 each),
        checked by :func:`anonset.core.weights.weight_vector`.
    who : str
        Who reads the weights, for messages.

    Raises
    ------
    ConfigError
        A weight for a column that is not a quasi-identifier, a weight that is
        not a finite number >= 0 (a boolean is not a number here), or every
        weight 0.
    """
    quasi = dataset.quasi
    weight = weight_vector(quasi, weights, dataset.source, who=who)
    numeric = np.array([row_values(dataset, q) is not None for q in quasi], dtype=np.bool_)
    column = np.zeros(len(quasi), dtype=np.int64)
    values: list[NDArray[np.float64]] = []
    codes: list[NDArray[np.int32]] = []
    hierarchies = []
    for j, q in enumerate(quasi):
        enc = dataset.encoded[q]
        if numeric[j]:
            column[j] = len(values)
            by_value = row_values(dataset, q)
            assert by_value is not None
            values.append(by_value)
        else:
            column[j] = len(codes)
            codes.append(np.asarray(enc.row_codes(), dtype=np.int32))
            hierarchies.append(dataset.require_hierarchy(q))
    n = dataset.n_rows
    levels = max((h.n_levels for h in hierarchies), default=1)
    width = max((h.n_leaves for h in hierarchies), default=1)
    maps = np.zeros((len(hierarchies), levels, width), dtype=np.int32)
    share = np.zeros((len(hierarchies), levels, width), dtype=np.float64)
    for a, h in enumerate(hierarchies):
        denominator = max(h.n_leaves - 1, 1)
        for lv in range(levels):
            top = min(lv, h.max_level)
            maps[a, lv, : h.n_leaves] = h.maps[top]
            under = h.leaf_counts[top]
            share[a, lv, : len(under)] = (under - 1) / denominator
    value_matrix = np.stack(values) if values else np.zeros((0, n))
    span = (value_matrix.max(axis=1) - value_matrix.min(axis=1)) if values else np.zeros(0)
    return AttributeSpace(
        quasi=quasi, numeric=numeric, column=column, weight=weight,
        values=np.ascontiguousarray(value_matrix), span=span,
        codes=np.ascontiguousarray(np.stack(codes) if codes else np.zeros((0, n), dtype=np.int32)),
        maps=maps, share=share,
        top=np.array([h.max_level for h in hierarchies], dtype=np.int64),
    )
