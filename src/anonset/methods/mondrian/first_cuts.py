"""The first cuts of distributed Mondrian: the top of the tree Mondrian grows, grown on a sample.

Distributed Mondrian (the driver cuts a sample, each worker runs Mondrian on
one fragment) starts here.  :func:`first_cuts` grows the top of the tree
Mondrian's median criterion grows
(:class:`~anonset.methods.mondrian.split.MedianCriterion`, strict), on a
sample of the table: the same candidates in the same order (the attribute of
widest weighted normalized range first, numeric attributes cut at the median,
categorical ones split into the child nodes of the region's lowest common
ancestor in their hierarchy), ranges normalized by the *whole table's* span as
Mondrian on the table normalizes them.  It stops at ``fragments`` leaves,
always cutting the leaf holding the most sample records next.

Which cuts are taken
--------------------
For a region, the cut Mondrian would make is the first candidate whose
children are all allowable: each holds at least k records (estimated as
``c / f`` from its ``c`` sample records at sampling fraction ``f``) and its
sample records satisfy every other model (l-diversity, squared-error
diversity).  That cut is taken only when it also leaves every child room to
spare: each child's size, estimated low as ``(c − 3·√(c·(1 − f))) / f``
(three standard deviations below ``c / f``; the count itself when
``f = 1``), is at least ``margin × m``, where ``m`` is the smallest class the
models allow (``k``, or an l-diversity model's ``l`` when larger) and
``margin`` is 4.  Otherwise the region stays a fragment, and Mondrian on its
worker makes that cut itself.

Why so: Mondrian cuts only a region of at least ``2m`` records, so a fragment
below ``4m`` records can be cut once at most — fragmenting further buys no
parallelism; the three standard deviations keep a fragment's true size above
``4m`` with overwhelming probability.  And because a region's cut is
Mondrian's own cut or none (never the next candidate), the first cuts are the
top of Mondrian's tree: with the whole table as the sample (``f = 1``) the
fragments' trees complete it into the very tree median Mondrian grows on the
table.  (A workload criterion runs within each fragment, below these cuts.)
With a smaller sample a first cut sits at the sample's median, not the
table's.  The driver then counts every fragment exactly on the cluster and
merges one that fails a model with its siblings before any worker runs.

Relaxed Mondrian (``strict: false``) divides records of equal value, which no
threshold on a value expresses; the first cuts are therefore always strict
(the fragments then run with the configured ``strict``).

:func:`table_scales` gives what the cuts measure against from the whole
table's dataset (its value counts): which quasi-identifiers are compared by
value, and their ranges.  The tree itself is a
:class:`~anonset.methods.mondrian.cut_tree.Cut`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.attribute_space import AttributeSpace, attribute_space
from anonset.core.dataset import BY_VALUE_TYPES, Dataset
from anonset.core.stats import RowColumns
from anonset.methods.mondrian.cut_tree import Cut
from anonset.methods.mondrian.split import CandidateSplit, MedianCriterion, describe_region
from anonset.privacy.base import Requirements

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["MARGIN", "first_cuts", "smallest_class", "table_scales"]

#: A fragment must hold at least this many times the smallest allowed class (see the module docstring).
MARGIN = 4.0


def smallest_class(requirements: Requirements) -> int:
    """The fewest records a class can hold under ``requirements``: k, or an l-diversity model's l when larger."""
    sizes = [requirements.k, *(math.ceil(float(getattr(m, "l", 1))) for m in requirements.models)]
    return max(sizes)


def table_scales(dataset: Dataset) -> tuple[frozenset[str], dict[str, float]]:
    """The quasi-identifiers Mondrian compares by value on the whole table, and each one's range (max − min).

    An attribute is compared by value when its type is compared by value and
    every value the table holds has a finite number (a number, date or rank on
    every record).  ``dataset`` is the whole table's, built from its value
    counts.
    """
    by_value: list[str] = []
    spans: dict[str, float] = {}
    for q in dataset.quasi:
        enc = dataset.encoded[q]
        if dataset.specs[q].type not in BY_VALUE_TYPES or enc.numbers is None:
            continue
        present = np.asarray(enc.numbers, dtype=np.float64)[enc.counts() > 0]
        if not bool(np.isfinite(present).all()):
            continue
        by_value.append(q)
        spans[q] = float(present.max() - present.min()) if len(present) else 0.0
    return frozenset(by_value), spans


def first_cuts(sample: Dataset, requirements: Requirements, *, n_rows: int, fragments: int,
               spans: Mapping[str, float], by_value: frozenset[str],
               weights: Mapping[str, float] | None = None, margin: float = MARGIN) -> Cut:
    """The first-cut tree of a table: the top of Mondrian's tree, grown on a sample (see the module docstring).

    Parameters
    ----------
    sample : Dataset
        The sampled records, encoded with the table's hierarchies.
    requirements : Requirements
        The privacy models every fragment must be able to satisfy.
    n_rows : int
        Records in the whole table.
    fragments : int
        Stop once the tree has this many leaves (a categorical cut may overshoot).
    spans : mapping of str to float
        The whole table's range (max − min) of each quasi-identifier compared by value.
    by_value : frozenset of str
        The quasi-identifiers Mondrian compares by value on the whole table;
        one the sample would compare by value but the table does not (its
        missing markers are not in the sample) is not cut here.
    weights : mapping of str to float, optional
        Mondrian's weights of the normalized ranges.
    margin : float
        Multiple of the smallest class a fragment must keep.
    """
    space = _space(sample, spans, by_value, weights)
    fraction = min(1.0, sample.n_rows / max(n_rows, 1))
    floor = margin * smallest_class(requirements)
    others = [m for m in requirements.models if not m.size_only]
    columns = RowColumns.of(sample, requirements.request) if others else None
    criterion = MedianCriterion()
    root = _Node(np.arange(sample.n_rows, dtype=np.int64))
    leaves = [root]
    while len(leaves) < fragments:
        open_leaves = [n for n in leaves if not n.final]
        if not open_leaves:
            break
        node = max(open_leaves, key=lambda n: len(n.rows))  # the first of the largest
        region = describe_region(space, node.rows)
        node.final = True
        for cand in criterion.candidates(space, region, strict=True):
            counts = np.bincount(cand.labels, minlength=len(cand.keys))
            if counts.min() / fraction < requirements.k:
                continue
            if columns is not None:
                stats = columns.stats(node.rows, cand.labels, len(cand.keys))
                if not all(bool(m.satisfied(stats).all()) for m in others):
                    continue
            # Mondrian's cut of this region: taken when every child keeps the margin, else the worker makes it
            if ((counts - 3.0 * np.sqrt(counts * (1.0 - fraction))) / fraction).min() >= floor:
                node.split(cand)
                leaves.remove(node)
                leaves.extend(node.children)
            break
    return root.cut(space)


def _space(sample: Dataset, spans: Mapping[str, float], by_value: frozenset[str],
           weights: Mapping[str, float] | None) -> AttributeSpace:
    """The sample's quasi-identifier space, normalized by the table's spans, without attributes cut otherwise."""
    space = attribute_space(sample, weights)
    span = space.span.copy()
    weight = space.weight.copy()
    for j, q in enumerate(space.quasi):
        if bool(space.numeric[j]) != (q in by_value):
            weight[j] = 0.0
        elif space.numeric[j] and q in spans:
            span[int(space.column[j])] = float(spans[q])
    return replace(space, span=span, weight=weight)


@dataclass(eq=False)
class _Node:
    """A region of the sample while the tree grows: its records, and once cut its cut and children."""

    rows: NDArray[np.int64]
    final: bool = False
    cand: CandidateSplit | None = None
    children: list[_Node] = field(default_factory=list)

    def split(self, cand: CandidateSplit) -> None:
        self.cand = cand
        self.children = [_Node(self.rows[cand.labels == u]) for u in range(len(cand.keys))]

    def cut(self, space: AttributeSpace) -> Cut:
        """This node as a :class:`Cut` (categorical: a branch the sample did not hold goes to the smallest child)."""
        cand = self.cand
        if cand is None:
            return Cut()
        children = tuple(c.cut(space) for c in self.children)
        name = space.quasi[cand.attribute]
        if cand.level < 0:
            return Cut(attribute=name, threshold=float(cand.threshold), children=children)
        smallest = int(np.argmin([len(c.rows) for c in self.children]))
        return Cut(attribute=name, level=int(cand.level), keys=tuple(int(k) for k in cand.keys), default=smallest,
                   children=children)
