"""How good a front is: convergence error (CE) and representation ratio (RR), as Dewri et al. define them.

Let M be the set of all minimal PBGs (the exact front, e.g. from
:func:`~anonset.methods.pareto.exhaustive.pareto_exhaustive` without ε) and M' the
front found.

- **CE**: every index value of M and M' is divided by the largest value of
  that index in M (by the largest absolute value; by 1 if that is 0), then
  ``CE = Σ_{M' ∈ M'} min_{M ∈ M} ‖I(M) − I(M')‖₂``.  A sum over the found
  members, not a mean; 0 when every member found is a minimal PBG.
- **RR**: the members of M are put in their ε-boxes (``⌊I / ε⌋``, see
  :mod:`anonset.methods.pareto.dominance`) and the boxes no other box of M dominates
  are marked; RR is the share of marked boxes that hold at least one member
  of M'.  1 when every non-dominated box is represented.  Without ε every
  distinct non-dominated vector is a box of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from anonset.errors import ConfigError
from anonset.methods.pareto.dominance import boxes, check_epsilon, nondominated
from anonset.methods.pareto.objectives import ParetoResult

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["FrontQuality", "assess", "convergence_error", "representation_ratio"]


@dataclass(frozen=True)
class FrontQuality:
    """CE, RR and the search effort of a front.

    Attributes
    ----------
    convergence_error : float
        CE against the exact front.
    representation_ratio : float
        RR against the exact front, for the discretization vector used.
    nodes_evaluated : int
        Distinct nodes the search evaluated.
    lattice_share : float
        ``nodes_evaluated`` over the lattice size.
    """

    convergence_error: float
    representation_ratio: float
    nodes_evaluated: int
    lattice_share: float


def convergence_error(found: ParetoResult, exact: ParetoResult) -> float:
    """CE of ``found`` against the exact front ``exact`` (normalized by the maxima in ``exact``)."""
    _same_objectives(found, exact)
    reference = exact.values
    if len(reference) == 0 or len(found.front) == 0:
        return 0.0
    scale = np.abs(reference).max(axis=0)
    scale[scale == 0] = 1.0
    a = found.values / scale
    b = reference / scale
    distance = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))
    return float(distance.min(axis=1).sum())


def representation_ratio(found: ParetoResult, exact: ParetoResult,
                         epsilon: Sequence[float] | NDArray[np.float64] | None = None) -> float:
    """RR of ``found``: the share of the exact front's non-dominated ε-boxes it occupies.

    Parameters
    ----------
    found : ParetoResult
        The front to judge.
    exact : ParetoResult
        All minimal PBGs.
    epsilon : sequence of float, optional
        Discretization vector; None: each distinct non-dominated vector is a box.
    """
    _same_objectives(found, exact)
    eps = check_epsilon(epsilon, len(exact.objectives))
    maximize = exact.maximize
    marked = np.unique(boxes(exact.values, maximize, eps), axis=0)
    marked = marked[nondominated(marked)]
    if len(marked) == 0:
        return 1.0
    held = boxes(found.values, maximize, eps)
    occupied = (marked[:, None, :] == held[None, :, :]).all(axis=2).any(axis=1)
    return float(occupied.mean())


def assess(found: ParetoResult, exact: ParetoResult, epsilon: Sequence[float] | NDArray[np.float64] | None = None
           ) -> FrontQuality:
    """CE, RR (for ``epsilon``, default the one ``found`` was searched with) and the search effort of ``found``."""
    eps = found.epsilon if epsilon is None else epsilon
    return FrontQuality(
        convergence_error=convergence_error(found, exact),
        representation_ratio=representation_ratio(found, exact, eps),
        nodes_evaluated=found.nodes_evaluated,
        lattice_share=found.nodes_evaluated / found.lattice_size,
    )


def _same_objectives(found: ParetoResult, exact: ParetoResult) -> None:
    if found.objectives != exact.objectives:
        raise ConfigError(f"the fronts measure different objectives ({', '.join(found.objectives)} vs"
                          f" {', '.join(exact.objectives)}); compare fronts of the same objectives")
