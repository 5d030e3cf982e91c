"""Top-down local recoding (Xu, Wang, Pei, Wang, Shi and Fu, KDD 2006, Section 4.2).

The table is split recursively into two groups until every group has fewer
than ``2k`` records; groups with fewer than ``k`` records are fixed afterwards.
The cost is the normalized certainty penalty

.. math::

    NCP(G) = |G| \\cdot \\Big(\\sum_{N} \\frac{\\max_G N - \\min_G N}{|N|}
             + \\sum_{C} \\frac{size(\\Lambda_G C)}{|C|}\\Big)

where ``|N|`` is a numeric attribute's range in the data, ``Λ_G C`` the lowest
common ancestor of the group's leaves in ``C``'s hierarchy, ``size`` its number
of leaves and ``|C|`` the hierarchy's number of leaves; a single leaf costs 0
(``size = 1 → 0``), each term multiplied by the attribute's weight when
weights are given.  Attributes are split as in
:mod:`anonset.methods.cluster.qi_space`: numeric, date and ordinal
quasi-identifiers by value, the others by hierarchy.

One split of a group (heuristic of Section 4.2): ``rounds`` times, take a
random member ``r``, let ``u`` maximize ``NCP({r, u})`` and ``v`` maximize
``NCP({u, v})``, keeping the farthest pair over the rounds.  ``u`` and ``v``
seed two groups; every other member, in random order, joins the group whose
NCP grows less (ties: the smaller group, then ``u``'s).  Groups of at least
``2k`` records are split again.

Fix-up: each group with fewer than ``k`` records (in the order the groups were
made) either absorbs the group whose merge raises the total NCP least, or
takes the missing records from a group that keeps at least ``k`` records,
whichever costs less; this repeats until the group has ``k`` records.  Merge
partners are sought among the groups the splits made within ``window`` (64)
positions of the small group — its neighbours in the split tree, hence close
in the quasi-identifier space — and donors among the ``_DONORS`` of them with
the cheapest merge (approximations: scanning every group for every small
group is quadratic in the number of groups, 219 s instead of 19 s on a
million records, for an NCP 0.3% lower on Adult).
A donor gives, one at a time, the member that raises the small group's NCP
least.

l-diversity: a split is kept only when both halves are l-diverse (otherwise
the segment stays one group, as in Mondrian), so every group leaving the
split phase is diverse; small groups are then fixed by merging only, since
the union of two l-diverse groups is l-diverse (distinct: clearly; entropy:
the entropy of a mixture is at least the mixture of the entropies) while
taking records from a donor could break it.

Everything runs in one numba kernel on an index array (the table is never
copied per group).  Per group the kernel keeps the min and max of each
numeric attribute and, per categorical attribute, the LCA level and one
member leaf.  A pass over a segment (the far-pair search, the joins) first
finds, a chunk of records at a time, the level where each record meets the
seeds' leaves (from a leaf-by-leaf table of the attribute,
:func:`~anonset.methods.cluster.qi_space.meet_tables`, from a table of the
seed's leaf against every leaf on a large segment, or by walking the
hierarchy), then prices the records from those levels: a join decision reads
one entry per attribute.  The result is the same whichever way a level is
found.  The random choices come from numba's generator seeded with ``seed``:
the result depends only on the data, ``k``, ``seed`` and ``rounds``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numba
import numpy as np

from anonset.core.dataset import Dataset
from anonset.methods.cluster.constraints import Diversity, GroupConstraints, diverse
from anonset.methods.cluster.kmember import as_constraints, renumber_by_first_row
from anonset.methods.cluster.qi_space import (
    CostModel,
    Meets,
    Records,
    lca_level,
    leaf_share_costs,
    meet_row,
    meet_tables,
    prepare_attributes,
)
from anonset.methods.cluster.state import (
    GroupState,
    add_record,
    cost_with,
    merge_cost,
    merge_into,
    reset_group,
    state_cost,
)
from anonset.progress import poll
from anonset.progress import task as progress_task

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["xu_top_down"]

_DONORS = 5
_WINDOW = 64
_CHUNK = 2048  # records whose meeting levels are found together before they are priced


@numba.njit(cache=True, nogil=True)
def _take_cheapest(state: GroupState, target: int, records: Records, costs: CostModel, first: int,
                   nxt: NDArray[np.int64], taken: NDArray[np.bool_], picked: NDArray[np.int64],
                   need: int) -> None:  # pragma: no cover
    """Move ``need`` records, one at a time, from the list starting at ``first`` into group ``target``:
    each time the one whose addition costs least (marked in ``taken``, recorded in ``picked``)."""
    for i in range(need):
        bx = int(np.int64(-1))
        bd = np.inf
        x = first
        while x >= 0:
            if not taken[x]:
                d = cost_with(state, target, records, costs, x)
                if d < bd:
                    bd = d
                    bx = x
            x = nxt[x]
        taken[bx] = True
        picked[i] = bx
        add_record(state, target, records, costs.maps, bx)


@numba.njit(cache=True, nogil=True)
def _seed_tables(meets: Meets, codes: NDArray[np.int32], seeds: NDArray[np.int64], m: int,
                 tables: NDArray[np.int64], tabled: NDArray[np.bool_]) -> None:  # pragma: no cover
    """Before a pass over ``m`` records against the leaves of records ``seeds``: ``tables[j, a, leaf]``, the
    level where ``leaf`` meets seed ``j``'s leaf (:func:`meet_row`), for each attribute without a
    :class:`Meets` table whose leaves times levels are at most ``m`` (``tabled[a]``; the others are walked
    record by record)."""
    maps = meets.maps
    top = maps.shape[1] - 1
    for a in range(maps.shape[0]):
        n = meets.leaves[a]
        tabled[a] = meets.offset[a] < 0 and n * top <= m
        if tabled[a]:
            for j in range(seeds.shape[0]):
                meet_row(maps, a, codes[seeds[j], a], tables[j, a, :n])


@numba.njit(cache=True, nogil=True)
def _chunk_meets(meets: Meets, codes: NDArray[np.int32], seeds: NDArray[np.int64], order: NDArray[np.int64],
                 ordered: bool, c0: int, c1: int, tables: NDArray[np.int64], tabled: NDArray[np.bool_],
                 out: NDArray[np.int64]) -> None:  # pragma: no cover
    """``out[t - c0, j, a]``: the level where record ``order[t]`` (``t`` itself unless ``ordered``) meets seed
    ``j`` in attribute ``a``, for ``t`` in ``[c0, c1)``: from the :class:`Meets` table, the seed's table of
    :func:`_seed_tables`, or a walk (:func:`lca_level`).

    One loop per attribute and seed, each with one way of finding the level:
    pricing records in a loop that could also walk a hierarchy made numba's
    code many times slower per record, even where the walk never ran.
    """
    level = meets.level
    offset = meets.offset
    leaves = meets.leaves
    maps = meets.maps
    for a in range(codes.shape[1]):
        for j in range(seeds.shape[0]):
            ref = codes[seeds[j], a]
            if offset[a] >= 0:
                row = offset[a] + ref * leaves[a]
                for t in range(c0, c1):
                    out[t - c0, j, a] = level[row + codes[order[t] if ordered else t, a]]
            elif tabled[a]:
                for t in range(c0, c1):
                    out[t - c0, j, a] = tables[j, a, codes[order[t] if ordered else t, a]]
            else:
                for t in range(c0, c1):
                    out[t - c0, j, a] = lca_level(maps, a, int(np.int64(0)), ref, codes[order[t] if ordered else t, a])


@numba.njit(cache=True, nogil=True)
def _farthest(work: Records, costs: CostModel, meets: Meets, r: int, s: int, e: int, tables: NDArray[np.int64],
              tabled: NDArray[np.bool_], chunk: NDArray[np.int64]) -> tuple[int, float]:  # pragma: no cover
    """The position in ``[s, e)`` of ``work`` whose two-record group with position ``r`` has the largest
    per-record NCP (the first on ties), and that NCP.  The records go in chunks of ``len(chunk)``: where
    each meets ``r`` first (:func:`_chunk_meets`), then their costs."""
    values = work.values
    codes = work.codes
    num_w = costs.num_w
    cat_cost = costs.cat_cost
    p = values.shape[1]
    q = codes.shape[1]
    seeds = np.full(1, r)
    _seed_tables(meets, codes, seeds, e - s, tables, tabled)
    far = r
    best = -1.0
    for c0 in range(s, e, chunk.shape[0]):
        c1 = min(c0 + chunk.shape[0], e)
        _chunk_meets(meets, codes, seeds, seeds, False, c0, c1, tables, tabled, chunk)
        for t in range(c0, c1):
            d = 0.0
            for b in range(p):
                d += abs(values[r, b] - values[t, b]) * num_w[b]
            for a in range(q):
                d += cat_cost[a, chunk[t - c0, 0, a], codes[r, a]]
            if d > best:
                best = d
                far = t
    return far, best


@numba.njit(cache=True, nogil=True)
def _split_segment(src: Records, dst: Records, src_idx: NDArray[np.int64], dst_idx: NDArray[np.int64],
                   order: NDArray[np.int64], s: int, e: int, u: int, v: int, state: GroupState, costs: CostModel,
                   meets: Meets, tables: NDArray[np.int64], tabled: NDArray[np.bool_],
                   chunk: NDArray[np.int64]) -> int:  # pragma: no cover
    """Split positions ``[s, e)`` of ``src`` by seeds ``u`` and ``v``: every other record, in ``order``, joins
    the half whose NCP grows less (ties: the smaller half, then ``u``'s); ``u``'s half is written to
    ``dst[s:s + na]``, ``v``'s to ``dst[s + na:e]`` (``v``'s members from the end backwards).  Returns ``na``.

    The halves' states live in ``state``'s two scratch rows (its last two).
    The records go in chunks of ``len(chunk)``: where each meets the seeds
    first (:func:`_chunk_meets`), then they are priced in order.  In a
    hierarchy a record meets a group's leaf at or above the group's level
    exactly where it meets it at or above level 0, so the level is the larger
    of the two.  The arrays are taken out of their named tuples once, here,
    not per record.
    """
    values = src.values
    codes = src.codes
    out_values = dst.values
    out_codes = dst.codes
    lo = state.lo
    hi = state.hi
    lvl = state.lvl
    refs = state.ref
    num_w = costs.num_w
    cat_cost = costs.cat_cost
    p = values.shape[1]
    q = codes.shape[1]
    ga = lo.shape[0] - 2
    seeds = np.array([u, v])
    _seed_tables(meets, codes, seeds, e - s, tables, tabled)
    for j in range(2):
        for b in range(p):
            lo[ga + j, b] = values[seeds[j], b]
            hi[ga + j, b] = values[seeds[j], b]
        for a in range(q):
            lvl[ga + j, a] = 0
            refs[ga + j, a] = codes[seeds[j], a]
    # per-record cost of each half so far (a single record: its leaves' own costs); after a record joins, the
    # cost it was priced at
    cost = np.zeros(2)
    for j in range(2):
        for a in range(q):
            cost[j] += cat_cost[a, 0, refs[ga + j, a]]
    size = np.ones(2, dtype=np.int64)
    priced = np.zeros(2)
    for x, t in ((u, s), (v, e - 1)):
        dst_idx[t] = src_idx[x]
        for b in range(p):
            out_values[t, b] = values[x, b]
        for a in range(q):
            out_codes[t, a] = codes[x, a]
    for c0 in range(s, e, chunk.shape[0]):
        c1 = min(c0 + chunk.shape[0], e)
        _chunk_meets(meets, codes, seeds, order, True, c0, c1, tables, tabled, chunk)
        for t in range(c0, c1):
            x = order[t]
            if x == u or x == v:  # noqa: SIM109 - compiled by numba: two comparisons, no tuple
                continue
            for g in range(2):
                row = ga + g
                d = 0.0
                for b in range(p):
                    w = values[x, b]
                    d += (max(hi[row, b], w) - min(lo[row, b], w)) * num_w[b]
                for a in range(q):
                    d += cat_cost[a, max(lvl[row, a], chunk[t - c0, g, a]), refs[row, a]]
                priced[g] = d
            inc_a = (size[0] + 1) * priced[0] - size[0] * cost[0]
            inc_b = (size[1] + 1) * priced[1] - size[1] * cost[1]
            g = 0 if inc_a < inc_b or (inc_a == inc_b and size[0] <= size[1]) else 1
            row = ga + g
            for b in range(p):
                w = values[x, b]
                lo[row, b] = min(lo[row, b], w)
                hi[row, b] = max(hi[row, b], w)
            for a in range(q):
                lvl[row, a] = max(lvl[row, a], chunk[t - c0, g, a])
            cost[g] = priced[g]
            to = s + size[0] if g == 0 else e - 1 - size[1]
            size[g] += 1
            dst_idx[to] = src_idx[x]
            for b in range(p):
                out_values[to, b] = values[x, b]
            for a in range(q):
                out_codes[to, a] = codes[x, a]
    return int(size[0])


@numba.njit(cache=True, nogil=True)
def _segment_diverse(idx: NDArray[np.int64], s: int, e: int, sens: NDArray[np.int64], hist1: NDArray[np.int64],
                     div: Diversity) -> bool:  # pragma: no cover
    """Are the records ``idx[s:e]`` l-diverse (``hist1``: a one-row scratch histogram)?"""
    hist1[0, :] = 0
    for t in range(s, e):
        for a in range(sens.shape[1]):
            hist1[0, sens[idx[t], a]] += 1
    return diverse(hist1, int(np.int64(0)), div)


@numba.njit(cache=True, nogil=True)
def _topdown_kernel(records: Records, costs: CostModel, meets: Meets, k: int, seed: int, rounds: int, n_donors: int,
                    sens: NDArray[np.int64], div: Diversity, window: int,
                    counter: NDArray[np.int64]) -> NDArray[np.int64]:  # pragma: no cover
    """Class id per row (not yet renumbered); see the module docstring and :func:`xu_top_down`.

    The splits read copies of ``records`` kept in segment order, in two
    buffers (``work[0]`` and ``work[1]``, with the record ids ``idx[0]`` and
    ``idx[1]``): a segment's records lie consecutively in one of them and a
    split writes its halves into the other, so that every pass over a segment
    reads consecutive memory instead of gathering its records from the whole
    table; the choices, and so the groups, are those of reading ``records``
    in the segment's order.  The passes over a segment
    (:func:`_farthest`, :func:`_split_segment`) find where each record meets
    the seeds' leaves from tables (:class:`Meets`, or a seed's own table on a
    large segment) where they can, and price it after: the same sums as a
    walk up the hierarchies per record, in the same order.

    Progress in ``counter`` (:func:`anonset.progress.poll`): while splitting,
    ``counter[0]`` is the records in finished groups out of ``counter[1] = n``;
    the fix-up then raises ``counter[1]`` to ``n + groups`` and counts the
    groups it has gone through on top of ``n``.
    """
    n = records.values.shape[0]
    p = records.values.shape[1]
    q = records.codes.shape[1]
    is_div = len(div.kinds) > 0
    width = max(div.offsets[len(div.offsets) - 1], 1)
    labels = np.zeros(n, dtype=np.int64)
    if n < 2 * k:
        return labels
    np.random.seed(seed)
    work = (Records(records.values.copy(), records.codes.copy()),
            Records(np.empty_like(records.values), np.empty_like(records.codes)))
    idx = (np.arange(n), np.empty(n, dtype=np.int64))
    order = np.empty(n, dtype=np.int64)
    # scratch of the passes: the seeds' tables of meeting levels, and those of a chunk of records
    tables = np.empty((2, q, costs.maps.shape[2]), dtype=np.int64)
    tabled = np.zeros(q, dtype=np.bool_)
    chunk = np.empty((_CHUNK, 2, q), dtype=np.int64)
    # group state: at most n groups, then two scratch slots (n and n + 1)
    state = GroupState(np.empty((n + 2, p)), np.empty((n + 2, p)), np.zeros((n + 2, q), dtype=np.int64),
                       np.zeros((n + 2, q), dtype=np.int64))
    size = np.zeros(n, dtype=np.int64)
    head = np.full(n, -1, dtype=np.int64)  # member linked lists, built after the splits
    nxt = np.full(n, -1, dtype=np.int64)
    n_groups = 0
    # stack of segments [s, e) to split, with the buffer that holds each
    st_s = np.empty(n, dtype=np.int64)
    st_e = np.empty(n, dtype=np.int64)
    st_in = np.zeros(n, dtype=np.int8)
    st_s[0] = 0
    st_e[0] = n
    top = 1
    seg_s = np.empty(n, dtype=np.int64)  # final segments, one per group, and the buffer that holds each
    seg_e = np.empty(n, dtype=np.int64)
    seg_in = np.zeros(n, dtype=np.int8)
    hist2 = np.zeros((1, width), dtype=np.int64)
    while top > 0:
        top -= 1
        s = st_s[top]
        e = st_e[top]
        held = st_in[top]
        m = e - s
        if m < 2 * k:
            seg_s[n_groups] = s
            seg_e[n_groups] = e
            seg_in[n_groups] = held
            n_groups += 1
            counter[0] += m
            continue
        src = work[held]
        dst = work[1 - held]
        src_idx = idx[held]
        dst_idx = idx[1 - held]
        # far pair (positions in the segment)
        best_u = int(np.int64(-1))
        best_v = int(np.int64(-1))
        best_d = -1.0
        for _ in range(rounds):
            r = s + np.random.randint(0, m)
            u, _du = _farthest(src, costs, meets, r, s, e, tables, tabled, chunk)
            v, dv = _farthest(src, costs, meets, u, s, e, tables, tabled, chunk)
            if v == u:  # all members identical: any other record will do
                v = s if s != u else s + 1
            if dv > best_d:
                best_d = dv
                best_u = u
                best_v = v
        # a random order of the segment (Fisher-Yates on its positions), in which every other member joins a
        # half; the two seeds' states live in the scratch slots, the halves are written to the other buffer
        for t in range(s, e):
            order[t] = t
        for t in range(e - 1, s, -1):
            j = s + np.random.randint(0, t - s + 1)
            tmp = order[t]
            order[t] = order[j]
            order[j] = tmp
        na = _split_segment(src, dst, src_idx, dst_idx, order, s, e, best_u, best_v, state, costs, meets,
                            tables, tabled, chunk)
        if is_div and not (_segment_diverse(dst_idx, s, s + na, sens, hist2, div)
                           and _segment_diverse(dst_idx, s + na, e, sens, hist2, div)):
            # a half would not be l-diverse: the segment stays one group
            seg_s[n_groups] = s
            seg_e[n_groups] = e
            seg_in[n_groups] = 1 - held
            n_groups += 1
            counter[0] += m
            continue
        st_s[top] = s
        st_e[top] = s + na
        st_in[top] = 1 - held
        st_s[top + 1] = s + na
        st_e[top + 1] = e
        st_in[top + 1] = 1 - held
        top += 2
    # group states and member lists
    for g in range(n_groups):
        s = seg_s[g]
        e = seg_e[g]
        members = idx[seg_in[g]]
        reset_group(state, g, records, members[s])
        for t in range(s, e):
            x = members[t]
            add_record(state, g, records, costs.maps, x)
            labels[x] = g
            nxt[x] = head[g]
            head[g] = x
        size[g] = e - s
    # fix-up of groups smaller than k
    alive = np.ones(n_groups, dtype=np.bool_)
    cand = np.empty(n_donors, dtype=np.int64)
    cand_cost = np.empty(n_donors)
    taken = np.zeros(n, dtype=np.bool_)
    picked = np.empty(k, dtype=np.int64)
    sa = n  # scratch slots
    sb = n + 1
    counter[1] = n + n_groups
    for g in range(n_groups):
        counter[0] = n + g
        while alive[g] and size[g] < k:
            cur_g = size[g] * state_cost(state, g, costs)
            # cheapest merges (the n_donors best, sorted) among the groups made near g
            n_cand = 0
            for h in range(max(0, g - window), min(n_groups, g + window + 1)):
                if h == g or not alive[h]:
                    continue
                d = merge_cost(state, g, h, costs)
                inc = (size[g] + size[h]) * d - cur_g - size[h] * state_cost(state, h, costs)
                if n_cand < n_donors or inc < cand_cost[n_cand - 1]:
                    j = n_cand if n_cand < n_donors else n_donors - 1
                    while j > 0 and cand_cost[j - 1] > inc:
                        cand_cost[j] = cand_cost[j - 1]
                        cand[j] = cand[j - 1]
                        j -= 1
                    cand_cost[j] = inc
                    cand[j] = h
                    if n_cand < n_donors:
                        n_cand += 1
            best_merge = cand[0]
            best_merge_cost = cand_cost[0]
            # borrowing from one of the candidates that keeps at least k (not under l-diversity:
            # merging keeps l-diverse groups diverse, taking records away need not)
            need = k - size[g]
            best_donor = int(np.int64(-1))
            best_borrow_cost = np.inf
            for c in range(0 if is_div else n_cand):
                h = cand[c]
                if size[h] - need < k:
                    continue
                cur_h = size[h] * state_cost(state, h, costs)
                # copy g's state to scratch sa, take `need` members of h greedily
                for b in range(p):
                    state.lo[sa, b] = state.lo[g, b]
                    state.hi[sa, b] = state.hi[g, b]
                for a in range(q):
                    state.lvl[sa, a] = state.lvl[g, a]
                    state.ref[sa, a] = state.ref[g, a]
                _take_cheapest(state, sa, records, costs, head[h], nxt, taken, picked, need)
                new_g = size[g] + need
                cost = new_g * state_cost(state, sa, costs) - cur_g
                # h without the picked members
                first = True
                x = head[h]
                while x >= 0:
                    if not taken[x]:
                        if first:
                            reset_group(state, sb, records, x)
                            first = False
                        else:
                            add_record(state, sb, records, costs.maps, x)
                    x = nxt[x]
                cost += (size[h] - need) * state_cost(state, sb, costs) - cur_h
                for i in range(need):
                    taken[picked[i]] = False
                if cost < best_borrow_cost:
                    best_borrow_cost = cost
                    best_donor = h
            if best_donor >= 0 and best_borrow_cost < best_merge_cost:
                h = best_donor
                # redo the greedy picks for real
                _take_cheapest(state, g, records, costs, head[h], nxt, taken, picked, need)
                # rebuild h's list and state without the picked members
                x = head[h]
                head[h] = -1
                first = True
                while x >= 0:
                    y = nxt[x]
                    if not taken[x]:
                        nxt[x] = head[h]
                        head[h] = x
                        if first:
                            reset_group(state, h, records, x)
                            first = False
                        else:
                            add_record(state, h, records, costs.maps, x)
                    x = y
                for i in range(need):
                    x = picked[i]
                    taken[x] = False
                    labels[x] = g
                    nxt[x] = head[g]
                    head[g] = x
                size[h] -= need
                size[g] += need
            else:
                h = best_merge
                merge_into(state, g, h, costs.maps)
                x = head[h]
                while x >= 0:
                    y = nxt[x]
                    labels[x] = g
                    nxt[x] = head[g]
                    head[g] = x
                    x = y
                head[h] = -1
                size[g] += size[h]
                size[h] = 0
                alive[h] = False
    return labels


def xu_top_down(dataset: Dataset, constraints: int | GroupConstraints, seed: int = 0, rounds: int = 3, *,
                weights: Mapping[str, float] | None = None, window: int | None = _WINDOW) -> NDArray[np.int64]:
    """Partition the records by Xu et al.'s top-down heuristic, minimizing NCP.

    Parameters
    ----------
    dataset : Dataset
        An in-memory dataset; its quasi-identifiers are clustered (numeric, date
        and ordinal ones by value over their range, the others by hierarchy).
    constraints : int or GroupConstraints
        ``k``, or k with l-diversity
        (:func:`anonset.methods.cluster.constraints.constraints_for`).
    seed : int
        Seed of the random choices (first records of the far-pair search,
        order in which records join the seeds).
    rounds : int
        Rounds of the far-pair search per split (>= 1).
    weights : mapping of str to float, optional
        Attribute weights of the NCP (Xu's weighted certainty penalty).
    window : int or None
        A small group's merge partners and donors are sought among the groups
        the splits made within ``window`` positions of it (neighbours in the
        split tree, hence close in the quasi-identifier space); None: among
        all groups (quadratic in the number of groups).

    Returns
    -------
    numpy.ndarray
        int64 class id per row, ids ``0 .. c - 1`` numbered by first row.
        Every class has at least ``k`` records when ``n >= k``; when
        ``n < 2k`` all rows form class 0.

    Raises
    ------
    ValueError
        If ``k < 1`` or ``rounds < 1``.
    anonset.errors.ConfigError
        Bad weights.
    """
    cons = as_constraints(constraints, dataset.n_rows)
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1; got {rounds}")
    prep = prepare_attributes(dataset, weights)
    n = dataset.n_rows
    counter = np.array([0, n], dtype=np.int64)
    with (progress_task("xu-top-down: splitting, fixing", total=n, unit="steps") as bar,
          poll(bar, counter)):
        raw = _topdown_kernel(prep.records, prep.costs(leaf_share_costs(prep, dataset)),
                              meet_tables(prep.maps, prep.codes), cons.k,
                              int(seed) % (2**32), int(rounds), _DONORS, cons.sens, cons.l_diversity,
                              n if window is None else int(window), counter)
        counter[0] = counter[1]
    return renumber_by_first_row(raw)
