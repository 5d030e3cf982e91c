"""The privacy models of a Mondrian run as arrays, and their compiled judge of candidate children (numba).

:func:`model_arrays` turns the per-class models of a
:class:`~anonset.privacy.base.Requirements` into a :class:`ModelArrays`;
the compiled path (:mod:`anonset.methods.mondrian.compiled.grow`) counts the class
statistics of a candidate's children (:func:`children_stats`) and asks
:func:`all_satisfied` whether every child satisfies every model.  Each rule
repeats the model class's own, with the same thresholds (tolerances
included) and the same floating-point operations in the same order
(:mod:`anonset.methods.mondrian.compiled.floats`):

- k-anonymity (and highest risk, its form ``k = ceil(1/r)``): child sizes
  ``>= k``, checked before any judge (a candidate with a smaller child is none);
- distinct l-diversity: distinct sensitive values ``>= l − 1e-9``;
- entropy l-diversity: ``−Σ p log p >= log l − 1e-9`` (a class at exactly
  ``log l`` is diverse);
- recursive (c, l)-diversity: ``r_1 < c (r_l + … + r_m)``;
- t-closeness: the EMD of the class's distribution to the table's
  ``<= t + 1e-9``; the equal and ordered distances by the model's own
  kernels (:mod:`anonset.privacy.distance_kernels`), the hierarchical one
  here, the extra mass of a node's children summed in leaf order (numpy's
  matrix product may add in another order, so this distance can differ from
  the model's in the last bits: a verdict differs only for a distance within
  about 1e-15 of ``t + 1e-9``);
- squared-error diversity: ``Σ s² − (Σ s)²/n >= error − 1e-9 · max(1, Σ s²)``,
  the sums taken in row order as the model's statistics are;
- β-likeness: no value the class holds has ``(q − p) / p`` above β (basic) or
  ``min(β, −ln p)`` (enhanced), ``q = count / class size``, ``p`` the table's share
  (1 for a value no record holds, as the model divides);
- δ-disclosure privacy: no value the class holds has ``|log(q / p) / log 2| >= δ``.

A model of any other class (a release-level model, or a subclass of one of
these, but for a k-anonymity subclass that keeps its rule) has no arrays:
:func:`model_arrays` returns None and Mondrian runs the Python path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numba
import numpy as np

from anonset.core.stats import RowColumns
from anonset.methods.mondrian.compiled.floats import numpy_sum, numpy_total
from anonset.privacy import ldiversity, tcloseness
from anonset.privacy.disclosure import DeltaDisclosure
from anonset.privacy.distance_kernels import equal_emd, ordered_emd
from anonset.privacy.frequencies import ValueFrequencyModel
from anonset.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from anonset.privacy.likeness import BetaLikeness
from anonset.privacy.squared_error import SquaredErrorDiversity
from anonset.privacy.tcloseness import TCloseness

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset
    from anonset.privacy.base import Requirements

__all__ = ["BETA", "DELTA", "DISTINCT", "ENTROPY", "RECURSIVE", "SQUARED_ERROR", "T_EQUAL", "T_HIERARCHICAL",
           "T_ORDERED", "ModelArrays", "all_satisfied", "children_stats", "model_arrays", "satisfied"]

#: Model kinds of :attr:`ModelArrays.kind`.
DISTINCT, ENTROPY, RECURSIVE, T_EQUAL, T_ORDERED, T_HIERARCHICAL, SQUARED_ERROR, BETA, DELTA = range(1, 10)


class ModelArrays(NamedTuple):
    """The per-class models beyond k-anonymity, and the per-record columns they read.

    Attributes
    ----------
    kind : (M,) int64 kind of each model (:data:`DISTINCT` .. :data:`SQUARED_ERROR`).
    column : (M,) int64 its histogram attribute (row of ``codes``) or moment attribute (row of ``moments``).
    bound : (M,) float64 the threshold its figure is compared with (tolerance included).
    factor : (M,) float64 c of recursive (c, l)-diversity; 1 for enhanced β-likeness.
    whole : (M,) int64 l of recursive (c, l)-diversity.
    reference : (M, W) float64 t-closeness: the table's distribution over ``values`` (hierarchical: every code);
        β-likeness and δ-disclosure: each code's share of the table (1 where no record holds it).
    values : (M, W) int64 equal and ordered distances: the codes they run over (``n_values`` of them; for the
        ordered distance in the attribute's order).
    n_values : (M,) int64 number of those codes.
    steps : (M, H, W) int64 hierarchical distance: parent code at level ``h + 1`` of each code at level ``h``.
    step_width : (M, H) int64 codes at level ``h`` (the length of ``steps[i, h]``).
    height : (M,) int64 hierarchical distance: levels above the leaves.
    codes : (A, n) int32 per-record code of each histogram attribute.
    width : (A,) int64 categories of each histogram attribute.
    offset : (A,) int64 where the attribute's counts start in a class's histogram row.
    moments : (G, n) float64 per-record value of each numeric sensitive attribute.
    """

    kind: NDArray[np.int64]
    column: NDArray[np.int64]
    bound: NDArray[np.float64]
    factor: NDArray[np.float64]
    whole: NDArray[np.int64]
    reference: NDArray[np.float64]
    values: NDArray[np.int64]
    n_values: NDArray[np.int64]
    steps: NDArray[np.int64]
    step_width: NDArray[np.int64]
    height: NDArray[np.int64]
    codes: NDArray[np.int32]
    width: NDArray[np.int64]
    offset: NDArray[np.int64]
    moments: NDArray[np.float64]


def model_arrays(dataset: Dataset, requirements: Requirements) -> ModelArrays | None:
    """The models of ``requirements`` as arrays (validated models), or None when one has no compiled judge."""
    models = [m for m in requirements.models if not m.size_only]  # class-size floors: requirements.k
    known = (DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity, TCloseness, SquaredErrorDiversity,
             BetaLikeness, DeltaDisclosure)
    if any(type(m) not in known for m in models):
        return None
    columns = RowColumns.of(dataset, requirements.request)
    hist_names, moment_names = list(columns.histograms), list(columns.moments)
    widths = np.array([columns.histograms[a][1] for a in hist_names], dtype=np.int64)
    n = dataset.n_rows
    wide = int(widths.max()) if len(widths) else 1
    levels = max((len(m._levels) for m in models if isinstance(m, TCloseness) and m._levels), default=1)
    count = len(models)
    kind = np.zeros(count, dtype=np.int64)
    column = np.zeros(count, dtype=np.int64)
    bound = np.zeros(count)
    factor = np.zeros(count)
    whole = np.zeros(count, dtype=np.int64)
    reference = np.zeros((count, wide))
    values = np.zeros((count, wide), dtype=np.int64)
    n_values = np.zeros(count, dtype=np.int64)
    steps = np.zeros((count, levels, wide), dtype=np.int64)
    step_width = np.zeros((count, levels), dtype=np.int64)
    height = np.zeros(count, dtype=np.int64)
    for i, m in enumerate(models):
        if isinstance(m, SquaredErrorDiversity):
            kind[i], column[i], bound[i] = SQUARED_ERROR, moment_names.index(m.attribute), m.error
            continue
        assert isinstance(m, (DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity, TCloseness,
                              ValueFrequencyModel))
        column[i] = hist_names.index(m.attribute)
        if isinstance(m, ValueFrequencyModel):
            shares = m.frequencies_divisor()
            if len(shares) != widths[column[i]]:
                return None
            reference[i, : len(shares)] = shares
            if isinstance(m, BetaLikeness):
                kind[i], bound[i], factor[i] = BETA, m.beta, float(m.variant == "enhanced")
            else:
                assert isinstance(m, DeltaDisclosure)
                kind[i], bound[i] = DELTA, m.delta
        elif isinstance(m, DistinctLDiversity):
            kind[i], bound[i] = DISTINCT, m.l - ldiversity._EPS
        elif isinstance(m, EntropyLDiversity):
            kind[i], bound[i] = ENTROPY, np.log(m.l) - ldiversity._EPS
        elif isinstance(m, RecursiveCLDiversity):
            kind[i], factor[i], whole[i] = RECURSIVE, m.c, int(m.l)
        elif not _t_closeness(m, i, int(widths[column[i]]), kind, bound, reference, values, n_values, steps,
                              step_width, height):
            return None
    codes = (np.stack([np.asarray(columns.histograms[a][0], dtype=np.int32) for a in hist_names]) if hist_names
             else np.zeros((0, n), dtype=np.int32))
    moments = (np.stack([columns.moments[a] for a in moment_names]) if moment_names else np.zeros((0, n)))
    offset = np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.int64) if len(widths) else widths
    return ModelArrays(kind=kind, column=column, bound=bound, factor=factor, whole=whole, reference=reference,
                       values=values, n_values=n_values, steps=steps, step_width=step_width, height=height,
                       codes=np.ascontiguousarray(codes), width=widths, offset=offset,
                       moments=np.ascontiguousarray(moments, dtype=np.float64))


def _t_closeness(m: TCloseness, i: int, width: int, kind: NDArray[np.int64], bound: NDArray[np.float64],
                 reference: NDArray[np.float64], values: NDArray[np.int64], n_values: NDArray[np.int64],
                 steps: NDArray[np.int64], step_width: NDArray[np.int64], height: NDArray[np.int64]) -> bool:
    """Fill row i for a validated t-closeness model; False when its distance cannot be judged here."""
    if m._reference is None or len(m._reference) != width:
        return False
    bound[i] = m.t + tcloseness._EPS
    if m.distance in ("equal", "ordered"):
        columns = np.arange(width) if m._columns is None else m._columns
        kind[i], n_values[i] = (T_EQUAL if m.distance == "equal" else T_ORDERED), len(columns)
        values[i, : len(columns)] = columns
        reference[i, : len(columns)] = m._reference[columns]
        return True
    reference[i, :width] = m._reference
    assert m._levels is not None
    if not m._levels or len(m._levels[0]) != width:
        return False
    kind[i], height[i] = T_HIERARCHICAL, len(m._levels)
    for h, step in enumerate(m._levels):
        step_width[i, h] = len(step)
        steps[i, h, : len(step)] = step
    return True


@numba.njit(cache=True, nogil=True)
def children_stats(models: ModelArrays, rows: NDArray[np.int64], s: int, e: int, label: NDArray[np.int64],
                   n_children: int, sizes: NDArray[np.int64], hist: NDArray[np.int64], sums: NDArray[np.float64],
                   sumsq: NDArray[np.float64]) -> None:  # pragma: no cover - compiled
    """Class statistics of the children ``label[r]`` of the records ``rows[s:e]`` (taken in that order).

    ``hist`` is (children, Σ width) counts, ``sums``/``sumsq`` (G, children) sums of each moment
    attribute and of its square, as :meth:`~anonset.core.stats.RowColumns.stats` computes them.
    """
    total = hist.shape[1]
    for u in range(n_children):
        sizes[u] = 0
        for x in range(total):
            hist[u, x] = 0
        for g in range(sums.shape[0]):
            sums[g, u] = 0.0
            sumsq[g, u] = 0.0
    for i in range(s, e):
        r = rows[i]
        u = label[r]
        sizes[u] += 1
        for a in range(models.codes.shape[0]):
            hist[u, models.offset[a] + models.codes[a, r]] += 1
        for g in range(models.moments.shape[0]):
            v = models.moments[g, r]
            sums[g, u] += v
            sumsq[g, u] += v * v


@numba.njit(cache=True, nogil=True)
def _class_satisfies(models: ModelArrays, i: int, u: int, sizes: NDArray[np.int64], hist: NDArray[np.int64],
                     sums: NDArray[np.float64], sumsq: NDArray[np.float64],
                     scratch: NDArray[np.float64]) -> bool:  # pragma: no cover - compiled
    """Does class u satisfy model i?  ``scratch`` holds at least ``4 · W`` floats."""
    kind = models.kind[i]
    if kind == SQUARED_ERROR:
        g = models.column[i]
        s = sums[g, u]
        sq = sumsq[g, u]
        sse = sq - s * s / max(sizes[u], 1)
        return bool(sse >= models.bound[i] - 1e-9 * max(1.0, abs(sq)))
    a = models.column[i]
    off = models.offset[a]
    w = models.width[a]
    if kind == DISTINCT:
        distinct = 0
        for x in range(w):
            if hist[u, off + x] > 0:
                distinct += 1
        return bool(distinct >= models.bound[i])
    if kind == RECURSIVE:
        l_int = models.whole[i]
        if w < l_int:
            return False
        for x in range(w):  # the counts in decreasing order (insertion sort: few sensitive values)
            v = float(hist[u, off + x])
            t = x
            while t > 0 and scratch[t - 1] < v:
                scratch[t] = scratch[t - 1]
                t -= 1
            scratch[t] = v
        tail = 0.0
        for x in range(l_int - 1, w):
            tail += scratch[x]
        return bool(scratch[0] < models.factor[i] * tail)
    n = 0.0
    for x in range(w):
        n += hist[u, off + x]
    n = max(n, 1.0)
    if kind in (BETA, DELTA):
        for x in range(w):
            h = hist[u, off + x]
            if h == 0:
                continue
            p = models.reference[i, x]
            q = h / n
            if kind == DELTA:
                if np.abs(np.log(q / p) / np.log(2.0)) >= models.bound[i]:
                    return False
            else:
                limit = min(models.bound[i], -np.log(p)) if models.factor[i] > 0 else models.bound[i]
                if (q - p) / p > limit:
                    return False
        return True
    if kind == ENTROPY:
        for x in range(w):
            h = hist[u, off + x]
            if h > 0:
                p = h / n
                scratch[x] = p * np.log(p)
            else:
                scratch[x] = 0.0
        return bool(-numpy_total(scratch, w) >= models.bound[i])
    return bool(_emd(models, i, hist[u, off:off + w], n, scratch) <= models.bound[i])


@numba.njit(cache=True, nogil=True)
def _emd(models: ModelArrays, i: int, counts: NDArray[np.int64], n: float,
         scratch: NDArray[np.float64]) -> float:  # pragma: no cover - compiled
    """Earth mover's distance of one class (counts over ``n`` records) to the table, as the model computes it."""
    kind = models.kind[i]
    w = len(counts)
    if kind in (T_EQUAL, T_ORDERED):  # the model's own kernels, on the values they run over
        m = models.n_values[i]
        block = np.empty((1, m), dtype=np.int64)
        for x in range(m):
            block[0, x] = counts[models.values[i, x]]
        if kind == T_EQUAL:
            return float(equal_emd(block, models.reference[i])[0])
        return float(ordered_emd(block, models.reference[i])[0])
    # hierarchical: extra mass bottom-up; scratch = [extra | positive | negative | smaller of the two]
    wide = scratch.shape[0] // 4
    for x in range(w):
        scratch[x] = counts[x] / n - models.reference[i, x]
    height = models.height[i]
    total = 0.0
    for level in range(1, height + 1):
        below = models.step_width[i, level - 1]
        groups = int(0)  # noqa: UP018 - typed: numba would compile numpy_sum once more for a literal
        for x in range(below):
            groups = max(groups, models.steps[i, level - 1, x] + 1)
        for g in range(groups):
            scratch[wide + g] = 0.0
            scratch[2 * wide + g] = 0.0
        for x in range(below):
            g = models.steps[i, level - 1, x]
            scratch[wide + g] += max(scratch[x], 0.0)
            scratch[2 * wide + g] += max(-scratch[x], 0.0)
        for g in range(groups):
            scratch[3 * wide + g] = min(scratch[wide + g], scratch[2 * wide + g])
        total += (level / height) * numpy_sum(scratch, 3 * wide, groups)
        for g in range(groups):
            scratch[g] = scratch[wide + g] - scratch[2 * wide + g]
    return total


@numba.njit(cache=True, nogil=True)
def all_satisfied(models: ModelArrays, n_children: int, sizes: NDArray[np.int64], hist: NDArray[np.int64],
                  sums: NDArray[np.float64], sumsq: NDArray[np.float64],
                  scratch: NDArray[np.float64]) -> bool:  # pragma: no cover - compiled
    """True when each of the ``n_children`` classes satisfies every model."""
    for i in range(len(models.kind)):
        for u in range(n_children):
            if not _class_satisfies(models, i, u, sizes, hist, sums, sumsq, scratch):
                return False
    return True


@numba.njit(cache=True, nogil=True)
def satisfied(models: ModelArrays, sizes: NDArray[np.int64], hist: NDArray[np.int64], sums: NDArray[np.float64],
              sumsq: NDArray[np.float64]) -> NDArray[np.bool_]:  # pragma: no cover - compiled
    """(M, C) verdict of each model on each class of the given statistics (what the tests hold to the models)."""
    out = np.zeros((len(models.kind), len(sizes)), dtype=np.bool_)
    scratch = np.zeros(4 * max(models.reference.shape[1], 1))
    for i in range(len(models.kind)):
        for u in range(len(sizes)):
            out[i, u] = _class_satisfies(models, i, u, sizes, hist, sums, sumsq, scratch)
    return out
