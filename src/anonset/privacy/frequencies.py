"""Models that compare, value by value, a class's frequencies of a sensitive attribute with the whole table's.

β-likeness (:mod:`anonset.privacy.likeness`) and δ-disclosure privacy
(:mod:`anonset.privacy.disclosure`) judge each sensitive value a class
holds by its frequency ``q`` in the class against its frequency ``p`` in
the whole input table (every record, suppressed or not, as ARX takes it).
Values a class does not hold are not judged.  This module holds what the
two share: the sensitive attribute, the table's frequencies (learned by
``validate``), the per-class frequencies of the values present, and the
floor of the records a group leaves violating however it is divided.

That floor: when no class may hold a value ``s`` at a share above ``t < 1``,
a group of ``N`` records holding ``A`` of them, however divided, leaves at
least ``(A − t·N) / (1 − t)`` records in violating classes (the passing
classes hold at most ``t`` times their records of ``s``, the violating ones at
most all of theirs).  The same holds for a set of values, with ``A`` and
``t`` summed over it (a passing class holds at most the sum of the limits of
its values); the floor is the largest of the single values' and that of the
set of values the group holds above their limits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from anonset.core.stats import ClassStats, StatsRequest
from anonset.privacy.base import PrivacyModel, require_sensitive

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset

__all__ = ["ValueFrequencyModel"]


class ValueFrequencyModel(PrivacyModel):
    """A per-class model over the frequencies of a categorical sensitive attribute's values (see the module).

    Subclasses set :attr:`owner` words and judge with :meth:`frequencies`.
    """

    def __init__(self, attribute: str):
        self.attribute = attribute
        self._table: NDArray[np.float64] | None = None
        self._divisor: NDArray[np.float64] | None = None

    @property
    def owner(self) -> str:
        """The model in user words, as messages name it."""
        raise NotImplementedError

    @property
    def request(self) -> StatsRequest:
        return StatsRequest(histograms=frozenset([self.attribute]))

    def validate(self, dataset: Dataset) -> None:
        """The attribute must be sensitive; remember its frequencies over the whole table."""
        require_sensitive(self.owner, dataset, self.attribute)
        counts = dataset.encoded[self.attribute].counts().astype(np.float64)
        self._table = counts / counts.sum()
        # a value no record holds (p = 0) is in no class: divide by 1 there, so no class divides by 0
        self._divisor = np.where(self._table > 0, self._table, 1.0)
        self.learned()

    def learned(self) -> None:
        """Called when :meth:`validate` has learned the table's frequencies."""

    @property
    def table_frequencies(self) -> NDArray[np.float64]:
        """(m,) each value's share of the table's records (after :meth:`validate`)."""
        if self._table is None:
            raise RuntimeError(f"{type(self).__name__}.validate(dataset) must be called before judging classes")
        return self._table

    def frequencies_divisor(self) -> NDArray[np.float64]:
        """(m,) each value's share of the table, 1 where no record holds it: what ``q`` is divided by."""
        self.table_frequencies  # noqa: B018 - raises before validate
        assert self._divisor is not None
        return self._divisor

    @property
    def gives_violation_floor(self) -> bool:
        """True: β-likeness and δ-disclosure bound the records of a group holding too much of a value."""
        return True

    def excess_floor(self, stats: ClassStats, limits: NDArray[np.float64]) -> NDArray[np.int64]:
        """Per group: the fewest records left violating when no class may hold value ``s`` above a share ``limits[s]``.

        The largest ``(A − t·N) / (1 − t)`` over the single values and the
        set of values held above their limits, rounded up (see the module);
        a limit of 1 or more bounds nothing.  The
        limits are widened by a relative 1e-9 and the figure rounded up only
        past 1e-6, so floating point never makes the floor too high.
        """
        from anonset.privacy.frequency_kernels import excess_floor_rows  # here: numba only when a search asks

        return excess_floor_rows(np.ascontiguousarray(stats.histograms[self.attribute]), limits * (1.0 + 1e-9))

    def frequencies(self, stats: ClassStats) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
        """``q`` (c, m): each value's share of each class; ``p`` (m,): of the table; which values each class holds.

        ``p`` is 1 where no record of the table holds the value (no class holds it either), so that ``q / p``
        never divides by zero.
        """
        hist = stats.histograms[self.attribute]
        sizes = hist.sum(axis=1, keepdims=True).astype(np.float64)
        q = hist / np.maximum(sizes, 1.0)
        return q, self.frequencies_divisor(), hist > 0
