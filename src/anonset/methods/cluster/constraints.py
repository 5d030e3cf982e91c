"""What the clustering methods enforce while they form groups, in the arrays their kernels read.

The clustering methods (k-member, Xu's bottom-up and top-down) enforce
k-anonymity and, where configured, distinct and entropy l-diversity *while*
they form groups, so their releases never need repair afterwards (every
release is still re-verified independently).  Byun's classification-aware
k-member also reads the class label of every record.

A group's sensitive values are kept as a histogram over one combined value
space: attribute ``a``'s value ``v`` is column ``offsets[a] + v``.  The
helpers below are numba functions the kernels call on such histograms, with
the requirements as one :class:`Diversity` named tuple.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np
from numpy.typing import NDArray

from anonset.core.dataset import Dataset
from anonset.core.stats import stats_from_assignment
from anonset.core.targets import the_target
from anonset.errors import ConfigError, InfeasibleError
from anonset.privacy.base import Requirements
from anonset.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity

__all__ = ["Diversity", "GroupConstraints", "constraints_for", "distinct_deficit", "diverse", "helpful_values",
           "kanonymity_only", "union_diverse"]

DISTINCT = 0
ENTROPY = 1
_EPS = 1e-9


class Diversity(NamedTuple):
    """The l-diversity requirements as the kernels read them (see :class:`GroupConstraints`)."""

    offsets: NDArray[np.int64]  # (s + 1,) int64 start of each attribute's histogram columns
    kinds: NDArray[np.int64]  # (s,) int64 0 distinct, 1 entropy
    lvals: NDArray[np.float64]  # (s,) float64 the l of each requirement


@dataclass(frozen=True)
class GroupConstraints:
    """k, the l-diversity requirements and the class labels, as kernel-ready arrays.

    Attributes
    ----------
    k : int
        Minimum group size.
    sens : numpy.ndarray
        (n, s) int64 column of each record's value of each l-diverse
        attribute in the combined histogram (offset included).
    offsets : numpy.ndarray
        (s + 1,) int64 start of each attribute's columns; ``offsets[-1]`` is the width.
    kinds : numpy.ndarray
        (s,) int64 ``0`` distinct, ``1`` entropy l-diversity.
    lvals : numpy.ndarray
        (s,) float64 the l of each requirement.
    labels : numpy.ndarray
        (n,) int64 class label code of each record (zeros without a target).
    n_labels : int
        Number of class labels (1 without a target).
    """

    k: int
    sens: NDArray[np.int64]
    offsets: NDArray[np.int64]
    kinds: NDArray[np.int64]
    lvals: NDArray[np.float64]
    labels: NDArray[np.int64]
    n_labels: int

    @property
    def diversity(self) -> bool:
        """True when some l-diversity requirement is enforced."""
        return len(self.kinds) > 0

    @property
    def l_diversity(self) -> Diversity:
        """``offsets``, ``kinds`` and ``lvals`` as one named tuple, the form the kernels take."""
        return Diversity(self.offsets, self.kinds, self.lvals)

    @property
    def width(self) -> int:
        """Columns of a group's sensitive-value histogram (at least 1, so arrays are never empty)."""
        return max(int(self.offsets[-1]), 1)

    def histograms(self, row_class: NDArray[np.int64], n_groups: int) -> NDArray[np.int64]:
        """(n_groups, width) int64 sensitive-value histogram of each group of an assignment."""
        hist = np.zeros((n_groups, self.width), dtype=np.int64)
        for a in range(self.sens.shape[1]):
            np.add.at(hist, (row_class, self.sens[:, a]), 1)
        return hist


def constraints_for(dataset: Dataset, requirements: Requirements, method: str,
                    target: str | None = None) -> GroupConstraints:
    """Translate the requirements into :class:`GroupConstraints` for a clustering method.

    Parameters
    ----------
    dataset : Dataset
        The in-memory dataset to be clustered.
    requirements : Requirements
        k-anonymity and optionally distinct / entropy l-diversity; no
        suppression budget (the clustering methods suppress nothing).
    method : str
        The method's name, for messages.
    target : str, optional
        The class-label column of the classification-aware variant; it must
        have role ``target`` (:func:`anonset.core.targets.the_target`).

    Raises
    ------
    ConfigError
        A model the method cannot enforce, a suppression budget, or a target
        that is not a column with role ``target``.
    InfeasibleError
        k larger than the table, or the whole table already violating an
        l-diversity requirement (then no grouping can satisfy it).
    """
    n = dataset.n_rows
    kinds: list[int] = []
    lvals: list[float] = []
    columns: list[NDArray[np.int64]] = []
    offsets = [0]
    for model in requirements.models:
        if model.size_only:  # k-anonymity, estimated k-map: the class-size floor k below
            continue
        if isinstance(model, (DistinctLDiversity, EntropyLDiversity)):
            kinds.append(DISTINCT if isinstance(model, DistinctLDiversity) else ENTROPY)
            lvals.append(float(model.l))
            enc = dataset.encoded[model.attribute]
            columns.append(np.asarray(enc.row_codes(), dtype=np.int64) + offsets[-1])
            offsets.append(offsets[-1] + enc.n_categories)
            continue
        raise ConfigError(f"method {method!r} enforces k-anonymity and distinct or entropy l-diversity; it cannot"
                          f" enforce {model.describe()}: remove it, or use mondrian or a full-domain method")
    if requirements.max_suppression:
        raise ConfigError(f"method {method!r} suppresses no records; set max_suppression to 0")
    k = requirements.k
    if k > n:
        raise InfeasibleError(f"{dataset.source}: k = {k} is larger than the table ({n} records); lower k or use"
                              " more data")
    whole = stats_from_assignment(dataset, np.zeros(n, dtype=np.int64), requirements.request)
    verdict = requirements.judge(whole, n)
    if n and verdict.violating.any():
        raise InfeasibleError(f"{dataset.source}: the whole table violates {requirements.describe()}, so no"
                              " grouping of it can satisfy it; lower l or use more data")
    labels = np.zeros(n, dtype=np.int64)
    n_labels = 1
    if target is not None:
        target = the_target(dataset, target, f"{method} class_penalty")
        if not dataset.in_memory:
            raise ConfigError(f"{dataset.source}: class_penalty needs the records in memory")
        _, inverse = np.unique(dataset.column(target).astype(str).to_numpy(), return_inverse=True)
        labels = np.asarray(inverse, dtype=np.int64).reshape(-1)
        n_labels = max(int(labels.max()) + 1 if n else 1, 1)
    sens = np.column_stack(columns) if columns else np.zeros((n, 0), dtype=np.int64)
    return GroupConstraints(
        k=int(k), sens=np.ascontiguousarray(sens, dtype=np.int64), offsets=np.asarray(offsets, dtype=np.int64),
        kinds=np.asarray(kinds, dtype=np.int64), lvals=np.asarray(lvals, dtype=np.float64), labels=labels,
        n_labels=n_labels,
    )


def kanonymity_only(k: int, n: int) -> GroupConstraints:
    """Constraints of plain k-anonymity for ``n`` records (no l-diversity, no labels)."""
    return GroupConstraints(k=int(k), sens=np.zeros((n, 0), dtype=np.int64), offsets=np.zeros(1, dtype=np.int64),
                            kinds=np.zeros(0, dtype=np.int64), lvals=np.zeros(0), labels=np.zeros(n, dtype=np.int64),
                            n_labels=1)


@numba.njit(cache=True, nogil=True)
def _attribute_ok(hist: NDArray[np.int64], g: int, h: int, a: int, div: Diversity) -> bool:  # pragma: no cover
    """Does group ``g`` (joined with group ``h`` when ``h >= 0``) satisfy requirement ``a``?"""
    s = div.offsets[a]
    e = div.offsets[a + 1]
    distinct = 0
    total = 0
    clogc = 0.0
    for v in range(s, e):
        c = hist[g, v]
        if h >= 0:
            c += hist[h, v]
        if c > 0:
            distinct += 1
            total += c
            clogc += c * np.log(c)
    if div.kinds[a] == DISTINCT:
        return bool(distinct >= div.lvals[a] - _EPS)
    if total == 0:
        return False
    return bool(np.log(total) - clogc / total >= np.log(div.lvals[a]) - _EPS)


@numba.njit(cache=True, nogil=True)
def diverse(hist: NDArray[np.int64], g: int, div: Diversity) -> bool:  # pragma: no cover
    """True when group ``g`` (row of ``hist``) satisfies every l-diversity requirement."""
    for a in range(len(div.kinds)):  # noqa: SIM110 - compiled by numba, which takes the loop, not a generator
        if not _attribute_ok(hist, g, int(np.int64(-1)), a, div):
            return False
    return True


@numba.njit(cache=True, nogil=True)
def union_diverse(hist: NDArray[np.int64], g: int, h: int, div: Diversity) -> bool:  # pragma: no cover
    """True when the union of groups ``g`` and ``h`` would satisfy every requirement (thread-safe)."""
    for a in range(len(div.kinds)):  # noqa: SIM110 - compiled by numba, which takes the loop, not a generator
        if not _attribute_ok(hist, g, h, a, div):
            return False
    return True


@numba.njit(cache=True, nogil=True)
def helpful_values(hist: NDArray[np.int64], g: int, div: Diversity,
                   mask: NDArray[np.bool_]) -> int:  # pragma: no cover
    """Mark in ``mask`` the values whose addition brings group ``g`` closer to an unmet requirement.

    Distinct: a value the group lacks.  Entropy: a value whose addition
    raises the entropy.  Returns the number of unmet requirements.
    """
    mask[:] = False
    unmet = 0
    for a in range(len(div.kinds)):
        if _attribute_ok(hist, g, int(np.int64(-1)), a, div):
            continue
        unmet += 1
        s = div.offsets[a]
        e = div.offsets[a + 1]
        if div.kinds[a] == DISTINCT:
            for v in range(s, e):
                if hist[g, v] == 0:
                    mask[v] = True
            continue
        total = 0
        clogc = 0.0
        for v in range(s, e):
            c = hist[g, v]
            if c > 0:
                total += c
                clogc += c * np.log(c)
        now = np.log(total) - clogc / total if total > 0 else -1.0
        for v in range(s, e):
            c = hist[g, v]
            old = c * np.log(c) if c > 0 else 0.0
            new_clogc = clogc - old + (c + 1) * np.log(c + 1)
            after = np.log(total + 1) - new_clogc / (total + 1)
            if after > now + _EPS:
                mask[v] = True
    return unmet


@numba.njit(cache=True, nogil=True)
def distinct_deficit(hist: NDArray[np.int64], g: int, div: Diversity) -> int:  # pragma: no cover
    """Most distinct values group ``g`` still lacks for any requirement (⌈l⌉ − distinct, at least 0)."""
    worst = 0
    for a in range(len(div.kinds)):
        distinct = 0
        for v in range(div.offsets[a], div.offsets[a + 1]):
            if hist[g, v] > 0:
                distinct += 1
        need = int(np.ceil(div.lvals[a] - _EPS)) - distinct
        worst = max(worst, need)
    return worst
