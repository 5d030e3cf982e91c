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
(``size = 1 → 0``).  Attributes are split as in :mod:`anonset.cluster.kmember`:
numeric and date quasi-identifiers by value, the others by hierarchy.

One split of a group (heuristic of Section 4.2): ``rounds`` times, take a
random member ``r``, let ``u`` maximize ``NCP({r, u})`` and ``v`` maximize
``NCP({u, v})``, keeping the farthest pair over the rounds.  ``u`` and ``v``
seed two groups; every other member, in random order, joins the group whose
NCP grows less (ties: the smaller group, then ``u``'s).  Groups of at least
``2k`` records are split again.

Fix-up: each group with fewer than ``k`` records (in the order the groups were
made) either absorbs the group whose merge raises the total NCP least, or
takes the missing records from a group that keeps at least ``k`` records,
whichever costs less; this repeats until the group has ``k`` records.  Donors
are sought among the ``_DONORS`` groups with the cheapest merge (an
approximation: scoring every group as donor would cost a pass over each).
A donor gives, one at a time, the member that raises the small group's NCP
least.

Everything runs in one numba kernel on an index array (the table is never
copied per group).  Per group the kernel keeps the min and max of each
numeric attribute and, per categorical attribute, the LCA level and one
member leaf, so a join decision is O(attributes · hierarchy height).  The
random choices come from numba's generator seeded with ``seed``: the result
depends only on the data, ``k``, ``seed`` and ``rounds``.
"""

from __future__ import annotations

import numba
import numpy as np

from anonset.cluster.kmember import lca_level, prepare_attributes
from anonset.dataset import Dataset

__all__ = ["xu_top_down"]

_DONORS = 5


def leaf_share_table(dataset: Dataset, categorical: tuple[str, ...], maps: np.ndarray) -> np.ndarray:
    """``share[a, lv, x]``: leaves under leaf ``x``'s ancestor at level ``lv`` / leaves of the hierarchy.

    0 when that ancestor covers one leaf; levels above an attribute's top
    (padding) count as its root.
    """
    q, n_levels, n_leaves = maps.shape
    share = np.zeros((q, n_levels, n_leaves), dtype=np.float64)
    for a, name in enumerate(categorical):
        h = dataset.require_hierarchy(name)
        total = h.n_leaves
        for lv in range(n_levels):
            if lv < len(h.maps):
                anc = np.asarray(h.maps[lv], dtype=np.int64)
                counts = np.bincount(anc)[anc]
            else:
                counts = np.full(total, total)
            if lv == n_levels - 1:
                counts = np.full(total, total)  # the kernel's top level stands for the root
            share[a, lv, :total] = np.where(counts > 1, counts / total, 0.0)
    return share


@numba.njit(cache=True, nogil=True)
def _pair_cost(values, num_w, codes, maps, share, r, x):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Per-record NCP of the two-record group ``{r, x}``."""
    d = 0.0
    for b in range(values.shape[1]):
        d += abs(values[r, b] - values[x, b]) * num_w[b]
    for a in range(codes.shape[1]):
        d += share[a, lca_level(maps, a, 0, codes[r, a], codes[x, a]), codes[r, a]]
    return d


@numba.njit(cache=True, nogil=True)
def _state_cost(lo, hi, lvl, ref, g, num_w, share):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Per-record NCP of group ``g`` from its state."""
    d = 0.0
    for b in range(lo.shape[1]):
        d += (hi[g, b] - lo[g, b]) * num_w[b]
    for a in range(lvl.shape[1]):
        d += share[a, lvl[g, a], ref[g, a]]
    return d


@numba.njit(cache=True, nogil=True)
def _cost_with(lo, hi, lvl, ref, g, values, codes, num_w, maps, share, x):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Per-record NCP of group ``g`` after adding record ``x``."""
    d = 0.0
    for b in range(lo.shape[1]):
        v = values[x, b]
        d += (max(hi[g, b], v) - min(lo[g, b], v)) * num_w[b]
    for a in range(lvl.shape[1]):
        d += share[a, lca_level(maps, a, lvl[g, a], ref[g, a], codes[x, a]), ref[g, a]]
    return d


@numba.njit(cache=True, nogil=True)
def _add(lo, hi, lvl, ref, g, values, codes, maps, x):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Add record ``x`` to group ``g``'s state."""
    for b in range(lo.shape[1]):
        v = values[x, b]
        lo[g, b] = min(lo[g, b], v)
        hi[g, b] = max(hi[g, b], v)
    for a in range(lvl.shape[1]):
        lvl[g, a] = lca_level(maps, a, lvl[g, a], ref[g, a], codes[x, a])


@numba.njit(cache=True, nogil=True)
def _reset(lo, hi, lvl, ref, g, values, codes, x):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Make group ``g``'s state that of the single record ``x``."""
    for b in range(lo.shape[1]):
        lo[g, b] = values[x, b]
        hi[g, b] = values[x, b]
    for a in range(lvl.shape[1]):
        lvl[g, a] = 0
        ref[g, a] = codes[x, a]


@numba.njit(cache=True, nogil=True)
def _take_cheapest(lo, hi, lvl, ref, target, values, codes, num_w, maps, share, first, nxt, taken, picked,  # type: ignore[no-untyped-def]
                   need):  # pragma: no cover
    """Move ``need`` records, one at a time, from the list starting at ``first`` into group ``target``:
    each time the one whose addition costs least (marked in ``taken``, recorded in ``picked``)."""
    for i in range(need):
        bx = -1
        bd = np.inf
        x = first
        while x >= 0:
            if not taken[x]:
                d = _cost_with(lo, hi, lvl, ref, target, values, codes, num_w, maps, share, x)
                if d < bd:
                    bd = d
                    bx = x
            x = nxt[x]
        taken[bx] = True
        picked[i] = bx
        _add(lo, hi, lvl, ref, target, values, codes, maps, bx)


@numba.njit(cache=True, nogil=True)
def _topdown_kernel(values, num_w, codes, maps, share, k, seed, rounds, n_donors):  # type: ignore[no-untyped-def]  # pragma: no cover
    n = values.shape[0]
    p = values.shape[1]
    q = codes.shape[1]
    labels = np.zeros(n, dtype=np.int64)
    if n < 2 * k:
        return labels
    np.random.seed(seed)
    idx = np.arange(n)
    buf = np.empty(n, dtype=np.int64)
    # group state: at most n groups, then two scratch slots (n and n + 1)
    lo = np.empty((n + 2, p))
    hi = np.empty((n + 2, p))
    lvl = np.zeros((n + 2, q), dtype=np.int64)
    ref = np.zeros((n + 2, q), dtype=np.int64)
    size = np.zeros(n, dtype=np.int64)
    head = np.full(n, -1, dtype=np.int64)  # member linked lists, built after the splits
    nxt = np.full(n, -1, dtype=np.int64)
    n_groups = 0
    # stack of segments idx[s:e] to split
    st_s = np.empty(n, dtype=np.int64)
    st_e = np.empty(n, dtype=np.int64)
    st_s[0] = 0
    st_e[0] = n
    top = 1
    seg_s = np.empty(n, dtype=np.int64)  # final segments, one per group
    seg_e = np.empty(n, dtype=np.int64)
    while top > 0:
        top -= 1
        s = st_s[top]
        e = st_e[top]
        m = e - s
        if m < 2 * k:
            seg_s[n_groups] = s
            seg_e[n_groups] = e
            n_groups += 1
            continue
        # far pair
        best_u = -1
        best_v = -1
        best_d = -1.0
        for _ in range(rounds):
            r = idx[s + np.random.randint(0, m)]
            u = r
            du = -1.0
            for t in range(s, e):
                d = _pair_cost(values, num_w, codes, maps, share, r, idx[t])
                if d > du:
                    du = d
                    u = idx[t]
            v = u
            dv = -1.0
            for t in range(s, e):
                d = _pair_cost(values, num_w, codes, maps, share, u, idx[t])
                if d > dv:
                    dv = d
                    v = idx[t]
            if v == u:  # all members identical: any other record will do
                v = idx[s] if idx[s] != u else idx[s + 1]
            if dv > best_d:
                best_d = dv
                best_u = u
                best_v = v
        # shuffle the segment (Fisher-Yates), then assign in that order; the two seeds' states live in the scratch slots
        for t in range(e - 1, s, -1):
            j = s + np.random.randint(0, t - s + 1)
            tmp = idx[t]
            idx[t] = idx[j]
            idx[j] = tmp
        ga = n
        gb = n + 1
        _reset(lo, hi, lvl, ref, ga, values, codes, best_u)
        _reset(lo, hi, lvl, ref, gb, values, codes, best_v)
        na = 1
        nb = 1
        buf[s] = best_u
        buf[e - 1] = best_v
        for t in range(s, e):
            x = idx[t]
            if x == best_u or x == best_v:
                continue
            inc_a = (na + 1) * _cost_with(lo, hi, lvl, ref, ga, values, codes, num_w, maps, share, x) - na * (
                _state_cost(lo, hi, lvl, ref, ga, num_w, share)
            )
            inc_b = (nb + 1) * _cost_with(lo, hi, lvl, ref, gb, values, codes, num_w, maps, share, x) - nb * (
                _state_cost(lo, hi, lvl, ref, gb, num_w, share)
            )
            if inc_a < inc_b or (inc_a == inc_b and na <= nb):
                _add(lo, hi, lvl, ref, ga, values, codes, maps, x)
                buf[s + na] = x
                na += 1
            else:
                _add(lo, hi, lvl, ref, gb, values, codes, maps, x)
                buf[e - 1 - nb] = x
                nb += 1
        for t in range(s, e):
            idx[t] = buf[t]
        st_s[top] = s
        st_e[top] = s + na
        st_s[top + 1] = s + na
        st_e[top + 1] = e
        top += 2
    # group states and member lists
    for g in range(n_groups):
        s = seg_s[g]
        e = seg_e[g]
        _reset(lo, hi, lvl, ref, g, values, codes, idx[s])
        for t in range(s, e):
            x = idx[t]
            _add(lo, hi, lvl, ref, g, values, codes, maps, x)
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
    for g in range(n_groups):
        while alive[g] and size[g] < k:
            cur_g = size[g] * _state_cost(lo, hi, lvl, ref, g, num_w, share)
            # cheapest merges (the n_donors best, sorted)
            n_cand = 0
            for h in range(n_groups):
                if h == g or not alive[h]:
                    continue
                d = 0.0
                for b in range(p):
                    d += (max(hi[g, b], hi[h, b]) - min(lo[g, b], lo[h, b])) * num_w[b]
                for a in range(q):
                    lv = lca_level(maps, a, max(lvl[g, a], lvl[h, a]), ref[g, a], ref[h, a])
                    d += share[a, lv, ref[g, a]]
                inc = (size[g] + size[h]) * d - cur_g - size[h] * _state_cost(lo, hi, lvl, ref, h, num_w, share)
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
            # borrowing from one of the candidates that keeps at least k
            need = k - size[g]
            best_donor = -1
            best_borrow_cost = np.inf
            for c in range(n_cand):
                h = cand[c]
                if size[h] - need < k:
                    continue
                cur_h = size[h] * _state_cost(lo, hi, lvl, ref, h, num_w, share)
                # copy g's state to scratch sa, take `need` members of h greedily
                for b in range(p):
                    lo[sa, b] = lo[g, b]
                    hi[sa, b] = hi[g, b]
                for a in range(q):
                    lvl[sa, a] = lvl[g, a]
                    ref[sa, a] = ref[g, a]
                _take_cheapest(lo, hi, lvl, ref, sa, values, codes, num_w, maps, share, head[h], nxt, taken, picked,
                               need)
                new_g = size[g] + need
                cost = new_g * _state_cost(lo, hi, lvl, ref, sa, num_w, share) - cur_g
                # h without the picked members
                first = True
                x = head[h]
                while x >= 0:
                    if not taken[x]:
                        if first:
                            _reset(lo, hi, lvl, ref, sb, values, codes, x)
                            first = False
                        else:
                            _add(lo, hi, lvl, ref, sb, values, codes, maps, x)
                    x = nxt[x]
                cost += (size[h] - need) * _state_cost(lo, hi, lvl, ref, sb, num_w, share) - cur_h
                for i in range(need):
                    taken[picked[i]] = False
                if cost < best_borrow_cost:
                    best_borrow_cost = cost
                    best_donor = h
            if best_donor >= 0 and best_borrow_cost < best_merge_cost:
                h = best_donor
                # redo the greedy picks for real
                _take_cheapest(lo, hi, lvl, ref, g, values, codes, num_w, maps, share, head[h], nxt, taken, picked,
                               need)
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
                            _reset(lo, hi, lvl, ref, h, values, codes, x)
                            first = False
                        else:
                            _add(lo, hi, lvl, ref, h, values, codes, maps, x)
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
                for b in range(p):
                    lo[g, b] = min(lo[g, b], lo[h, b])
                    hi[g, b] = max(hi[g, b], hi[h, b])
                for a in range(q):
                    lvl[g, a] = lca_level(maps, a, max(lvl[g, a], lvl[h, a]), ref[g, a], ref[h, a])
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


def xu_top_down(dataset: Dataset, k: int, seed: int = 0, rounds: int = 3) -> np.ndarray:
    """Partition the records by Xu et al.'s top-down heuristic, minimizing NCP.

    Parameters
    ----------
    dataset : Dataset
        An in-memory dataset; its quasi-identifiers are clustered (numeric and
        date ones by value over their range, the others by hierarchy).
    k : int
        Minimum class size (>= 1).
    seed : int
        Seed of the random choices (first records of the far-pair search,
        order in which records join the seeds).
    rounds : int
        Rounds of the far-pair search per split (>= 1).

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
    anonset.errors.DataError
        If the rows are not in memory.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1; got {k}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1; got {rounds}")
    prep = prepare_attributes(dataset)
    share = leaf_share_table(dataset, prep.categorical, prep.maps)
    raw = _topdown_kernel(
        prep.values, prep.num_weight, prep.codes, prep.maps, share, int(k), int(seed) % (2**32), int(rounds),
        _DONORS,
    )
    # renumber by first occurrence in row order
    _, first, inverse = np.unique(raw, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return np.asarray(rank[inverse], dtype=np.int64)
