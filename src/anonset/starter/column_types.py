"""The kind of a text column, from its distinct values that are not missing.

A column is

* ``numeric`` when every value (blanks around it allowed) is a plain decimal
  number, and it is not a code (below);
* ``date`` when every value is a valid calendar date in one of a few common
  layouts (ISO ``2021-03-04``, ``04/03/2021``, ``04.03.2021``, ISO date and
  time); day-first and month-first layouts that both fit are reported as
  ambiguous;
* ``code`` when every value has the same length (at least 2; at least 3 for a
  code made of digits only), is made of letters and digits and holds a digit,
  and, for digits only, a value starts with ``0`` or the column's name says
  it is a code (``zip``, ``postcode``, ``code``, ...): ZIP codes, ICD codes;
* ``categorical`` otherwise (anonset cannot tell an ordinal column by its
  values: the comment says how to declare one).

A column with a single value is ``constant``.  Every check runs Arrow
kernels over the distinct values, never a Python loop over them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from anonset.starter.column_profile import ColumnProfile
from anonset.starter.names import CODE_WORDS, name_words

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["PLAIN_NUMBER", "detect_kind", "number_profile"]

#: A plain decimal number (a numeric column's values; a header row made of these is data).
PLAIN_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_DIGITS = r"^[0-9]+$"
_CODE = r"^[A-Za-z0-9]+$"


@dataclass(frozen=True)
class _DateLayout:
    """A date layout: the pattern of its text (groups y, m, d) and the format pandas parses it with."""

    pattern: str
    format: str
    day_first: bool | None = None   # True/False for d/m and m/d layouts that can be confused


_DATE_LAYOUTS: tuple[_DateLayout, ...] = (
    _DateLayout(r"^(?P<y>[0-9]{4})-(?P<m>[0-9]{1,2})-(?P<d>[0-9]{1,2})$", "%Y-%m-%d"),
    _DateLayout(r"^(?P<y>[0-9]{4})/(?P<m>[0-9]{1,2})/(?P<d>[0-9]{1,2})$", "%Y/%m/%d"),
    _DateLayout(r"^(?P<d>[0-9]{1,2})/(?P<m>[0-9]{1,2})/(?P<y>[0-9]{4})$", "%d/%m/%Y", True),
    _DateLayout(r"^(?P<m>[0-9]{1,2})/(?P<d>[0-9]{1,2})/(?P<y>[0-9]{4})$", "%m/%d/%Y", False),
    _DateLayout(r"^(?P<d>[0-9]{1,2})\.(?P<m>[0-9]{1,2})\.(?P<y>[0-9]{4})$", "%d.%m.%Y"),
    _DateLayout(r"^(?P<d>[0-9]{1,2})-(?P<m>[0-9]{1,2})-(?P<y>[0-9]{4})$", "%d-%m-%Y", True),
    _DateLayout(r"^(?P<m>[0-9]{1,2})-(?P<d>[0-9]{1,2})-(?P<y>[0-9]{4})$", "%m-%d-%Y", False),
    _DateLayout(r"^(?P<y>[0-9]{4})-(?P<m>[0-9]{2})-(?P<d>[0-9]{2})[ T][0-9]{2}:[0-9]{2}"
                r"(?::[0-9]{2}(?:\.[0-9]{1,9})?)?$", "ISO8601"),
)
#: Years pandas can hold (its timestamps span 1677-09-21 to 2262-04-11).
_YEARS = (1678, 2261)


def detect_kind(name: str, base: ColumnProfile, values: pa.Array, freq: NDArray[np.int64]) -> ColumnProfile:
    """The profile of a column from its distinct values that are not missing (text) and their counts."""
    example = str(values[int(np.argmax(freq))].as_py())
    base = replace(base, example=example)
    if len(values) == 1:
        return replace(base, kind="constant")
    if _all_match(values, _DIGITS):
        code = _code_profile(base, values)
        if code is not None and (name_words(name) & CODE_WORDS or pc.any(pc.starts_with(values, "0")).as_py()):
            return code
    numbers = _numbers_of(values)
    if numbers is not None:
        return number_profile(base, values, numbers, freq)
    dated = _date_profile(base, values)
    if dated is not None:
        return dated
    if _all_match(values, _CODE) and _all_match(values, r"[0-9]"):
        code = _code_profile(base, values)
        if code is not None:
            return code
    return base


def _all_match(values: pa.Array, pattern: str) -> bool:
    """Whether every value matches ``pattern``: a sample first, so that a column of text fails fast."""
    sample = values.slice(0, 1000)
    if not pc.all(pc.match_substring_regex(sample, pattern)).as_py():
        return False
    return len(values) <= len(sample) or bool(pc.all(pc.match_substring_regex(values, pattern)).as_py())


def _numbers_of(values: pa.Array) -> NDArray[np.float64] | None:
    """Every value as a finite number (blanks around it ignored), or None when one is not a plain number."""
    trimmed = pc.utf8_trim_whitespace(values)
    if not _all_match(trimmed, PLAIN_NUMBER):
        return None
    numbers: NDArray[np.float64] = pc.cast(trimmed, pa.float64()).to_numpy(zero_copy_only=False)
    return numbers if bool(np.isfinite(numbers).all()) else None


def number_profile(base: ColumnProfile, values: pa.Array, numbers: NDArray[np.float64],
                    freq: NDArray[np.int64]) -> ColumnProfile:
    order = np.argsort(numbers, kind="stable")
    sorted_numbers, weights = numbers[order], freq[order]
    total = np.cumsum(weights)
    at = np.searchsorted(total, [0.005 * total[-1], 0.995 * total[-1]])
    at = np.minimum(at, len(sorted_numbers) - 1)
    stats = (float(sorted_numbers[0]), float(sorted_numbers[at[0]]), float(sorted_numbers[at[1]]),
             float(sorted_numbers[-1]))
    return replace(base, kind="numeric", numbers=stats, integral=bool((numbers == np.floor(numbers)).all()),
                   low=str(values[int(order[0])].as_py()), high=str(values[int(order[-1])].as_py()))


def _date_profile(base: ColumnProfile, values: pa.Array) -> ColumnProfile | None:
    """A date profile when every value is a valid date in one layout (day-first preferred when ambiguous)."""
    fits = [layout for layout in _DATE_LAYOUTS if _all_match(values, layout.pattern)]
    valid: list[tuple[_DateLayout, NDArray[np.int64]]] = []
    for layout in fits:
        days = _valid_days(values, layout.pattern)
        if days is not None:
            valid.append((layout, days))
    if not valid:
        return None
    layout, days = valid[0]
    ambiguous = layout.day_first is not None and any(other.day_first is not None for other, _ in valid[1:])
    first, last = int(np.argmin(days)), int(np.argmax(days))
    return replace(base, kind="date", date_format=layout.format, date_ambiguous=ambiguous,
                   low=str(values[first].as_py()), high=str(values[last].as_py()))


def _valid_days(values: pa.Array, pattern: str) -> NDArray[np.int64] | None:
    """Days since 1970-01-01 of every value, or None when one is not a real date pandas can hold."""
    parts = pc.extract_regex(values, pattern)
    year, month, day = (pc.cast(parts.field(key), pa.int64()).to_numpy(zero_copy_only=False) for key in "ymd")
    if (year < _YEARS[0]).any() or (year > _YEARS[1]).any() or (month < 1).any() or (month > 12).any():
        return None
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    month_days = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])[month - 1] + (leap & (month == 2))
    if (day < 1).any() or (day > month_days).any():
        return None
    stamps = (year - 1970).astype("datetime64[Y]").astype("datetime64[M]") + (month - 1)
    days: NDArray[np.int64] = (stamps.astype("datetime64[D]") + (day - 1)).astype(np.int64)
    return days


def _code_profile(base: ColumnProfile, values: pa.Array) -> ColumnProfile | None:
    """A code profile when every value has one length (2 or more), with the groups left per masked character."""
    lengths = pc.utf8_length(values)
    low, high = pc.min_max(lengths).values()
    length = int(low.as_py())
    digits_only = _all_match(values, _DIGITS)
    if length != int(high.as_py()) or length < (3 if digits_only else 2):
        return None
    if base.nearly_unique:  # an identifier: its masking levels are never proposed
        return replace(base, kind="code", code_length=length)
    groups = tuple(int(pc.count_distinct(pc.utf8_slice_codeunits(values, 0, length - j)).as_py())
                   for j in range(1, length))
    return replace(base, kind="code", code_length=length, prefix_groups=groups)
