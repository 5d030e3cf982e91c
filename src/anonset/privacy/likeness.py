"""β-likeness (Cao and Karras): no class raises a sensitive value's frequency by more than β relative to the table.

For every class and every sensitive value ``s`` the class holds, with ``q``
its frequency in the class and ``p`` in the whole table:

- basic β-likeness: ``(q − p) / p <= β``;
- enhanced β-likeness: ``(q − p) / p <= min(β, −ln p)``, which also bounds
  the gain on frequent values (for ``p`` above ``e^−β`` the bound is tighter
  than β).

Only an increase is bounded (a value rarer in the class than in the table
discloses nothing positive about it), and values the class does not hold
are not judged.  This is ARX 3.9.2's definition (``BasicBLikeness``,
``EnhancedBLikeness``), comparisons included (a class violates when the
relative gain is strictly above the bound).

Monotone under generalization without suppression: a merged class's ``q``
is a weighted mean of its parts', so its relative gain on every value is at
most the larger of theirs.  With a suppression budget it is not (like
l-diversity).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from anonset.core.stats import ClassStats
from anonset.errors import ConfigError
from anonset.privacy.base import require_number
from anonset.privacy.frequencies import ValueFrequencyModel

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["LIKENESS_VARIANTS", "BetaLikeness"]

#: The two variants: the bound β alone, or ``min(β, −ln p)``.
LIKENESS_VARIANTS = ("basic", "enhanced")


class BetaLikeness(ValueFrequencyModel):
    """Every class's relative gain ``(q − p) / p`` on each sensitive value it holds is at most β (see the module).

    Parameters
    ----------
    attribute : str
        Categorical sensitive attribute.
    beta : float
        The bound, > 0.
    variant : {"basic", "enhanced"}
        ``enhanced`` bounds the gain by ``min(β, −ln p)``.
    """

    monotonic = True

    def __init__(self, attribute: str, beta: float, variant: str = "basic"):
        super().__init__(attribute)
        self.beta = require_number(self.owner, "beta", beta, 0.0, strict=True)
        if variant not in LIKENESS_VARIANTS:
            raise ConfigError(f"{self.owner}: the 'variant' parameter must be one of {' | '.join(LIKENESS_VARIANTS)};"
                              f" got {variant!r}")
        self.variant = variant
        self._bounds: NDArray[np.float64] | None = None

    @property
    def owner(self) -> str:
        """``β-likeness on 'diagnosis'``."""
        return f"β-likeness on {self.attribute!r}"

    def learned(self) -> None:
        """The bound of each value: β, or ``min(β, −ln p)`` (enhanced; β for a value no record holds)."""
        p = self.table_frequencies
        held = np.where(p > 0, p, 1.0)
        self._bounds = np.full(len(p), self.beta) if self.variant == "basic" else np.minimum(self.beta, -np.log(held))
        self._bounds[p == 0] = self.beta

    def bounds(self) -> NDArray[np.float64]:
        """(m,) the largest relative gain each value may have in a class: β, or ``min(β, −ln p)`` (enhanced)."""
        self.table_frequencies  # noqa: B018 - raises before validate
        assert self._bounds is not None
        return self._bounds

    def gains(self, stats: ClassStats) -> NDArray[np.float64]:
        """(c, m) each class's relative gain ``(q − p) / p`` per value it holds (−inf for values it does not)."""
        q, p, present = self.frequencies(stats)
        return np.where(present, (q - p) / p, -np.inf)

    def violation_floor(self, stats: ClassStats) -> NDArray[np.int64]:
        """A class holding ``s`` at a share above ``p·(1 + bound)`` violates: the records that leaves in each group."""
        return self.excess_floor(stats, self.frequencies_divisor() * (1.0 + self.bounds()))

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """No value the class holds gains more than its bound."""
        q, p, present = self.frequencies(stats)
        return np.asarray(~(present & ((q - p) / p > self.bounds())).any(axis=1), dtype=np.bool_)

    def describe(self) -> str:
        """E.g. ``basic 1-likeness on diagnosis``."""
        return f"{self.variant} {self.beta:g}-likeness on {self.attribute}"

