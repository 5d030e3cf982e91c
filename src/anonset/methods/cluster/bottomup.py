"""Bottom-up local recoding (Xu, Wang, Pei, Wang, Shi and Fu, KDD 2006, Section 4.1).

Groups are merged greedily until every group has at least ``k`` records, then
groups of ``2k`` or more records are split.  The cost is the (weighted)
normalized certainty penalty of :mod:`anonset.methods.cluster.topdown`

.. math::

    NCP(G) = |G| \\cdot \\Big(\\sum_{N} w_N \\frac{\\max_G N - \\min_G N}{|N|}
             + \\sum_{C} w_C \\frac{size(\\Lambda_G C)}{|C|}\\Big)

(a single leaf costs 0: ``size = 1 → 0``), with numeric, date and ordinal
quasi-identifiers compared by value and the others through their hierarchy,
as :func:`anonset.methods.cluster.qi_space.prepare_attributes` splits them.

Start: one group per distinct quasi-identifier row (identical rows merge at
no cost, so this is what the paper's one-tuple-per-group start reaches after
its free merges).  Each round then visits the live groups that are *open* —
fewer than ``k`` records, or not l-diverse when l-diversity is configured —
in group order (distinct rows sorted lexicographically by their encoded
quasi-identifiers); a visited group that is still live and still open merges
with the live group ``H`` that minimizes the cost of the merge (ties: the
lowest group id).  The cost is chosen by ``merge_cost``:

- ``"union"`` (default, the paper's Figure 4, step 4): ``NCP(G ∪ H)``, the
  penalty of the combined group;
- ``"increase"``: ``NCP(G ∪ H) − NCP(G) − NCP(H)``, how much the merge raises
  the table's NCP.  This departs from the paper: it does not charge a merge
  for the penalty ``H`` already carries, so it prefers partners that are
  already wide (often large) groups.  Which is better depends on the data;
  ``docs/local_recoding.md`` gives both on Adult and on synthetic records.  A group that
has k records and only lacks diversity merges with the cheapest group whose
union is diverse, if there is one.  A group merged into another this round is
not visited; a merged group still open waits for the next round.  Rounds
repeat until no group is open (the whole table is l-diverse, so this ends).

Split (step 6–7 of the paper's Figure 4): each group of ``2k`` or more
records is divided into ``⌊|G| / k⌋`` groups of ``k`` to ``2k − 1`` records by
greedy k-member clustering under the same NCP (from the group's first record,
grow a group of ``k`` by least NCP increase, then start the next from the
record furthest from the last one; leftovers join the group whose NCP grows
least).  Under l-diversity the pieces are grown until diverse and merged
when they cannot be, as in :func:`anonset.methods.cluster.kmember.kmember_labels`.
Splitting never raises the NCP (each piece's ranges lie within the group's),
and identical rows may end up in different groups, as the paper notes.

Each group keeps the min and max of each numeric attribute and, per
categorical attribute, its LCA level and one member leaf, so a merge is scored
in O(attributes · hierarchy height).  The best-partner search for one group
is one numba pass over the live groups (parallel over the groups, then a
serial argmin).  The result depends only on the data and the requirements;
``seed`` is accepted for interface compatibility and not used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numba
import numpy as np

from anonset.core.dataset import Dataset
from anonset.errors import ConfigError
from anonset.methods.cluster.constraints import Diversity, GroupConstraints, diverse, union_diverse
from anonset.methods.cluster.kmember import as_constraints, kmember_labels, renumber_by_first_row
from anonset.methods.cluster.qi_space import (
    CostModel,
    Records,
    lca_level,
    leaf_share_costs,
    prepare_attributes,
)
from anonset.methods.cluster.state import (
    GroupState,
    merge_into,
    resolve_roots,
    state_cost,
)
from anonset.methods.threads import use_threads
from anonset.progress import NULL_TASK, Task, poll
from anonset.progress import task as progress_task

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["MERGE_COSTS", "xu_bottom_up"]

#: The values of ``merge_cost``: the paper's rule first (the default).
MERGE_COSTS: tuple[str, ...] = ("union", "increase")


@numba.njit(cache=True, nogil=True, parallel=True)
def _merge_costs(g: int, live: NDArray[np.int64], n_live: int, alive: NDArray[np.bool_], size: NDArray[np.int64],
                 cost: NDArray[np.float64], state: GroupState, costs: CostModel, union: bool,
                 out: NDArray[np.float64]) -> None:  # pragma: no cover
    """``out[i]``: cost of merging group ``g`` with ``live[i]`` (inf if dead or ``g`` itself).

    ``union``: the NCP of the union; else the NCP increase of the merge
    (``cost[h]`` is group ``h``'s per-record NCP).
    """
    base_g = 0.0 if union else size[g] * cost[g]
    for i in numba.prange(n_live):
        h = live[i]
        if h == g or not alive[h]:
            out[i] = np.inf
            continue
        # merge_cost(state, g, h, costs), written out: called from a parallel loop body it is not inlined,
        # which made the whole method ~45% slower
        d = 0.0
        for b in range(state.lo.shape[1]):
            d += (max(state.hi[g, b], state.hi[h, b]) - min(state.lo[g, b], state.lo[h, b])) * costs.num_w[b]
        for a in range(state.lvl.shape[1]):
            lv = lca_level(costs.maps, a, max(state.lvl[g, a], state.lvl[h, a]), state.ref[g, a], state.ref[h, a])
            d += costs.cat_cost[a, lv, state.ref[g, a]]
        out[i] = (size[g] + size[h]) * d - (0.0 if union else base_g + size[h] * cost[h])


@numba.njit(cache=True, nogil=True)
def _bottomup_kernel(distinct: Records, counts: NDArray[np.int64], costs: CostModel, k: int, hist: NDArray[np.int64],
                     div: Diversity, union: bool, counter: NDArray[np.int64]) -> NDArray[np.int64]:  # pragma: no cover
    """Root group (a distinct-row index) of every distinct row; see the module docstring.

    ``distinct`` holds one record per distinct quasi-identifier row and
    ``counts`` how many records it stands for.  ``hist`` (m, width) is the
    sensitive-value histogram of each distinct row's records; it is updated
    in place.  ``union``: score a merge by the NCP of the union (else by the
    NCP increase).  ``counter[0]`` follows the records in groups that are no
    longer open (:func:`anonset.progress.poll`).
    """
    is_div = len(div.kinds) > 0
    m = distinct.values.shape[0]
    q = distinct.codes.shape[1]
    state = GroupState(distinct.values.copy(), distinct.values.copy(), np.zeros((m, q), dtype=np.int64),
                       np.zeros((m, q), dtype=np.int64))
    for g in range(m):
        for a in range(q):
            state.ref[g, a] = distinct.codes[g, a]
    size = counts.copy()
    cost = np.zeros(m)  # per-record NCP of each group (0 for identical rows)
    alive = np.ones(m, dtype=np.bool_)
    parent = np.arange(m)
    live = np.arange(m)
    n_live = m
    out = np.empty(m)
    is_open = np.zeros(m, dtype=np.bool_)
    while n_live > 1:
        # compact the live list, keeping group order
        j = int(np.int64(0))
        n_small = 0
        closed = 0
        for i in range(n_live):
            g = live[i]
            if alive[g]:
                live[j] = g
                j += 1
                is_open[g] = size[g] < k or (is_div and not diverse(hist, g, div))
                if is_open[g]:
                    n_small += 1
                else:
                    closed += size[g]
        n_live = j
        counter[0] = closed
        if n_small == 0 or n_live <= 1:
            break
        for i in range(n_live):
            g = live[i]
            if not alive[g]:
                continue
            if size[g] >= k and not (is_div and not diverse(hist, g, div)):
                continue
            need_union_ok = is_div and size[g] >= k
            _merge_costs(g, live, n_live, alive, size, cost, state, costs, union, out)
            best = -1
            best_inc = np.inf
            best_ok = False
            for t in range(n_live):
                ok = need_union_ok and out[t] < np.inf and union_diverse(hist, g, live[t], div)
                if best_ok and not ok:
                    continue
                if (ok and not best_ok) or out[t] < best_inc:
                    best_inc = out[t]
                    best = t
                    best_ok = ok
            h = live[best]
            if size[h] >= k and not (is_div and not diverse(hist, h, div)):
                closed -= size[h]  # a closed group merged into an open one
            merge_into(state, g, h, costs.maps)
            cost[g] = state_cost(state, g, costs)
            size[g] += size[h]
            for v in range(hist.shape[1]):
                hist[g, v] += hist[h, v]
            alive[h] = False
            parent[h] = g
            if size[g] >= k and not (is_div and not diverse(hist, g, div)):
                closed += size[g]
            counter[0] = closed
    resolve_roots(parent)
    return parent


def _split_large(labels: NDArray[np.int64], distinct: NDArray[np.int64], records: Records, costs: CostModel,
                 cons: GroupConstraints, bar: Task = NULL_TASK) -> NDArray[np.int64]:
    """Divide every class of ``2k`` or more records into ``⌊|G|/k⌋`` classes (see the module docstring).

    A class's records are clustered in the order of their distinct rows
    (``distinct``: the distinct-row index of each record), so the result does
    not depend on the table's row order beyond which of identical records
    goes where.
    """
    k = cons.k
    sizes = np.bincount(labels)
    big = np.flatnonzero(sizes >= 2 * k)
    if len(big) == 0:
        return labels
    out = labels.copy()
    order = np.lexsort((distinct, labels))
    ends = np.cumsum(sizes)
    next_id = len(sizes)
    for g in big:
        rows = order[ends[g] - sizes[g]: ends[g]]
        pieces = kmember_labels(Records(records.values[rows], records.codes[rows]), costs, k, 0, cons.sens[rows],
                                cons.l_diversity, np.zeros(len(rows), dtype=np.int64), 1, 0.0,
                                np.zeros(2, dtype=np.int64))
        bar.advance()
        # piece 0 keeps the group's id, the others get new ids
        n_pieces = int(pieces.max()) + 1
        ids = np.concatenate([[g], np.arange(next_id, next_id + n_pieces - 1)])
        out[rows] = ids[pieces]
        next_id += n_pieces - 1
    return out


def xu_bottom_up(dataset: Dataset, constraints: int | GroupConstraints, seed: int = 0, *,
                 weights: Mapping[str, float] | None = None, split: bool = True,
                 merge_cost: str = "union") -> NDArray[np.int64]:
    """Partition the records by Xu et al.'s bottom-up merging and splitting, minimizing NCP.

    Parameters
    ----------
    dataset : Dataset
        An in-memory dataset; its quasi-identifiers are clustered (numeric, date
        and ordinal ones by value over their range, the others by hierarchy).
    constraints : int or GroupConstraints
        ``k``, or k with l-diversity
        (:func:`anonset.methods.cluster.constraints.constraints_for`).
    seed : int
        Unused (the method is deterministic); kept so the clustering methods
        share one signature.
    weights : mapping of str to float, optional
        Attribute weights of the NCP (Xu's weighted certainty penalty).
    split : bool
        Split groups of ``2k`` or more records (the paper's step 6–7); off only
        to measure what splitting brings.
    merge_cost : {"union", "increase"}
        Score a candidate merge by the NCP of the union (the paper's rule) or
        by the NCP increase it causes (see the module docstring).

    Returns
    -------
    numpy.ndarray
        int64 class id per row, ids ``0 .. c - 1`` numbered by first row.
        Every class has at least ``k`` records when ``n >= k``; with ``split``
        and k-anonymity alone, at most ``2k - 1``; when ``n < k`` all rows
        form class 0.

    Raises
    ------
    ValueError
        If ``k < 1``.
    anonset.errors.ConfigError
        Bad weights or an unknown ``merge_cost``.
    """
    del seed
    if merge_cost not in MERGE_COSTS:
        raise ConfigError(f"merge_cost must be one of {', '.join(MERGE_COSTS)}; got {merge_cost!r}")
    n = dataset.n_rows
    cons = as_constraints(constraints, n)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    prep = prepare_attributes(dataset, weights)
    use_threads()  # the merge search below runs in parallel
    key = (
        np.column_stack([prep.values, prep.codes.astype(np.float64)])
        if prep.values.shape[1] + prep.codes.shape[1]
        else np.zeros((n, 1))
    )
    _, first, inverse, counts = np.unique(
        key, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    inverse = np.asarray(inverse).reshape(-1)
    hist = cons.histograms(inverse, len(first))
    costs = prep.costs(leaf_share_costs(prep, dataset))
    distinct_rows = Records(np.ascontiguousarray(prep.values[first]), np.ascontiguousarray(prep.codes[first]))
    counter = np.array([0, n], dtype=np.int64)
    with (progress_task("xu-bottom-up: merging", total=n, unit="records") as bar,
          poll(bar, counter)):
        root = _bottomup_kernel(distinct_rows, counts.astype(np.int64), costs, cons.k, hist, cons.l_diversity,
                                merge_cost == "union", counter)
        counter[0] = n
    labels = renumber_by_first_row(root[inverse])
    if split:
        big = int((np.bincount(labels) >= 2 * cons.k).sum())
        with progress_task("xu-bottom-up: splitting", total=big, unit="groups") as bar:
            labels = renumber_by_first_row(_split_large(labels, inverse, prep.records, costs, cons, bar))
    return labels
