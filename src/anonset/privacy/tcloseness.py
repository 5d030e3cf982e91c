"""t-closeness (Li et al.): the sensitive distribution of every class is within t of the table's.

Distances are Earth Mover's Distances with three ground distances:

- ``equal``: every pair of values at distance 1, EMD = ½ Σ |p_i − q_i|;
- ``ordered``: values in order, distance |i − j| / (m − 1),
  EMD = Σ_i |Σ_{j≤i} (p_j − q_j)| / (m − 1);
- ``hierarchical``: distance = height of the lowest common ancestor / height
  of the hierarchy; EMD computed bottom-up, each inner node N moving
  min(positive extra, negative extra) of its children at cost height(N)/H.

The reference distribution is that of the whole input table.  With EMD the
model satisfies the generalization property (merging classes cannot raise the
distance above both parts'), so it is monotone without suppression.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from anonset.core.specs import AttributeType
from anonset.core.stats import ClassStats, StatsRequest
from anonset.errors import ConfigError
from anonset.privacy.base import PrivacyModel, require_number, require_sensitive

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset


__all__ = ["TCloseness", "emd"]

_EPS = 1e-9
DISTANCES = ("equal", "ordered", "hierarchical")


class TCloseness(PrivacyModel):
    """EMD between each class's sensitive distribution and the table's is at most ``t``.

    Parameters
    ----------
    attribute : str
        Categorical (or ordinal / numeric for ``ordered``) sensitive attribute.
    t : float
        Threshold in [0, 1].
    distance : {"equal", "ordered", "hierarchical"}
        Ground distance; ``hierarchical`` needs a hierarchy on the attribute.
    """

    monotonic = True

    def __init__(self, attribute: str, t: float, distance: str = "equal"):
        self.attribute = attribute
        owner = f"t-closeness on {attribute!r}"
        self.t = require_number(owner, "t", t, 0.0, 1.0)
        if distance not in DISTANCES:
            raise ConfigError(f"{owner}: the 'distance' parameter must be one of {' | '.join(DISTANCES)};"
                              f" got {distance!r}")
        self.distance = distance
        self._reference: NDArray[np.float64] | None = None
        self._levels: list[NDArray[np.int32]] | None = None
        self._columns: NDArray[np.int64] | None = None

    @property
    def request(self) -> StatsRequest:
        return StatsRequest(histograms=frozenset([self.attribute]))

    @property
    def protects(self) -> bool:
        """t < 1: no distance between two distributions exceeds 1."""
        return self.t < 1

    def validate(self, dataset: Dataset) -> None:
        """Check the attribute and remember the table's distribution (and hierarchy)."""
        owner = f"t-closeness on {self.attribute!r}"
        require_sensitive(owner, dataset, self.attribute)
        col = dataset.encoded[self.attribute]
        counts = col.counts().astype(np.float64)
        self._reference = counts / counts.sum()
        if self.distance == "hierarchical":
            h = dataset.hierarchy(self.attribute)
            if h is None:
                raise ConfigError(
                    f"{owner}: the hierarchical distance needs a hierarchy on {self.attribute!r};"
                    " give it `hierarchy:` or use distance: equal"
                )
            self._levels = [h.parent_map(j, j + 1) for j in range(h.n_levels - 1)]
        spec = dataset.specs[self.attribute]
        if self.distance == "ordered" and spec.type is AttributeType.CATEGORICAL and spec.order is None:
            raise ConfigError(
                f"{owner}: the ordered distance needs an order on {self.attribute!r}; declare it"
                " `type: numeric` or `type: ordinal` with `order: [...]`, or use distance: equal"
            )
        if self.distance == "ordered":
            self._columns = _value_order(col.categories, col.numbers, spec.order, counts > 0)

    def distances(self, stats: ClassStats) -> NDArray[np.float64]:
        """EMD of each class's sensitive distribution to the table's."""
        if self._reference is None:
            raise RuntimeError("TCloseness.validate(dataset) must be called before judging classes")
        hist = stats.histograms[self.attribute]
        reference = self._reference
        if self._columns is not None:
            hist, reference = hist[:, self._columns], reference[self._columns]
        if self.distance != "hierarchical" and hist.dtype == np.int64:
            from anonset.privacy.distance_kernels import equal_emd, ordered_emd  # numba only when judged

            kernel = equal_emd if self.distance == "equal" else ordered_emd
            return kernel(np.ascontiguousarray(hist), np.ascontiguousarray(reference))
        return emd(hist, reference, self.distance, self._levels)

    @property
    def gives_violation_floor(self) -> bool:
        """With the equal distance only (see :meth:`violation_floor`)."""
        return self.distance == "equal"

    def violation_floor(self, stats: ClassStats) -> NDArray[np.int64] | None:
        """Equal distance: the records of a group that violate however it is divided; None for the other distances.

        With the equal distance a class's EMD is the largest ``q(S) − p(S)``
        over sets S of values, so a passing class holds at most
        ``(p(S) + t)·n`` records with a value in S, for every S.  For the set
        S of the values the group holds above their table share, and for each
        single value, a group of N records holding A of S's leaves at least
        ``(A − t_S·N) / (1 − t_S)`` violating, ``t_S = p(S) + t`` (as for
        β-likeness).  The ordered and hierarchical distances can be smaller
        than the equal one, so this floor does not hold for them.
        """
        if self.distance != "equal":
            return None
        if self._reference is None:
            raise RuntimeError("TCloseness.validate(dataset) must be called before judging classes")
        hist = stats.histograms[self.attribute].astype(np.float64)
        sizes = hist.sum(axis=1)
        limit = (self._reference + self.t + _EPS) * (1.0 + 1e-9)  # single values
        floor = np.zeros(stats.n_classes)
        binding = limit < 1.0
        if binding.any():
            single = (hist[:, binding] - limit[binding] * sizes[:, None]) / (1.0 - limit[binding])
            floor = np.maximum(floor, single.max(axis=1, initial=0.0))
        above = hist > self._reference * sizes[:, None]  # the values each group holds above their share
        share = (above * self._reference).sum(axis=1)
        limit_set = (share + self.t + _EPS) * (1.0 + 1e-9)
        held = (hist * above).sum(axis=1)
        ok = limit_set < 1.0
        floor[ok] = np.maximum(floor[ok], (held[ok] - limit_set[ok] * sizes[ok]) / (1.0 - limit_set[ok]))
        out: NDArray[np.int64] = np.maximum(np.ceil(floor - 1e-6), 0.0).astype(np.int64)
        return out

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """EMD(class, table) <= t per class."""
        return self.distances(stats) <= self.t + _EPS

    def describe(self) -> str:
        return f"{self.t:g}-closeness ({self.distance} distance) on {self.attribute}"


def _value_order(categories: NDArray[np.object_], numbers: NDArray[np.float64] | None, order: tuple[str, ...] | None,
                 present: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Codes of the values present in the table, in the attribute's order (numeric, declared, or code order).

    The ordered distance runs over the m distinct values of the table, whatever
    order the codes were assigned in (a hierarchy's leaf order, say).
    """
    codes = np.flatnonzero(present)
    if numbers is not None:
        return codes[np.argsort(numbers[codes], kind="stable")]
    if order:
        position = {v: i for i, v in enumerate(order)}
        return codes[np.argsort([position.get(str(categories[c]), len(position)) for c in codes], kind="stable")]
    return codes


def emd(histograms: NDArray[np.number[Any]], reference: NDArray[np.float64], distance: str,
        steps: list[NDArray[np.int32]] | None = None) -> NDArray[np.float64]:
    """Earth Mover's Distance of each row's distribution to ``reference``.

    Parameters
    ----------
    histograms : (c, m) counts per class.
    reference : (m,) probabilities.
    distance : "equal" | "ordered" | "hierarchical".
    steps : for hierarchical, ``steps[j][code]`` = parent code at level j+1 of a code at level j.
    """
    h = histograms.astype(np.float64)
    n = h.sum(axis=1, keepdims=True)
    diff = h / np.maximum(n, 1.0) - reference[None, :]
    m = diff.shape[1]
    if distance == "equal":
        return cast("NDArray[np.float64]", 0.5 * np.abs(diff).sum(axis=1))
    if distance == "ordered":
        if m <= 1:
            return np.zeros(len(diff))
        return cast("NDArray[np.float64]", np.abs(np.cumsum(diff, axis=1)[:, :-1]).sum(axis=1) / (m - 1))
    if distance == "hierarchical":
        assert steps is not None
        height = len(steps)
        total = np.zeros(len(diff))
        extra = diff
        for level, step in enumerate(steps, start=1):
            onehot = np.zeros((len(step), int(step.max()) + 1))
            onehot[np.arange(len(step)), step] = 1.0
            pos = np.clip(extra, 0.0, None) @ onehot
            neg = np.clip(-extra, 0.0, None) @ onehot
            total += (level / height) * np.minimum(pos, neg).sum(axis=1)
            extra = pos - neg
        return total
    raise ValueError(f"unknown distance {distance!r}")
