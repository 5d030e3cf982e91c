"""Greedy k-member clustering (Byun, Kamra, Bertino and Li, DASFAA 2007).

The table is partitioned into clusters of at least ``k`` and at most
``2k - 1`` records, grown greedily so that the total information loss

.. math::

    IL(e) = |e| \\cdot \\Big(\\sum_{N} \\frac{\\max_e N - \\min_e N}{|N|}
            + \\sum_{C} \\frac{H(\\Lambda(\\cup_e C))}{H(T_C)}\\Big)

stays small.  Quasi-identifiers compared by value (numeric, date, ordinal:
:func:`anonset.core.dataset.row_values`) use ``|N|``, the attribute's range in the data;
categorical ones (every other quasi-identifier) by their hierarchy: the height
of the lowest common ancestor of a set of leaves is the lowest level at which
they all map to one code, and the hierarchy's height is its ``max_level``.

The algorithm (Fig. 5 of the paper): pick a random record ``r``; while at
least ``k`` records remain, let ``r`` be the remaining record furthest from
``r``, start a cluster with it and add, ``k - 1`` times, the remaining record
whose addition increases the cluster's information loss least, ``r`` becoming
the last record added.  The fewer than ``k`` records left at the end go, in
row order, each to the cluster whose information loss grows least.

The whole loop is one numba-compiled kernel that keeps per-cluster state
(min and max of each numeric attribute, the LCA level of each categorical
one and a representative leaf), so each greedy step is a single pass over the
remaining records.  Ties go to the lowest row index (lowest cluster id for
leftovers); the result depends only on the data, ``k`` and ``seed``.

The IL of a finished partition is computed, like every release's
``total_il``, by :mod:`anonset.metrics.total_il`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numba
import numpy as np
from numpy.typing import NDArray

from anonset.core.dataset import Dataset
from anonset.methods.cluster.constraints import (
    Diversity,
    GroupConstraints,
    distinct_deficit,
    diverse,
    helpful_values,
    kanonymity_only,
)
from anonset.methods.cluster.qi_space import CostModel, Records, height_costs, lca_table, prepare_attributes
from anonset.methods.cluster.state import (
    GroupState,
    add_record,
    cost_with,
    merge_until_diverse,
    reset_group,
    state_cost,
)
from anonset.progress import poll
from anonset.progress import task as progress_task

__all__ = ["greedy_k_member", "kmember_labels"]


class _Remaining(NamedTuple):
    """The records not yet clustered, compacted in row order after each cluster (first ``n_rem`` entries valid)."""

    rows: NDArray[np.int64]  # (n,) int64 row of each remaining record
    values: NDArray[np.float64]  # (n, p) float64 its numeric values
    codes: NDArray[np.int32]  # (n, q) int32 its leaf codes
    free: NDArray[np.bool_]  # (n,) bool not taken by the cluster being grown


class _Scan(NamedTuple):
    """What one search for the cheapest record to add reads besides the records and the cluster."""

    step_cost: NDArray[np.float64]  # (q, leaves) attribute a's cost for the cluster once it holds leaf x
    cur: float  # the cluster's current per-record cost
    restrict: bool  # only records with a value marked in mask are candidates
    mask: NDArray[np.bool_]  # (width,) bool sensitive values that bring the cluster closer to diversity
    majority: int  # the cluster's majority class label
    penalty: float  # added to a candidate whose label is not the majority


@numba.njit(cache=True, nogil=True)
def _majority(lab_hist: NDArray[np.int64], c: int) -> int:  # pragma: no cover
    """Most frequent class label of cluster ``c`` (lowest label on ties)."""
    best = 0
    for y in range(1, lab_hist.shape[1]):
        if lab_hist[c, y] > lab_hist[c, best]:
            best = y
    return best


@numba.njit(cache=True, nogil=True)
def _pool_can_diversify(pool: NDArray[np.int64], div: Diversity) -> bool:  # pragma: no cover
    """Do the remaining records hold at least ⌈l⌉ distinct values of every l-diverse attribute?"""
    for a in range(len(div.lvals)):
        distinct = 0
        for v in range(div.offsets[a], div.offsets[a + 1]):
            if pool[v] > 0:
                distinct += 1
        if distinct < np.ceil(div.lvals[a] - 1e-9):
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _best_record(c: int, rem: _Remaining, n_rem: int, state: GroupState, num_w: NDArray[np.float64], scan: _Scan,
                 sens: NDArray[np.int64], labels: NDArray[np.int64]) -> int:  # pragma: no cover
    """The free remaining record whose addition to cluster ``c`` costs least (−1 when there is none).

    ``scan.step_cost[a, x]`` is attribute ``a``'s cost for the cluster once
    it holds leaf ``x``.  With ``scan.restrict`` only records with a value
    marked in ``scan.mask`` are candidates; a record whose label is not
    ``scan.majority`` costs ``scan.penalty`` more.  Ties go to the lowest
    index; a record that adds nothing ends the scan.
    """
    p = rem.values.shape[1]
    q = rem.codes.shape[1]
    best = -1
    best_d = np.inf
    for t in range(n_rem):
        if not rem.free[t]:
            continue
        if scan.restrict:
            helps = False
            for a in range(sens.shape[1]):
                if scan.mask[sens[rem.rows[t], a]]:
                    helps = True
            if not helps:
                continue
        d = 0.0
        for b in range(p):
            v = rem.values[t, b]
            d += (max(state.hi[c, b], v) - min(state.lo[c, b], v)) * num_w[b]
        for a in range(q):
            d += scan.step_cost[a, rem.codes[t, a]]
        if scan.penalty > 0 and labels[rem.rows[t]] != scan.majority:
            d += scan.penalty
        if d < best_d:
            best_d = d
            best = t
            if d <= scan.cur:  # no record can add less than nothing
                break
    return best


@numba.njit(cache=True, nogil=True)
def kmember_labels(records: Records, costs: CostModel, k: int, start: int, sens: NDArray[np.int64],
                   div: Diversity, labels: NDArray[np.int64], n_labels: int,
                   class_penalty: float, counter: NDArray[np.int64]) -> NDArray[np.int64]:  # pragma: no cover
    """Cluster id per row (Fig. 5 of Byun et al.); see :func:`greedy_k_member`.

    ``counter[0]`` is set to the records clustered so far after each cluster
    (read by :func:`anonset.progress.poll` while the kernel runs).

    The remaining records (:class:`_Remaining`) are kept in row order,
    compacted after each cluster, so a scan reads contiguous memory.  Per
    cluster, a :class:`~anonset.methods.cluster.state.GroupState`: ``lo``/``hi``
    per numeric attribute, ``lvl`` (LCA level) per categorical attribute and
    ``ref[c, a]``, the leaf of its first record.  While a cluster grows,
    ``lca[a, x]`` holds the LCA level of leaf ``x`` with that first leaf;
    adding leaf ``x`` moves the cluster's level to ``max(lvl, lca[a, x])``.
    A categorical attribute's cost at level ``lv`` is ``cat_cost[a, lv, first leaf]``.

    l-diversity (``div.kinds`` not empty): a cluster grows past ``k`` until it is
    diverse; once its free slots no longer exceed the distinct values it
    lacks (or it has ``k`` records), only records that bring it closer to
    diversity are candidates.  Clusters stop being started when the remaining
    records lack the distinct values; leftovers prefer clusters that stay
    diverse; a cluster that could not be completed is merged at the end
    (:func:`anonset.methods.cluster.state.merge_until_diverse`).

    ``class_penalty`` > 0 (Byun's classification-aware variant): a candidate
    whose label differs from the cluster's majority label costs
    ``class_penalty`` more in IL.
    """
    values = records.values
    codes = records.codes
    num_w = costs.num_w
    maps = costs.maps
    cat_cost = costs.cat_cost
    n = values.shape[0]
    p = values.shape[1]
    q = codes.shape[1]
    s = sens.shape[1]
    is_div = len(div.kinds) > 0
    width = max(div.offsets[len(div.offsets) - 1], 1)
    n_leaves = maps.shape[2]
    out = np.full(n, -1, dtype=np.int64)
    if n <= k:
        out[:] = 0
        return out
    max_clusters = n // k
    state = GroupState(np.empty((max_clusters, p)), np.empty((max_clusters, p)),
                       np.zeros((max_clusters, q), dtype=np.int64), np.zeros((max_clusters, q), dtype=np.int64))
    lo = state.lo
    hi = state.hi
    lvl = state.lvl
    first = state.ref
    lca = np.zeros((q, n_leaves), dtype=np.int32)
    size = np.zeros(max_clusters, dtype=np.int64)
    hist = np.zeros((max_clusters + 1, width), dtype=np.int64)
    lab_hist = np.zeros((max_clusters, n_labels), dtype=np.int64)
    pool = np.zeros(width, dtype=np.int64)
    mask = np.zeros(width, dtype=np.bool_)
    for x in range(n):
        for a in range(s):
            pool[sens[x, a]] += 1
    rem = _Remaining(np.arange(n), values.copy(), codes.copy(), np.ones(n, dtype=np.bool_))
    n_rem = n
    r = start
    n_clusters = int(np.int64(0))
    r_lca = np.zeros((q, n_leaves), dtype=np.int32)
    step_cost = np.zeros((q, n_leaves))  # per attribute and leaf: the cost the scan in progress reads
    while n_rem >= k and (not is_div or _pool_can_diversify(pool, div)):
        # the remaining record furthest from r (lowest index on ties)
        lca_table(maps, codes[r], r_lca)
        for a in range(q):
            for x in range(n_leaves):
                step_cost[a, x] = cat_cost[a, r_lca[a, x], codes[r, a]]
        best = -1
        best_d = -1.0
        for t in range(n_rem):
            d = 0.0
            for b in range(p):
                d += abs(rem.values[t, b] - values[r, b]) * num_w[b]
            for a in range(q):
                d += step_cost[a, rem.codes[t, a]]
            if d > best_d:
                best_d = d
                best = t
        c = n_clusters
        n_clusters += 1
        r = rem.rows[best]
        rem.free[best] = False
        out[r] = c
        size[c] = 1
        reset_group(state, c, records, r)
        lca_table(maps, codes[r], lca)
        for a in range(s):
            hist[c, sens[r, a]] += 1
            pool[sens[r, a]] -= 1
        lab_hist[c, labels[r]] += 1
        while size[c] < k or (is_div and not diverse(hist, c, div)):
            restrict = False
            if is_div and helpful_values(hist, c, div, mask) > 0:
                restrict = size[c] >= k or k - size[c] <= distinct_deficit(hist, c, div)
            # current distortion, computed exactly as a candidate's would be
            cur = state_cost(state, c, costs)
            penalty = class_penalty / (size[c] + 1) if class_penalty > 0 else 0.0
            for a in range(q):
                for x in range(n_leaves):
                    step_cost[a, x] = cat_cost[a, max(lvl[c, a], lca[a, x]), first[c, a]]
            scan = _Scan(step_cost, cur, restrict, mask, _majority(lab_hist, c), penalty)
            best = _best_record(c, rem, n_rem, state, num_w, scan, sens, labels)
            if best < 0 and restrict and size[c] < k:
                # too few helpful records left to fill the cluster: fill it with any
                scan = _Scan(step_cost, cur, False, mask, scan.majority, penalty)
                best = _best_record(c, rem, n_rem, state, num_w, scan, sens, labels)
            if best < 0:
                break  # no remaining record helps: the cluster is completed by merging at the end
            rem.free[best] = False
            r = rem.rows[best]
            out[r] = c
            size[c] += 1
            for b in range(p):
                v = values[r, b]
                lo[c, b] = min(lo[c, b], v)
                hi[c, b] = max(hi[c, b], v)
            for a in range(q):
                lvl[c, a] = max(lvl[c, a], lca[a, codes[r, a]])
            for a in range(s):
                hist[c, sens[r, a]] += 1
                pool[sens[r, a]] -= 1
            lab_hist[c, labels[r]] += 1
        # drop the clustered records, keeping row order
        kept = 0
        for t in range(n_rem):
            if rem.free[t]:
                rem.rows[kept] = rem.rows[t]
                for b in range(p):
                    rem.values[kept, b] = rem.values[t, b]
                for a in range(q):
                    rem.codes[kept, a] = rem.codes[t, a]
                rem.free[kept] = True
                kept += 1
        n_rem = kept
        counter[0] = n - n_rem
    # leftovers, in row order: each to the cluster whose IL grows least (lowest id on ties),
    # among the clusters that stay diverse when there are any
    scratch = max_clusters
    for t in range(n_rem):
        j = rem.rows[t]
        best = int(np.int64(-1))
        best_inc = np.inf
        best_ok = False
        for c in range(n_clusters):
            ok = True
            if is_div and diverse(hist, c, div):
                for v in range(width):
                    hist[scratch, v] = hist[c, v]
                for a in range(s):
                    hist[scratch, sens[j, a]] += 1
                ok = diverse(hist, scratch, div)
            elif is_div:
                ok = False
            if best_ok and not ok:
                continue
            inc = (size[c] + 1) * cost_with(state, c, records, costs, j) - size[c] * state_cost(state, c, costs)
            if (ok and not best_ok) or inc < best_inc:
                best_inc = inc
                best = c
                best_ok = ok
        c = best
        out[j] = c
        size[c] += 1
        add_record(state, c, records, maps, j)
        for a in range(s):
            hist[c, sens[j, a]] += 1
    if is_div:
        complete = True
        for c in range(n_clusters):
            if not diverse(hist, c, div):
                complete = False
        if not complete:
            out = merge_until_diverse(out, n_clusters, records, costs, hist[:n_clusters], div)
    return out


def as_constraints(constraints: int | GroupConstraints, n: int) -> GroupConstraints:
    """``constraints`` itself, or plain k-anonymity when it is an int ``k`` (>= 1)."""
    if isinstance(constraints, GroupConstraints):
        return constraints
    if isinstance(constraints, bool) or not isinstance(constraints, (int, np.integer)) or constraints < 1:
        raise ValueError(f"k must be at least 1; got {constraints!r}")
    return kanonymity_only(int(constraints), n)


def greedy_k_member(dataset: Dataset, constraints: int | GroupConstraints, seed: int = 0, *,
                    weights: Mapping[str, float] | None = None, class_penalty: float = 0.0) -> NDArray[np.int64]:
    """Partition the records into clusters of at least ``k`` records, greedily minimizing IL.

    Parameters
    ----------
    dataset : Dataset
        An in-memory dataset; its quasi-identifiers are clustered.  Numeric,
        date and ordinal quasi-identifiers are compared by value (normalized by their
        range in the data), the others through their hierarchy.
    constraints : int or GroupConstraints
        ``k``, or k with l-diversity and class labels
        (:func:`anonset.methods.cluster.constraints.constraints_for`).
    seed : int
        Seed of the random first record (``numpy.random.default_rng``).
    weights : mapping of str to float, optional
        Attribute weights of the information loss (1 when not given).
    class_penalty : float
        Byun's classification-aware variant: the IL added to a candidate whose
        class label differs from the cluster's majority (0 = the plain
        method; needs ``constraints`` with labels).

    Returns
    -------
    numpy.ndarray
        int64 cluster id per row.  With k-anonymity alone, clusters have
        ``k`` to ``2k - 1`` records, ids ``0 .. c - 1`` in the order the
        clusters were built.  With l-diversity a cluster grows until it is
        diverse, and clusters that cannot be completed are merged, so they
        may be larger (ids are then renumbered by first row).  When
        ``n <= k`` all rows form cluster 0.

    Raises
    ------
    ValueError
        If ``k < 1`` or ``class_penalty < 0``.
    anonset.errors.ConfigError
        Bad weights.
    """
    cons = as_constraints(constraints, dataset.n_rows)
    if not class_penalty >= 0:
        raise ValueError(f"class_penalty must be >= 0; got {class_penalty!r}")
    prep = prepare_attributes(dataset, weights)
    n = dataset.n_rows
    start = int(np.random.default_rng(seed).integers(n)) if n else 0
    counter = np.array([0, n], dtype=np.int64)
    with progress_task("k-member: forming clusters", total=n, unit="records") as bar, poll(bar, counter):
        out = kmember_labels(prep.records, prep.costs(height_costs(prep)), cons.k, start, cons.sens,
                             cons.l_diversity, cons.labels, cons.n_labels, float(class_penalty), counter)
        counter[0] = n
    return renumber_by_first_row(out) if cons.diversity else np.asarray(out, dtype=np.int64)


def renumber_by_first_row(raw: NDArray[np.int64]) -> NDArray[np.int64]:
    """Class ids ``0 .. c - 1`` numbered by the first row of each class."""
    _, first, inverse = np.unique(raw, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return np.asarray(rank[np.asarray(inverse).reshape(-1)], dtype=np.int64)
