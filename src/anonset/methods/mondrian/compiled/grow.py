"""The compiled Mondrian loop for any criterion and the per-class privacy models (numba).

:func:`grow` runs the region loop of the Python reference
(:func:`anonset.methods.mondrian.regions._grow`) in one kernel: regions
are taken from a stack in the same order, each region's candidate splits
come from its criterion (:func:`anonset.methods.mondrian.fill.fill`) and are
tried best first, and the first whose children all satisfy the models
(:mod:`anonset.methods.mondrian.compiled.judge`) is applied.  The kernel first keeps
only the best candidate; only when that one is not allowable does it offer
them all again (:mod:`anonset.methods.mondrian.compiled.offers`) and look for the best
allowable one: with models that read histograms only, in one pass per
attribute that judges every cut from running counts (:func:`_sweep`); with
squared-error diversity, whose sums must be taken in row order, candidate
by candidate, best first.
Under k-anonymity alone the best candidate is always allowable (candidates
leaving a child below k are never offered), so nothing is judged.

Every built-in criterion reaches :func:`grow` as one type
(:class:`~anonset.methods.mondrian.compiled.fill.CriterionArrays`), and the
models as one type too (:class:`~anonset.methods.mondrian.compiled.judge.ModelArrays`,
holding no model under k-anonymity alone), so numba compiles it once.  The tree comes back as the median
kernel's :class:`~anonset.methods.mondrian.kernel.GrownKernel`: same nodes,
same numbering, same segments as the Python path grows.

The loop's helpers here, and each criterion's ``*_fill``, are inlined into it by numba
(``inline='always'``): compiled once, as part of :func:`grow`, instead of once on their own and again
where they are linked in: about a quarter off the kernel's compilation (docs/benchmarks.md), nothing off
its speed (InfoGain Mondrian on 200,000 records timed before and after: within the runs' spread).  Helpers
that other kernels call too are not inlined: that made the compilation slower.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numba
import numpy as np

from anonset.methods.mondrian.compiled.fill import CriterionArrays, fill, phases
from anonset.methods.mondrian.compiled.judge import ModelArrays, all_satisfied, children_stats
from anonset.methods.mondrian.compiled.kernel import GrownKernel, KernelSpace, _inherit
from anonset.methods.mondrian.compiled.offers import (
    COUNT,
    Offers,
    before,
    heapify,
    keep_best,
    keep_every,
    new_offers,
    pop,
)
from anonset.methods.mondrian.compiled.segments import (
    Segments,
    cut_labels,
    describe,
    hierarchy_children,
    new_segments,
    partition,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["grow"]


class _Judge(NamedTuple):
    """The models and the buffers for the class statistics of a candidate's children.

    ``total`` holds a region's histograms, ``slot`` (per position, −1 between uses) the candidate cutting there.
    """

    models: ModelArrays
    sizes: NDArray[np.int64]
    hist: NDArray[np.int64]
    sums: NDArray[np.float64]
    sumsq: NDArray[np.float64]
    scratch: NDArray[np.float64]
    total: NDArray[np.int64]
    slot: NDArray[np.int64]


class _Tree(NamedTuple):
    """The nodes grown so far (as :class:`~anonset.methods.mondrian.kernel.GrownKernel`), the stack, each phase.

    ``phase[node]`` is the criterion phase a node's region starts in (its parent's split's phase);
    ``state`` holds the nodes grown and the depth of the stack.
    """

    parent: NDArray[np.int64]
    split_attr: NDArray[np.int64]
    split_level: NDArray[np.int64]
    key: NDArray[np.int64]
    start: NDArray[np.int64]
    end: NDArray[np.int64]
    threshold: NDArray[np.float64]
    cut_low: NDArray[np.float64]
    cut_high: NDArray[np.float64]
    node_level: NDArray[np.int64]
    node_code: NDArray[np.int64]
    phase: NDArray[np.int64]
    stack: NDArray[np.int64]
    bounds: NDArray[np.int64]
    state: NDArray[np.int64]


@numba.njit(cache=True, nogil=True, inline='always')
def _new_tree(space: KernelSpace, n: int, k: int, width: int) -> _Tree:  # pragma: no cover - compiled
    """Room for every node a tree of n records and classes of at least k can have; the root on the stack."""
    p = space.values.shape[0]
    q = space.codes.shape[0]
    cap = 2 * (n // k) + 1
    tree = _Tree(np.full(cap, -1, dtype=np.int64), np.full(cap, -1, dtype=np.int64), np.full(cap, -1, dtype=np.int64),
                 np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int64),
                 np.full(cap, np.nan), np.full((cap, p), -np.inf), np.full((cap, p), np.inf),
                 np.zeros((cap, q), dtype=np.int64), np.zeros((cap, q), dtype=np.int64), np.zeros(cap, dtype=np.int64),
                 np.zeros(cap, dtype=np.int64), np.zeros(width + 1, dtype=np.int64), np.ones(2, dtype=np.int64))
    for a in range(q):
        tree.node_level[0, a] = space.top[a]
    tree.end[0] = n
    return tree


@numba.njit(cache=True, nogil=True, inline='always')
def _new_judge(models: ModelArrays, width: int, n: int) -> _Judge:  # pragma: no cover - compiled
    g = models.moments.shape[0]
    counts = int(models.width.sum())
    return _Judge(models, np.zeros(width, dtype=np.int64), np.zeros((width, counts), dtype=np.int64),
                  np.zeros((g, width)), np.zeros((g, width)), np.zeros(4 * max(models.reference.shape[1], 1)),
                  np.zeros(counts, dtype=np.int64), np.full(n, -1, dtype=np.int64))


@numba.njit(cache=True, nogil=True, inline='always')
def _children(space: KernelSpace, seg: Segments, s: int, e: int, j: int, position: int) -> int:  # pragma: no cover
    """Label the region's records by the children of candidate (j, position); the number of children."""
    c = space.column[j]
    if space.numeric[j]:
        cut_labels(seg, c, s, e, position)
        return 2
    return hierarchy_children(space, seg, s, e, c)


@numba.njit(cache=True, nogil=True, inline='always')
def _allowable(judge: _Judge, space: KernelSpace, seg: Segments, s: int, e: int, j: int,
               position: int) -> int:  # pragma: no cover - compiled
    """Label the children of candidate (j, position); their number when all satisfy every model, else 0."""
    n_children = _children(space, seg, s, e, j, position)
    children_stats(judge.models, seg.rows, s, e, seg.label, n_children, judge.sizes, judge.hist, judge.sums,
                   judge.sumsq)
    if all_satisfied(judge.models, n_children, judge.sizes, judge.hist, judge.sums, judge.sumsq, judge.scratch):
        return n_children
    return 0


@numba.njit(cache=True, nogil=True, inline='always')
def _try_in_order(offers: Offers, judge: _Judge, space: KernelSpace, seg: Segments, s: int,
                  e: int) -> tuple[int, int]:  # pragma: no cover - compiled
    """The first allowable of every offered candidate but the best (judged already): (candidate, children) or −1."""
    heapify(offers)
    pop(offers)
    candidate = pop(offers)
    while candidate >= 0:
        n_children = _allowable(judge, space, seg, s, e, offers.attribute[candidate], offers.position[candidate])
        if n_children:
            return candidate, n_children
        candidate = pop(offers)
    return -1, 0


@numba.njit(cache=True, nogil=True, inline='always')
def _cut_allowable(judge: _Judge, offers: Offers, seg: Segments, c: int, s: int, e: int,
                   best: int) -> int:  # pragma: no cover - compiled
    """Judge from running counts the cuts of numeric column c offered in ``judge.slot``; the best allowable.

    One pass over c's order keeps the counts left of the cut in ``hist[0]`` and the rest in ``hist[1]``
    (the region's ``total`` minus them), so each cut is judged without looking at its records; a cut the
    best allowable candidate so far (``best``) is preferred to is not judged at all.
    """
    models = judge.models
    m = e - s
    two = int(2)  # noqa: UP018 - typed, not a literal: numba would compile all_satisfied once more for a literal
    left = judge.hist[0]
    right = judge.hist[1]
    left[:] = 0
    for i in range(m):
        candidate = judge.slot[i]
        if candidate >= 0 and (best < 0 or before(offers, candidate, best)):
            for x in range(len(left)):
                right[x] = judge.total[x] - left[x]
            judge.sizes[0] = i
            judge.sizes[1] = m - i
            if all_satisfied(models, two, judge.sizes, judge.hist, judge.sums, judge.sumsq, judge.scratch):
                best = candidate
        r = seg.order[c, s + i]
        for a in range(models.codes.shape[0]):
            left[models.offset[a] + models.codes[a, r]] += 1
    return best


@numba.njit(cache=True, nogil=True, inline='always')
def _sweep(offers: Offers, judge: _Judge, space: KernelSpace, seg: Segments, s: int,
           e: int) -> tuple[int, int]:  # pragma: no cover - compiled
    """The best allowable of every offered candidate, when the models read histograms only: (candidate, children).

    The Python reference tries the candidates best first and applies the first allowable one, which is
    the best of the allowable ones: cuts are judged from running counts (:func:`_cut_allowable`),
    hierarchy splits from their records, and a candidate worse than an allowable one is not judged.
    (−1, 0) when none is allowable.
    """
    models = judge.models
    judge.total[:] = 0
    for i in range(s, e):
        r = seg.rows[i]
        for a in range(models.codes.shape[0]):
            judge.total[models.offset[a] + models.codes[a, r]] += 1
    count = offers.state[COUNT]
    best = int(-1)  # noqa: UP018 - typed, not a literal (see _cut_allowable)
    for j in range(len(space.numeric)):
        mine = 0
        for candidate in range(count):
            if offers.attribute[candidate] != j:
                continue
            mine += 1
            position = offers.position[candidate]  # 0 for a hierarchy split
            if space.numeric[j]:
                judge.slot[position] = candidate
            elif (best < 0 or before(offers, candidate, best)) and _allowable(judge, space, seg, s, e, j, position):
                best = candidate
        if mine and space.numeric[j]:
            best = _cut_allowable(judge, offers, seg, space.column[j], s, e, best)
            for candidate in range(count):
                if offers.attribute[candidate] == j:
                    judge.slot[offers.position[candidate]] = -1
    if best < 0:
        return -1, 0
    return best, _children(space, seg, s, e, offers.attribute[best], offers.position[best])


@numba.njit(cache=True, nogil=True, inline='always')
def _split(tree: _Tree, space: KernelSpace, seg: Segments, node: int, j: int, position: int, n_children: int,
           phase: int) -> None:  # pragma: no cover - compiled
    """Apply the split of ``node`` whose children are labelled: record it, divide the segment, push the children."""
    s = tree.start[node]
    e = tree.end[node]
    c = space.column[j]
    tree.split_attr[node] = j
    if space.numeric[j]:
        tree.threshold[node] = seg.sorted[c, s + position - 1]
    else:
        tree.split_level[node] = seg.level[c] - 1
    partition(seg, s, e, n_children, tree.bounds)
    for u in range(n_children):
        child = tree.state[0]
        tree.state[0] += 1
        tree.parent[child] = node
        tree.start[child] = tree.bounds[u]
        tree.end[child] = tree.bounds[u + 1]
        tree.phase[child] = phase
        _inherit(tree.cut_low, tree.cut_high, tree.node_level, tree.node_code, node, child)
        if space.numeric[j]:
            tree.key[child] = u
            if u == 0:
                tree.cut_high[child, c] = tree.threshold[node]
            else:
                tree.cut_low[child, c] = tree.threshold[node]
        else:
            tree.key[child] = seg.kids[u]
            tree.node_level[child, c] = tree.split_level[node]
            tree.node_code[child, c] = seg.kids[u]
        tree.stack[tree.state[1]] = child
        tree.state[1] += 1


@numba.njit(cache=True, nogil=True)
def grow(space: KernelSpace, order: NDArray[np.int64], keys: NDArray[np.int64], criterion: CriterionArrays,
         models: ModelArrays, n: int, k: int, strict: bool) -> GrownKernel:  # pragma: no cover - compiled
    """Grow the Mondrian tree of ``n`` rows under ``criterion``, k and ``models``.

    ``order`` is (p, n): per numeric column the rows sorted by value, equal values by row; ``keys`` the
    criterion's integer per record in each order, or (0, n) (:class:`~anonset.methods.mondrian.segments.Segments`).
    ``models`` holds no model under k-anonymity alone: then no candidate is judged.
    """
    seg = new_segments(space, order, keys, n)
    tree = _new_tree(space, n, k, len(seg.kids))
    judged = len(models.kind) > 0
    judge = _new_judge(models, len(seg.kids), n if judged else 0)
    offers = new_offers(int(1024))  # noqa: UP018 - typed, not a literal (new_offers is called again below)
    while tree.state[1] > 0:
        tree.state[1] -= 1
        node = tree.stack[tree.state[1]]
        s = tree.start[node]
        e = tree.end[node]
        if e - s < 2 * k:
            continue
        describe(space, seg, s, e)
        for phase in range(tree.phase[node], phases(criterion)):
            keep_best(offers, e - s)
            fill(criterion, phase, space, seg, offers, s, e, k, strict)
            if offers.state[COUNT] == 0:
                continue
            chosen = 0
            if not judged:  # every candidate offered is allowable
                n_children = _children(space, seg, s, e, offers.attribute[0], offers.position[0])
            else:
                n_children = _allowable(judge, space, seg, s, e, offers.attribute[0], offers.position[0])
                if not n_children:
                    keep_every(offers, e - s)
                    fill(criterion, phase, space, seg, offers, s, e, k, strict)
                    if offers.state[COUNT] > len(offers.tier):
                        offers = new_offers(2 * offers.state[COUNT])
                        keep_every(offers, e - s)
                        fill(criterion, phase, space, seg, offers, s, e, k, strict)
                    if models.moments.shape[0]:  # sums in row order: each candidate's records, best first
                        chosen, n_children = _try_in_order(offers, judge, space, seg, s, e)
                    else:
                        chosen, n_children = _sweep(offers, judge, space, seg, s, e)
            if n_children:
                _split(tree, space, seg, node, offers.attribute[chosen], offers.position[chosen], n_children, phase)
                break
    n_nodes = tree.state[0]
    return GrownKernel(seg.rows, n_nodes, tree.parent, tree.split_attr, tree.split_level, tree.key, tree.start,
                       tree.end, tree.threshold, tree.cut_low, tree.cut_high, tree.node_level, tree.node_code)
