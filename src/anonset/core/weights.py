"""Attribute weights: one validation rule for every metric and method that weighs quasi-identifiers.

A weight multiplies an attribute's share of a loss (Xu et al.'s weighted
certainty penalty, Mondrian's normalized ranges, the Loss metric).  Weights
name quasi-identifiers only; each is a finite number >= 0 (booleans are not
numbers here); not all may be zero, since the loss would then be 0 for every
release and nothing would guide the choice.  A quasi-identifier not named
weighs 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from anonset.errors import ConfigError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["quasi_weights", "weight_vector"]


def quasi_weights(quasi: tuple[str, ...], weights: Mapping[str, float] | None, source: str,
                  who: str = "weights") -> dict[str, float]:
    """The weight of every quasi-identifier (1 when not given), or a one-line ``ConfigError``.

    Parameters
    ----------
    quasi : tuple of str
        The quasi-identifiers, in order.
    weights : mapping of str to float, optional
        The weights the user gave.
    source : str
        How messages name the data.
    who : str
        Who reads the weights, for messages (``weights``, ``metric loss``, ``mondrian``).
    """
    if not weights:
        return {q: 1.0 for q in quasi}
    unknown = [name for name in weights if name not in quasi]
    if unknown:
        raise ConfigError(f"{who}: {unknown[0]!r} is not a quasi-identifier of {source}; weights apply to"
                          f" {', '.join(quasi) or 'no attribute (declare role: quasi)'}")
    out: dict[str, float] = {}
    for q in quasi:
        w = weights.get(q, 1.0)
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
            raise ConfigError(f"{who}: the weight of {q!r} must be a finite number >= 0; got {w!r}")
        out[q] = float(w)
    if quasi and not any(out.values()):
        raise ConfigError(f"{who}: every weight is 0, so every release would cost nothing; give at least one"
                          " quasi-identifier a weight > 0")
    return out


def weight_vector(quasi: tuple[str, ...], weights: Mapping[str, float] | None, source: str,
                  who: str = "weights") -> NDArray[np.float64]:
    """:func:`quasi_weights` as a (d,) float64 array in the order of ``quasi``."""
    checked = quasi_weights(quasi, weights, source, who)
    return np.array([checked[q] for q in quasi], dtype=np.float64)
