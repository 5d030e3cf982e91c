"""δ-disclosure privacy (Brickell and Shmatikov): no class moves a sensitive value's frequency by a factor of 2^δ.

For every class and every sensitive value ``s`` the class holds, with ``q``
its frequency in the class and ``p`` in the whole table:
``|log2(q / p)| < δ``.  Unlike β-likeness both directions are bounded: a
value much rarer in a class than in the table tells an attacker something
too.  Values the class does not hold are not judged.

This is ARX 3.9.2's definition (``DDisclosurePrivacy``): the logarithm is
to base 2 (Brickell and Shmatikov write the natural logarithm: a δ of theirs
is ``δ / ln 2`` here) and a class violates when ``|log2(q / p)| >= δ``.

Not monotone, with or without suppression: merging a class with one that
lacks a value lowers that value's ``q`` in the merged class, which can push
it below ``p / 2^δ``.  The exact searches judge every node they cannot
prune by another model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from anonset.core.stats import ClassStats
from anonset.privacy.base import require_number
from anonset.privacy.frequencies import ValueFrequencyModel

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["DeltaDisclosure"]


class DeltaDisclosure(ValueFrequencyModel):
    """Every class's ``|log2(q / p)|`` on each sensitive value it holds is below δ (see the module).

    Parameters
    ----------
    attribute : str
        Categorical sensitive attribute.
    delta : float
        The bound, > 0.
    """

    monotonic = False

    def __init__(self, attribute: str, delta: float):
        super().__init__(attribute)
        self.delta = require_number(self.owner, "delta", delta, 0.0, strict=True)

    @property
    def owner(self) -> str:
        """``δ-disclosure privacy on 'diagnosis'``."""
        return f"δ-disclosure privacy on {self.attribute!r}"

    def distances(self, stats: ClassStats) -> NDArray[np.float64]:
        """(c,) each class's largest ``|log2(q / p)|`` over the values it holds (0 for an empty class)."""
        q, p, present = self.frequencies(stats)
        ratio = np.where(present, q / p, 1.0)  # 1 (a distance of 0) for the values the class does not hold
        return np.asarray(np.abs(np.log(ratio) / np.log(2.0)).max(axis=1, initial=0.0), dtype=np.float64)

    def violation_floor(self, stats: ClassStats) -> NDArray[np.int64]:
        """A class holding ``s`` at a share of ``p·2^δ`` or more violates: the records that leaves in each group.

        Only the upper side bounds a group: a class can avoid a rare value
        altogether, and a value a class does not hold is not judged.
        """
        return self.excess_floor(stats, self.frequencies_divisor() * 2.0 ** self.delta)

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """The largest ``|log2(q / p)|`` of the class is below δ."""
        return np.asarray(self.distances(stats) < self.delta, dtype=np.bool_)

    def describe(self) -> str:
        """E.g. ``1.5-disclosure privacy on occupation``."""
        return f"{self.delta:g}-disclosure privacy on {self.attribute}"
