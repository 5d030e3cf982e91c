"""Selection Mondrian (LeFevre et al., equations 5 and 6): predicates, their imprecision, and the criterion.

A query over a release returns every record whose released region overlaps
the query's hyper-rectangle; the *imprecision* of a predicate over a
partition is the number of records returned that do not satisfy it (summed
over overlapping classes: ``|class| − |class ∩ predicate|``), and the
workload's imprecision is the sum over its predicates (the metric
:func:`anonset.metrics.imprecision.imprecision` measures it for any partition).

:class:`SelectionCriterion` minimizes that sum.  While a region has an
allowable split that strictly lowers the region's imprecision, it yields only
such splits (best first); once none of them is allowable it hands the region
over to the target criterion (InfoGain, LSD, or median without targets): it
records the region's records as handed over and yields the target
criterion's candidates, and every region below it keeps using the target
criterion.  The object therefore holds per-record state and serves a single
Mondrian run.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeType, Dataset
from anonset.core.hierarchy import Hierarchy
from anonset.errors import ConfigError
from anonset.methods.mondrian.criteria import (
    _NUMERIC_TYPES,
    Predicate,
    _cut_positions,
    _hierarchy_candidate,
    _Ranking,
    _sorted,
    _splittable,
)
from anonset.methods.mondrian.split import (
    AttributeSpace,
    CandidateSplit,
    Region,
    SplitCriterion,
)

__all__ = ["SelectionCriterion", "Selections", "compile_selections"]


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

    lo: np.ndarray
    hi: np.ndarray
    leaves: np.ndarray
    hit: np.ndarray
    inside: np.ndarray
    numeric_columns: np.ndarray
    categorical_columns: np.ndarray

    def segments(self, space: AttributeSpace, rows: np.ndarray, starts: np.ndarray) -> np.ndarray:
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

    def cuts(self, space: AttributeSpace, region: Region, order: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Summed imprecision of the two children of each cut (left: the first ``positions`` of ``order``)."""
        rows = region.rows[order]
        m = len(rows)
        left_overlap = np.ones((len(self.lo), len(positions)), dtype=np.bool_)
        right_overlap = left_overlap.copy()
        before, after = positions - 1, positions
        for c in self.numeric_columns:
            v = space.values[c, rows]
            lo, hi = self.lo[:, c, None], self.hi[:, c, None]
            left_overlap &= ((np.minimum.accumulate(v)[before] <= hi) & (np.maximum.accumulate(v)[before] >= lo))
            right_overlap &= ((np.minimum.accumulate(v[::-1])[::-1][after] <= hi)
                              & (np.maximum.accumulate(v[::-1])[::-1][after] >= lo))
        for a in self.categorical_columns:
            leaves = space.codes[a, rows]
            left_level = np.zeros(len(positions), dtype=np.int64)
            right_level = np.zeros(len(positions), dtype=np.int64)
            for lv in range(int(region.level[a])):  # the children's lowest common ancestors lie below the region's
                ancestors = space.maps[a, lv, leaves]
                left_level += ~np.logical_and.accumulate(ancestors == ancestors[0])[before]
                right_level += ~np.logical_and.accumulate((ancestors == ancestors[-1])[::-1])[::-1][after]
            left_overlap &= self.hit[:, a, left_level, space.maps[a, left_level, leaves[0]]]
            right_overlap &= self.hit[:, a, right_level, space.maps[a, right_level, leaves[-1]]]
        inside = np.cumsum(self.inside[:, rows], axis=1)
        in_left = inside[:, before]
        in_right = inside[:, -1:] - in_left
        out = np.where(left_overlap, positions - in_left, 0) + np.where(right_overlap, m - positions - in_right, 0)
        return out.sum(axis=0)


def _labels_under(h: Hierarchy, labels: Sequence[Any], where: str) -> np.ndarray:
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
            if kind in _NUMERIC_TYPES:  # numeric with missing values: split through its hierarchy
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


class SelectionCriterion:
    """Selection Mondrian: splits lowering the predicates' summed imprecision, then the target criterion.

    Candidates while a region is in the selection phase: every strict (or
    relaxed) cut of every numeric attribute and the hierarchy split of every
    categorical one whose children's summed imprecision is strictly below
    the region's, lowest first.  See the module docstring for the hand-over.

    Parameters
    ----------
    selections : Selections
        The compiled predicates.
    then : SplitCriterion
        The criterion for regions no allowable split improves.
    min_size : int
        Smallest allowable child (k).
    """

    name = "selection"

    def __init__(self, selections: Selections, then: SplitCriterion, min_size: int = 1):
        self.selections = selections
        self.then = then
        self.min_size = max(int(min_size), 1)
        self.handed_over = np.zeros(selections.inside.shape[1], dtype=np.bool_)

    def candidates(self, space: AttributeSpace, region: Region, strict: bool) -> Iterator[CandidateSplit]:
        """Improving splits best first, then (region handed over) the target criterion's candidates."""
        if not self.handed_over[region.rows[0]]:
            yield from self._improving(space, region, strict)
            self.handed_over[region.rows] = True
        yield from self.then.candidates(space, region, strict)

    def _improving(self, space: AttributeSpace, region: Region, strict: bool) -> Iterator[CandidateSplit]:
        m = len(region.rows)
        current = int(self.selections.segments(space, region.rows, np.zeros(1, dtype=np.int64)).sum())
        if current == 0:
            return
        ranking = _Ranking(m, self.min_size)
        for j in range(len(space.quasi)):
            if not _splittable(space, region, j):
                continue
            if space.numeric[j]:
                cuts = _sorted(space, region, j, strict)
                positions = ranking.sized(_cut_positions(cuts, strict))
                scores = self.selections.cuts(space, region, cuts.order, positions)
                ranking.add_cuts(cuts, positions[scores < current], scores[scores < current].astype(np.float64))
                continue
            cand = _hierarchy_candidate(space, region, j, self.min_size)
            if cand is None:
                continue
            order = np.argsort(cand.labels, kind="stable")
            starts = np.flatnonzero(np.diff(cand.labels[order], prepend=-1))
            score = int(self.selections.segments(space, region.rows[order], starts).sum())
            if score < current:
                ranking.add_split(cand, float(score))
        yield from ranking
