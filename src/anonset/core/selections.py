"""Selection predicates: the hyper-rectangles of a query workload, compiled against the attribute space.

A predicate constrains some quasi-identifiers: a numeric or date attribute
with a closed range ``[lo, hi]``, a categorical or ordinal one with a label
or a list of labels (leaves or hierarchy nodes, standing for the leaves under
them; an ordinal one's labels must cover one run of consecutive values).  A
query over a release returns every record whose released region overlaps the
predicate (LeFevre et al., "Workload-Aware Anonymization", equations 5 and 6).
Mondrian's selection criterion and the imprecision metric
(:mod:`anonset.metrics.imprecision`) read the same compiled form.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.core.attribute_space import AttributeSpace
from anonset.core.dataset import Dataset
from anonset.core.hierarchy import Hierarchy
from anonset.core.specs import AttributeType
from anonset.errors import ConfigError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["RANGE_TYPES", "Predicate", "Selections", "compile_selections"]

#: A selection predicate: ``{attribute: [lo, hi] | label | [label, ...]}``.
Predicate = Mapping[str, Any]

#: Attribute types a predicate constrains by a range.
RANGE_TYPES = (AttributeType.NUMERIC, AttributeType.DATE)


@dataclass(frozen=True, eq=False)
class Selections:
    """Hyper-rectangular selection predicates compiled against an :class:`AttributeSpace`.

    Attributes
    ----------
    lo, hi : numpy.ndarray
        (P, p) float64 closed range of each predicate on each numeric column (±inf when unconstrained).
    leaves : numpy.ndarray
        (P, q, width) bool leaves each predicate accepts on each categorical column (all when unconstrained).
    hit : numpy.ndarray
        (P, q, levels, width) bool: the hierarchy node (level, code) has a leaf the predicate accepts.
    inside : numpy.ndarray
        (P, n) bool: the record satisfies the predicate.
    numeric_columns, categorical_columns : numpy.ndarray
        int64 columns some predicate constrains (the others overlap every predicate).
    """

    lo: NDArray[np.float64]
    hi: NDArray[np.float64]
    leaves: NDArray[np.bool_]
    hit: NDArray[np.bool_]
    inside: NDArray[np.bool_]
    numeric_columns: NDArray[np.int64]
    categorical_columns: NDArray[np.int64]

    def segments(self, space: AttributeSpace, rows: NDArray[np.int64], starts: NDArray[np.int64]) -> NDArray[np.int64]:
        """(P, S) imprecision of each predicate over the groups ``rows[starts[s]:starts[s + 1]]``."""
        overlap = np.ones((len(self.lo), len(starts)), dtype=np.bool_)
        for c in self.numeric_columns:
            v = space.values[c, rows]
            low, high = np.minimum.reduceat(v, starts), np.maximum.reduceat(v, starts)
            overlap &= (low <= self.hi[:, c, None]) & (high >= self.lo[:, c, None])
        for a in self.categorical_columns:
            leaves = space.codes[a, rows]
            level = np.zeros(len(starts), dtype=np.int64)
            node = np.zeros(len(starts), dtype=np.int64)
            found = np.zeros(len(starts), dtype=np.bool_)
            for lv in range(space.maps.shape[1]):
                ancestors = space.maps[a, lv, leaves]
                first = np.minimum.reduceat(ancestors, starts)
                uniform = (first == np.maximum.reduceat(ancestors, starts)) & ~found
                level[uniform], node[uniform] = lv, first[uniform]
                found |= uniform
            overlap &= self.hit[:, a, level, node]
        sizes = np.diff(np.append(starts, len(rows)))
        inside = np.add.reduceat(self.inside[:, rows], starts, axis=1)
        return np.where(overlap, sizes - inside, 0)



def _labels_under(h: Hierarchy, labels: Sequence[Any], where: str) -> NDArray[np.bool_]:
    """Leaves under any of the hierarchy nodes (or leaves) labelled ``labels``."""
    accepted = np.zeros(h.n_leaves, dtype=np.bool_)
    for label in labels:
        matched = False
        for lv in range(h.n_levels):
            codes = np.flatnonzero(h.labels[lv].astype(str) == str(label))
            if len(codes):
                accepted |= np.isin(h.maps[lv], codes)
                matched = True
        if not matched:
            raise ConfigError(f"{where}: {label!r} is no value or hierarchy node of {h.name!r}; values are"
                              f" {', '.join(map(str, h.labels[0][:8]))}{' ...' if h.n_leaves > 8 else ''}")
    return accepted


def _bounds(value: Any, kind: AttributeType, where: str) -> tuple[float, float]:
    """A closed range ``[lo, hi]`` of numbers (or ISO dates for a date attribute)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise ConfigError(f"{where}: give a range [lo, hi]; got {value!r}")
    try:
        if kind is AttributeType.DATE:
            lo, hi = ((pd.Timestamp(str(v)) - pd.Timestamp("1970-01-01")).days for v in value)
        else:
            lo, hi = float(value[0]), float(value[1])
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: the range {list(value)!r} is not two numbers"
                          f"{' (dates)' if kind is AttributeType.DATE else ''}; give [lo, hi]") from None
    if not lo <= hi:
        raise ConfigError(f"{where}: the range [{value[0]}, {value[1]}] is empty; give lo <= hi")
    return float(lo), float(hi)


def _rank_bounds(dataset: Dataset, name: str, value: Any, where: str) -> tuple[float, float]:
    """The rank range of an ordinal predicate: labels (leaves or nodes) whose values are one run of the order."""
    labels = [value] if isinstance(value, (str, int, float)) else list(value)
    if not labels:
        raise ConfigError(f"{where}: no values; give at least one value or hierarchy node")
    h = dataset.require_hierarchy(name)
    numbers = dataset.encoded[name].numbers
    assert numbers is not None
    ranks = np.asarray(numbers[: h.n_leaves], dtype=np.float64)[_labels_under(h, labels, where)]
    ranks = np.unique(ranks[np.isfinite(ranks)])
    if len(ranks) == 0:
        raise ConfigError(f"{where}: the values named have no place in the attribute's order")
    if ranks[-1] - ranks[0] + 1 != len(ranks):
        raise ConfigError(f"{where}: the values named are not one run of the attribute's order; an ordinal"
                          " attribute is selected by a range of consecutive values")
    return float(ranks[0]), float(ranks[-1])


def compile_selections(dataset: Dataset, space: AttributeSpace, predicates: Sequence[Predicate]) -> Selections:
    """Selection predicates in array form (see :data:`Predicate`).

    Parameters
    ----------
    dataset : Dataset
        The dataset (for attribute types and hierarchies).
    space : AttributeSpace
        Its quasi-identifiers as Mondrian splits them.
    predicates : sequence of Predicate
        At least one; each constrains at least one quasi-identifier.  A
        numeric or date attribute takes a closed range ``[lo, hi]``; a
        categorical or ordinal one a label or a list of labels, each a leaf or
        a hierarchy node (standing for the leaves under it); an ordinal one's
        labels must cover one run of consecutive values of its order.

    Raises
    ------
    ConfigError
        No predicate, an empty predicate, an attribute that is not a
        quasi-identifier, an empty or malformed range, an unknown label.
    """
    if isinstance(predicates, Mapping) or not predicates:
        raise ConfigError("mondrian: selections must be a non-empty list of predicates such as"
                          " [{age: [20, 39], sex: [M]}]")
    n_pred, (p, n), (q, levels, width) = len(predicates), space.values.shape, space.maps.shape
    lo, hi = np.full((n_pred, p), -np.inf), np.full((n_pred, p), np.inf)
    n_leaves = [dataset.require_hierarchy(name).n_leaves for j, name in enumerate(space.quasi) if not space.numeric[j]]
    leaves = np.zeros((n_pred, q, width), dtype=np.bool_)
    for a in range(q):
        leaves[:, a, : n_leaves[a]] = True
    for i, predicate in enumerate(predicates):
        if not isinstance(predicate, Mapping) or not predicate:
            raise ConfigError(f"mondrian: selection #{i + 1} constrains no attribute; give a mapping such as"
                              " {age: [20, 39]}")
        for name, value in predicate.items():
            where = f"mondrian: selection #{i + 1} on {name!r}"
            if name not in space.quasi:
                raise ConfigError(f"{where}: not a quasi-identifier; predicates constrain the quasi-identifiers"
                                  f" ({', '.join(space.quasi)})")
            j = space.quasi.index(name)
            c = int(space.column[j])
            kind = dataset.specs[name].type
            if space.numeric[j] and kind is AttributeType.ORDINAL:
                lo[i, c], hi[i, c] = _rank_bounds(dataset, name, value, where)
                continue
            if space.numeric[j]:
                lo[i, c], hi[i, c] = _bounds(value, kind, where)
                continue
            h = dataset.require_hierarchy(name)
            if kind in RANGE_TYPES:  # numeric with missing values: split through its hierarchy
                low, high = _bounds(value, kind, where)
                numbers = dataset.encoded[name].numbers
                assert numbers is not None
                accepted = (numbers[: h.n_leaves] >= low) & (numbers[: h.n_leaves] <= high)
            else:
                labels = [value] if isinstance(value, (str, int, float)) else list(value)
                if not labels:
                    raise ConfigError(f"{where}: no values; give at least one value or hierarchy node")
                accepted = _labels_under(h, labels, where)
            leaves[i, c, : h.n_leaves] = accepted
    hit = np.zeros((n_pred, q, levels, width), dtype=np.bool_)
    for a in range(q):
        for lv in range(levels):
            for i in range(n_pred):
                hit[i, a, lv] = np.bincount(space.maps[a, lv], weights=leaves[i, a], minlength=width) > 0
    inside = np.ones((n_pred, n), dtype=np.bool_)
    for c in range(p):
        inside &= (space.values[c] >= lo[:, c, None]) & (space.values[c] <= hi[:, c, None])
    for a in range(q):
        inside &= leaves[:, a, space.codes[a]]
    numeric_columns = np.flatnonzero(np.isfinite(lo).any(axis=0) | np.isfinite(hi).any(axis=0))
    constrained = [a for a in range(q) if not leaves[:, a, : n_leaves[a]].all()]
    return Selections(lo=lo, hi=hi, leaves=leaves, hit=hit, inside=inside, numeric_columns=numeric_columns,
                      categorical_columns=np.array(constrained, dtype=np.int64))
