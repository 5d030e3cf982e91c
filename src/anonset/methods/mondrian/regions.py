"""Mondrian multidimensional partitioning (LeFevre, DeWitt and Ramakrishnan): median and workload-aware criteria.

Greedy recursive partitioning of the quasi-identifier space (Figure 3 of
LeFevre et al., "Workload-aware anonymization", KDD 2006): a region is split
while some split is *allowable*, that is while every child region satisfies
every privacy model of the :class:`~anonset.privacy.base.Requirements`; a
region with no allowable split becomes an equivalence class.

- Numeric, date and ordinal quasi-identifiers with a number, date or rank (in
  the attribute's order) on every row are split at a threshold: left
  ``value <= t``, right ``value > t``; a class releases the range of its
  values.  Every other quasi-identifier (categorical, or one with a missing
  marker) is split along its hierarchy: a region holds a node (the lowest common ancestor
  of its records' leaves) and splitting it gives one child region per child
  node that holds records.
- Which split to try is the job of a :class:`~anonset.methods.mondrian.split.SplitCriterion`;
  ``median`` (:class:`~anonset.methods.mondrian.split.MedianCriterion`)
  tries the attributes in decreasing order of weighted normalized range and
  cuts a numeric one at its median; the workload-aware ``infogain``, ``lsd``
  and ``selection`` (:mod:`anonset.methods.mondrian.criteria`) choose the
  split by the class entropy or squared error of target columns, or by the
  imprecision of selection predicates.
- ``strict`` (default): records with the same value of the split attribute
  always go to the same side.  Relaxed: the median's records may be divided
  so the two sides hold ``m // 2`` and ``m − m // 2`` records (the other
  criteria may then cut anywhere in the sorted order).
- Nothing is suppressed: ``max_suppression`` must be 0, and the whole table
  must satisfy the models (else :class:`~anonset.errors.InfeasibleError`).

Candidate children are judged by the models themselves (their class
statistics, :class:`~anonset.core.stats.ClassStats`), so every model works.
The recursion runs compiled whenever it can
(:mod:`anonset.methods.mondrian.compiled.paths` says when): the median criterion
under k-anonymity alone in the median kernel
(:mod:`anonset.methods.mondrian.compiled.kernel`), every built-in criterion under the
per-class models anonset defines in the general kernel
(:mod:`anonset.methods.mondrian.compiled.grow`).  Any other criterion object or model
runs :func:`_grow`, a Python loop over regions with numpy per region: the
reference implementation, which the compiled paths reproduce exactly.  All
keep the rows in one index array, each region a contiguous segment
partitioned in place.

The result, :class:`MondrianTree`, is a :class:`~anonset.core.grouping.Grouping`:
the class of every fitted record, numbered ``0 .. c - 1`` by first row, and
:meth:`MondrianTree.assign`, which places new records by descending the tree.
Thresholds cover every number, but a categorical split has children only for
the branches its region's records had: a new record in another branch (or
with a leaf or number the fitted data cannot place) is suppressed (−1) rather
than put in a class whose cell does not contain it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.attribute_space import AttributeSpace, attribute_space
from anonset.core.dataset import Dataset
from anonset.core.selections import Predicate
from anonset.core.stats import ClassStats, RowColumns
from anonset.errors import ConfigError, InfeasibleError
from anonset.methods.mondrian.compiled.kernel import GrownKernel, grow_k_anonymous
from anonset.methods.mondrian.compiled.paths import compiled_grow, kernel_space
from anonset.methods.mondrian.split import MedianCriterion, SplitCriterion, describe_region
from anonset.methods.mondrian.tree import MondrianTree, RegionBoxes, TreeNodes
from anonset.methods.mondrian.workload import (
    Workload,
    infogain_criterion,
    lsd_criterion,
    median_criterion,
    selection_criterion,
)
from anonset.privacy.base import Requirements
from anonset.privacy.kanonymity import KAnonymity
from anonset.progress import task as progress_task

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["CRITERIA", "MondrianTree", "RegionBoxes", "TreeNodes", "mondrian"]

#: Split criteria by name: each makes a :class:`~anonset.methods.mondrian.split.SplitCriterion` for a
#: :class:`~anonset.methods.mondrian.workload.Workload` (and checks the targets and selections it was given).
CRITERIA: dict[str, Callable[[Workload], SplitCriterion]] = {
    "median": median_criterion,
    "infogain": infogain_criterion,
    "lsd": lsd_criterion,
    "selection": selection_criterion,
}


def mondrian(dataset: Dataset, requirements: Requirements, *, seed: int = 0,
             weights: Mapping[str, float] | None = None, strict: bool = True,
             criterion: str | SplitCriterion = "median", targets: str | Sequence[str] | None = None,
             selections: Sequence[Predicate] | None = None) -> MondrianTree:
    """Partition the records by Mondrian: greedy recursive splits of the quasi-identifier space.

    Parameters
    ----------
    dataset : Dataset
        An in-memory dataset.
    requirements : Requirements
        Privacy models every class must satisfy; ``max_suppression`` must be 0.
    seed : int
        Accepted for the signature shared by the partitioning methods; every
        criterion is deterministic and none uses it.
    weights : mapping of str to float, optional
        Per quasi-identifier factor on its normalized range (default 1); an
        attribute of weight 0 is never split.  Each weight is a finite number
        >= 0 and not all are 0 (:func:`anonset.core.weights.weight_vector`).
    strict : bool
        Strict Mondrian (records with equal values never divided by a
        numeric split) or relaxed (the median's records divided to balance the sides).
    criterion : str or SplitCriterion
        ``"median"``, ``"infogain"``, ``"lsd"``, ``"selection"`` (see
        :data:`CRITERIA`) or a criterion object.
    targets : str or sequence of str, optional
        Target columns of ``infogain`` (categorical), ``lsd`` (declared
        numeric) and ``selection``; default the columns with role ``target``.
        A target is neither a quasi-identifier nor sensitive.
    selections : sequence of mapping, optional
        Predicates of ``selection`` (at least one), each mapping
        quasi-identifiers to a closed range ``[lo, hi]`` (numeric, date) or
        labels of values or hierarchy nodes (categorical), e.g.
        ``[{"age": [20, 39], "sex": ["M"]}]``.

    Returns
    -------
    MondrianTree
        The classes of the records and the tree.

    Raises
    ------
    ConfigError
        ``max_suppression`` is not 0, an unknown criterion, bad weights, bad
        model parameters (``validate`` of each model but k-anonymity), or bad
        targets or selections (unknown column, a target of the wrong kind or
        with one class, a predicate on a non-quasi-identifier or with an empty
        range, no predicate for ``selection``, targets or selections the
        criterion does not use).
    InfeasibleError
        The whole table does not satisfy a model (for instance k larger than the table).
    anonset.errors.DataError
        The rows are not in memory.
    """
    if requirements.max_suppression:
        raise ConfigError(f"mondrian suppresses no records; set max_suppression to 0"
                          f" (got {requirements.max_suppression:g})")
    for model in requirements.models:
        if not isinstance(model, KAnonymity):
            model.validate(dataset)
    # progress by phase: the regions are cut inside one compiled call
    with progress_task("mondrian: preparing", total=3, unit="phases") as bar:
        space = attribute_space(dataset, weights)
        named = (targets,) if isinstance(targets, str) else None if targets is None else tuple(targets)
        if isinstance(selections, Mapping):
            raise ConfigError("mondrian: selections must be a non-empty list of predicates such as"
                              " [{age: [20, 39], sex: [M]}]; got a single mapping")
        predicates = None if selections is None else tuple(selections)
        split = _criterion(criterion, Workload(dataset, space, named, predicates, requirements.k))
        judge = _ChildJudge(dataset, requirements)
        n = dataset.n_rows
        whole = judge.stats(np.arange(n), np.zeros(n, dtype=np.int64), 1)
        for model in requirements.models:
            if not model.satisfied(whole)[0]:
                raise InfeasibleError(f"the whole table ({n} records) does not satisfy {model.describe()}, so no"
                                      " Mondrian partition can; relax the requirements or use more data")
        bar.update(completed=1, description=f"mondrian: cutting ({split.name})")
        kernel = compiled_cuts(dataset, space, requirements, split, strict)
        grown = _grow(space, judge, requirements.k, split, strict) if kernel is None else _from_kernel(kernel)
        bar.update(completed=2, description="mondrian: assembling")
        tree = _assemble(dataset, space, grown, strict, split.name)
        bar.update(completed=3)
    return tree


def compiled_cuts(dataset: Dataset, space: AttributeSpace, requirements: Requirements, split: SplitCriterion,
                  strict: bool) -> GrownKernel | None:
    """The regions cut by a compiled kernel, or None when none has a form for these models and this criterion.

    The median under class-size floors alone has a kernel of its own; any
    other criterion and set of models the general kernel, when it knows them
    (:func:`~anonset.methods.mondrian.compiled.paths.compiled_grow`).  ``None``:
    the Python loop over regions cuts them (the reference the kernels are tested against).
    """
    if type(split) is MedianCriterion and requirements.size_only:
        return grow_k_anonymous(kernel_space(space), space.n_rows, requirements.k, strict)
    return compiled_grow(dataset, space, requirements, split, strict)


def _criterion(criterion: str | SplitCriterion, work: Workload) -> SplitCriterion:
    if not isinstance(criterion, str):
        if work.targets is not None or work.selections is not None:
            raise ConfigError("mondrian: targets and selections go with a criterion name; a criterion object"
                              " carries its own")
        return criterion
    if criterion not in CRITERIA:
        raise ConfigError(f"unknown Mondrian criterion {criterion!r}; use {' | '.join(CRITERIA)}")
    return CRITERIA[criterion](work)


class _ChildJudge:
    """Class statistics of candidate child regions, and whether all models accept them.

    The per-record columns are read once (:class:`~anonset.core.stats.RowColumns`) and each candidate is
    judged on its region's records only, so judging costs the region's size rather than the table's.
    """

    def __init__(self, dataset: Dataset, requirements: Requirements):
        self.models = requirements.models
        self.columns = RowColumns.of(dataset, requirements.request)

    def stats(self, rows: NDArray[np.int64], labels: NDArray[np.int64], n_children: int) -> ClassStats:
        """Statistics of the children ``labels`` (0 .. n_children − 1) of the records ``rows``."""
        return self.columns.stats(rows, labels, n_children)

    def allowable(self, rows: NDArray[np.int64], labels: NDArray[np.int64], n_children: int) -> bool:
        """True when every child satisfies every model."""
        stats = self.stats(rows, labels, n_children)
        return all(bool(m.satisfied(stats).all()) for m in self.models)


@dataclass(frozen=True, eq=False)
class _Grown:
    """A grown tree before numbering: rows grouped by leaf, per node its segment, split and cuts."""

    rows: NDArray[np.int64]
    parent: NDArray[np.int64]
    key: NDArray[np.int64]
    split_attr: NDArray[np.int64]
    threshold: NDArray[np.float64]
    split_level: NDArray[np.int64]
    start: NDArray[np.int64]
    end: NDArray[np.int64]
    cut_low: NDArray[np.float64]
    cut_high: NDArray[np.float64]
    node_level: NDArray[np.int64]
    node_code: NDArray[np.int64]


def _from_kernel(tree: GrownKernel) -> _Grown:
    """A tree grown by a compiled kernel, its node arrays cut to the nodes grown."""
    used = slice(0, tree.n_nodes)
    return _Grown(rows=tree.rows, parent=tree.parent[used], key=tree.key[used], split_attr=tree.split_attr[used],
                  threshold=tree.threshold[used], split_level=tree.split_level[used], start=tree.start[used],
                  end=tree.end[used], cut_low=tree.cut_low[used], cut_high=tree.cut_high[used],
                  node_level=tree.node_level[used], node_code=tree.node_code[used])


def _grow(space: AttributeSpace, judge: _ChildJudge, k: int, criterion: SplitCriterion, strict: bool) -> _Grown:
    """The tree for any models and criterion: a Python loop over regions, numpy within each (the reference)."""
    n = space.n_rows
    p, q = len(space.values), len(space.codes)
    rows = np.arange(n)
    parent, key, split_attr, split_level, start, end = [-1], [0], [-1], [-1], [0], [n]
    threshold = [float("nan")]
    cut_low, cut_high = [np.full(p, -np.inf)], [np.full(p, np.inf)]
    node_level, node_code = [space.top.copy()], [np.zeros(q, dtype=np.int64)]
    stack = [0]
    while stack:
        node = stack.pop()
        s, e = start[node], end[node]
        if e - s < 2 * k:  # no split can leave k records on each side
            continue
        region = describe_region(space, rows[s:e].copy())
        for cand in criterion.candidates(space, region, strict):
            n_children = len(cand.keys)
            sizes = np.bincount(cand.labels, minlength=n_children)
            if sizes.min() < k or not judge.allowable(region.rows, cand.labels, n_children):
                continue
            rows[s:e] = region.rows[np.argsort(cand.labels, kind="stable")]
            split_attr[node], threshold[node], split_level[node] = cand.attribute, cand.threshold, cand.level
            bounds = s + np.concatenate([[0], np.cumsum(sizes)])
            col = space.column[cand.attribute]
            for u in range(n_children):
                low, high = cut_low[node].copy(), cut_high[node].copy()
                level, code = node_level[node].copy(), node_code[node].copy()
                if space.numeric[cand.attribute]:
                    (high if cand.keys[u] == 0 else low)[col] = cand.threshold
                else:
                    level[col], code[col] = cand.level, cand.keys[u]
                stack.append(len(parent))
                parent.append(node)
                key.append(int(cand.keys[u]))
                split_attr.append(-1)
                split_level.append(-1)
                threshold.append(float("nan"))
                start.append(int(bounds[u]))
                end.append(int(bounds[u + 1]))
                cut_low.append(low)
                cut_high.append(high)
                node_level.append(level)
                node_code.append(code)
            break
    return _Grown(rows=rows, parent=np.array(parent, dtype=np.int64), key=np.array(key, dtype=np.int64),
                  split_attr=np.array(split_attr, dtype=np.int64), threshold=np.array(threshold),
                  split_level=np.array(split_level, dtype=np.int64), start=np.array(start, dtype=np.int64),
                  end=np.array(end, dtype=np.int64), cut_low=np.stack(cut_low),
                  cut_high=np.stack(cut_high), node_level=np.stack(node_level), node_code=np.stack(node_code))


def _assemble(dataset: Dataset, space: AttributeSpace, grown: _Grown, strict: bool, criterion: str) -> MondrianTree:
    """Number the leaves by first row and compute their boxes (segment reductions, no per-class loop)."""
    leaves = np.flatnonzero(grown.split_attr < 0)
    leaves = leaves[np.argsort(grown.start[leaves])]
    starts = grown.start[leaves]
    sizes = grown.end[leaves] - starts
    rows = grown.rows
    by_first_row = np.argsort(np.minimum.reduceat(rows, starts))
    class_of = np.empty(len(leaves), dtype=np.int64)
    class_of[by_first_row] = np.arange(len(leaves))
    row_class = np.empty(len(rows), dtype=np.int64)
    row_class[rows] = np.repeat(class_of, sizes)
    node_class = np.full(len(grown.parent), -1, dtype=np.int64)
    node_class[leaves] = class_of
    ordered = leaves[by_first_row]  # leaf node of class 0, 1, ...
    c, d = len(leaves), len(space.quasi)
    lower, upper, low, high = (np.full((c, d), np.nan) for _ in range(4))
    node_level, node_code, lca_level, lca_code = (np.full((c, d), -1, dtype=np.int64) for _ in range(4))
    for j in range(d):
        col = int(space.column[j])
        if space.numeric[j]:
            values = space.values[col, rows]
            lower[:, j] = grown.cut_low[ordered, col]
            upper[:, j] = grown.cut_high[ordered, col]
            low[:, j] = np.minimum.reduceat(values, starts)[by_first_row]
            high[:, j] = np.maximum.reduceat(values, starts)[by_first_row]
            continue
        node_level[:, j] = grown.node_level[ordered, col]
        node_code[:, j] = grown.node_code[ordered, col]
        leaf_codes = space.codes[col, rows]
        found = np.zeros(c, dtype=np.bool_)
        for lv in range(space.maps.shape[1]):
            ancestors = space.maps[col, lv, leaf_codes]
            first = np.minimum.reduceat(ancestors, starts)[by_first_row]
            uniform = (first == np.maximum.reduceat(ancestors, starts)[by_first_row]) & ~found
            lca_level[uniform, j] = lv
            lca_code[uniform, j] = first[uniform]
            found |= uniform
    nodes = TreeNodes(parent=grown.parent, key=grown.key, split_attr=grown.split_attr, threshold=grown.threshold,
                      split_level=grown.split_level, node_class=node_class)
    maps = tuple(() if space.numeric[j] else tuple(dataset.require_hierarchy(q).maps)
                 for j, q in enumerate(space.quasi))
    return MondrianTree(quasi=space.quasi, row_class=row_class,
                        boxes=RegionBoxes(lower=lower, upper=upper, node_level=node_level, node_code=node_code,
                                          low=low, high=high, lca_level=lca_level, lca_code=lca_code),
                        nodes=nodes, strict=strict, criterion=criterion, numeric=space.numeric, maps=maps)
