"""The clustering methods as partitioning methods: requirements in, a :class:`ClusterGrouping` out.

``k_member``, ``xu_top_down_method`` and ``xu_bottom_up_method`` take a dataset
and the :class:`~anonset.privacy.base.Requirements` (the signature every
partitioning method shares, see :data:`anonset.anonymizer.PARTITION_METHODS`),
translate the requirements into group constraints and return the classes with
the rule that places new records.

New records (``ClusterGrouping.assign``): each joins, independently of the
others, the class whose generalization grows least by taking it (the increase
of the class's per-record cost under the method's own cost — IL for k-member,
NCP for Xu's methods; ties to the lowest class id).  The classes' released
values for new records are then those of the class grown by all the new
records it took; whether the new records' release satisfies the requirements
is re-checked, never assumed (``Anonymizer.transform``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numba
import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.targets import the_target
from anonset.errors import ConfigError, DataError
from anonset.methods.cluster.bottomup import xu_bottom_up
from anonset.methods.cluster.constraints import constraints_for
from anonset.methods.cluster.kmember import greedy_k_member
from anonset.methods.cluster.qi_space import (
    CostModel,
    PreparedAttributes,
    Records,
    height_costs,
    leaf_share_costs,
    prepare_attributes,
)
from anonset.methods.cluster.state import GroupState, cost_with, state_cost, states_of
from anonset.methods.cluster.topdown import xu_top_down
from anonset.methods.threads import use_threads
from anonset.privacy.base import Requirements

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["ClusterGrouping", "k_member", "xu_bottom_up_method", "xu_top_down_method"]


@numba.njit(cache=True, nogil=True, parallel=True)
def _cheapest_class(state: GroupState, n_classes: int, new: Records,
                    costs: CostModel) -> NDArray[np.int64]:  # pragma: no cover
    """Class whose per-record cost grows least by taking each new record (lowest id on ties)."""
    m = new.values.shape[0]
    out = np.empty(m, dtype=np.int64)
    base = np.empty(n_classes)
    for c in range(n_classes):
        base[c] = state_cost(state, c, costs)
    for x in numba.prange(m):
        best = 0
        best_inc = np.inf
        for c in range(n_classes):
            inc = cost_with(state, c, new, costs, x) - base[c]
            if inc < best_inc:
                best_inc = inc
                best = c
        out[x] = best
    return out


@dataclass(frozen=True, eq=False)
class ClusterGrouping:
    """Classes formed by a clustering method, and the state that places new records.

    Attributes
    ----------
    row_class : numpy.ndarray
        (n,) int64 class of each fitted record, ``0 .. c - 1``.
    prepared : PreparedAttributes
        The fitted records' quasi-identifiers as the kernels read them.
    cat_cost : numpy.ndarray
        The method's categorical cost table.
    """

    row_class: NDArray[np.int64]
    prepared: PreparedAttributes
    cat_cost: NDArray[np.float64]

    def assign(self, dataset: Dataset) -> NDArray[np.int64]:
        """Class of each record of ``dataset``: the one whose generalization grows least by taking it.

        Raises
        ------
        DataError
            A numeric quasi-identifier of the new records without a number.
        """
        prep = self.prepared
        n_classes = int(self.row_class.max()) + 1 if len(self.row_class) else 0
        if dataset.n_rows == 0 or n_classes == 0:
            return np.zeros(dataset.n_rows, dtype=np.int64)
        values = np.zeros((dataset.n_rows, len(prep.numeric)))
        for b, name in enumerate(prep.numeric):
            enc = dataset.encoded[name]
            if enc.numbers is None:
                raise DataError(f"{dataset.source}, column {name!r}: the recoding compares this quasi-identifier"
                                " by value, but the new records' column is not numeric")
            col = np.asarray(enc.numbers, dtype=np.float64)[enc.row_codes()]
            bad = np.flatnonzero(~np.isfinite(col))
            if len(bad):
                raise DataError(f"{dataset.source}, column {name!r}: value {enc.categories[enc.row_codes()[bad[0]]]!r}"
                                " is not a number, but the recoding compares this quasi-identifier by value;"
                                " fix or remove the record")
            values[:, b] = col
        codes = np.zeros((dataset.n_rows, len(prep.categorical)), dtype=np.int32)
        for a, name in enumerate(prep.categorical):
            codes[:, a] = dataset.encoded[name].row_codes()
        state, _ = states_of(self.row_class, n_classes, prep.records, prep.maps, 0)
        use_threads()
        return np.asarray(_cheapest_class(state, n_classes, Records(values, codes), prep.costs(self.cat_cost)),
                          dtype=np.int64)


def k_member(dataset: Dataset, requirements: Requirements, *, seed: int = 0,
             weights: Mapping[str, float] | None = None, class_penalty: float = 0.0,
             target: str | None = None) -> ClusterGrouping:
    """Byun et al.'s greedy k-member clustering under ``requirements`` (k, optionally l-diversity).

    ``class_penalty`` > 0 runs the classification-aware variant with the
    class labels of ``target`` (default: the only column with role target;
    resolved by :func:`anonset.core.targets.the_target`).
    """
    if isinstance(class_penalty, bool) or not isinstance(class_penalty, (int, float)) or not class_penalty >= 0:
        raise ConfigError(f"class_penalty must be a number >= 0; got {class_penalty!r}")
    if target is not None and not class_penalty:
        raise ConfigError("option target names the class labels of class_penalty; set class_penalty > 0 too")
    label_column = the_target(dataset, target, "k-member class_penalty") if class_penalty else None
    cons = constraints_for(dataset, requirements, "k-member", target=label_column)
    row_class = greedy_k_member(dataset, cons, seed, weights=weights, class_penalty=float(class_penalty))
    prep = prepare_attributes(dataset, weights)
    return ClusterGrouping(row_class, prep, height_costs(prep))


def xu_top_down_method(dataset: Dataset, requirements: Requirements, *, seed: int = 0,
                       weights: Mapping[str, float] | None = None, rounds: int = 3) -> ClusterGrouping:
    """Xu et al.'s top-down local recoding under ``requirements`` (k, optionally l-diversity)."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ConfigError(f"rounds must be an int >= 1; got {rounds!r}")
    cons = constraints_for(dataset, requirements, "xu-top-down")
    row_class = xu_top_down(dataset, cons, seed, rounds, weights=weights)
    prep = prepare_attributes(dataset, weights)
    return ClusterGrouping(row_class, prep, leaf_share_costs(prep, dataset))


def xu_bottom_up_method(dataset: Dataset, requirements: Requirements, *, seed: int = 0,
                        weights: Mapping[str, float] | None = None, split: bool = True,
                        merge_cost: str = "union") -> ClusterGrouping:
    """Xu et al.'s bottom-up local recoding under ``requirements`` (k, optionally l-diversity).

    ``merge_cost``: ``union`` (the paper's rule) or ``increase``; see :mod:`anonset.methods.cluster.bottomup`.
    """
    if not isinstance(split, bool):
        raise ConfigError(f"split must be true or false; got {split!r}")
    cons = constraints_for(dataset, requirements, "xu-bottom-up")
    row_class = xu_bottom_up(dataset, cons, seed, weights=weights, split=split, merge_cost=merge_cost)
    prep = prepare_attributes(dataset, weights)
    return ClusterGrouping(row_class, prep, leaf_share_costs(prep, dataset))
