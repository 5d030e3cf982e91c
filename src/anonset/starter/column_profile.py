"""What the data says about one column: :class:`ColumnProfile`, when a column counts as nearly unique, and k.

:data:`K` is the k the starter configuration proposes (:func:`proposed_k`
for a table of so many records); a value held by fewer than k records is
*rare* (:meth:`ColumnProfile.rare_values`): released as it is, it could
single a person out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["K", "MIN_ROWS_FOR_UNIQUENESS", "NEARLY_UNIQUE", "ColumnProfile", "held_by", "proposed_k"]

#: Share of the records holding a value above which a column counts as nearly unique per record.
NEARLY_UNIQUE = 0.9
#: Fewer records than this and "nearly unique" says nothing (every column of a tiny table is).
MIN_ROWS_FOR_UNIQUENESS = 20
#: The k of the privacy proposal.
K = 5


def proposed_k(rows: int) -> int:
    """The k proposed for a table of ``rows`` records: :data:`K`, or the whole table when it is smaller."""
    return max(1, min(K, rows))


def held_by(freq: NDArray[np.int64]) -> tuple[int, ...]:
    """From the records holding each value, how many values are held by exactly 1, 2, ..., K - 1 records."""
    counts = np.bincount(np.minimum(np.asarray(freq, dtype=np.int64), K), minlength=K + 1)
    return tuple(int(c) for c in counts[1:K])


@dataclass(frozen=True)
class ColumnProfile:
    """What the data says about one column.

    ``kind`` is ``numeric``, ``date``, ``code``, ``categorical``, ``constant``
    (one value), ``empty`` (no value) or ``other`` (a typed column whose
    values are not text, numbers, dates or booleans: lists, structs, bytes;
    ``arrow_type`` names its type).  ``distinct`` counts the distinct values
    that are not missing, exactly; ``missing`` the records holding a missing
    marker (or null).  ``markers`` are the markers besides ``""`` that the
    column needs declared.  ``example`` is the most frequent value.
    ``held_by[i]`` counts the values (not missing) that exactly ``i + 1``
    records hold, for ``i + 1`` below :data:`K`.
    """

    name: str
    rows: int
    kind: str
    distinct: int
    missing: int = 0
    markers: tuple[str, ...] = ()
    example: str | None = None
    low: str | None = None            # smallest value (numeric, date), as written
    high: str | None = None           # largest value (numeric, date), as written
    numbers: tuple[float, float, float, float] | None = None   # min, 0.5%, 99.5%, max (over records)
    integral: bool = False
    date_format: str | None = None
    date_ambiguous: bool = False
    code_length: int | None = None
    prefix_groups: tuple[int, ...] = ()   # groups left after masking 1, 2, ... characters
    typed: bool = False               # a typed (Parquet) column rather than text
    named_like_a_value: bool = False  # the column's name is one of its values (a header row that is data?)
    held_by: tuple[int, ...] = ()     # values held by exactly 1, 2, ..., K - 1 records
    arrow_type: str | None = None     # kind "other": the column's type

    def rare_values(self, k: int) -> int:
        """Values (not missing) held by fewer than ``k`` records (``k`` at most :data:`K`)."""
        return sum(self.held_by[: max(0, k - 1)])

    @property
    def present(self) -> int:
        """Records that hold a value (not a missing marker)."""
        return self.rows - self.missing

    @property
    def unique_share(self) -> float:
        """Distinct values per record that holds a value (1.0: every value occurs once)."""
        return self.distinct / self.present if self.present else 0.0

    @property
    def nearly_unique(self) -> bool:
        """Whether nearly every record holds a value of its own (see :data:`NEARLY_UNIQUE`)."""
        return self.present >= MIN_ROWS_FOR_UNIQUENESS and self.unique_share >= NEARLY_UNIQUE
