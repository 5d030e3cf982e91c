"""What the data says about one column: :class:`ColumnProfile`, and when a column counts as nearly unique."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MIN_ROWS_FOR_UNIQUENESS", "NEARLY_UNIQUE", "ColumnProfile"]

#: Share of the records holding a value above which a column counts as nearly unique per record.
NEARLY_UNIQUE = 0.9
#: Fewer records than this and "nearly unique" says nothing (every column of a tiny table is).
MIN_ROWS_FOR_UNIQUENESS = 20


@dataclass(frozen=True)
class ColumnProfile:
    """What the data says about one column.

    ``kind`` is ``numeric``, ``date``, ``code``, ``categorical``, ``constant``
    (one value) or ``empty`` (no value).  ``distinct`` counts the distinct
    values that are not missing, exactly; ``missing`` the records holding a
    missing marker (or null).  ``markers`` are the markers besides ``""`` that
    the column needs declared.  ``example`` is the most frequent value.
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
