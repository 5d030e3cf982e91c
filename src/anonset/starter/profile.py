"""What the starter config knows of a table: each column read, typed and counted, and the words its name holds.

What the data says about one column: :class:`ColumnProfile`, when a column counts as nearly unique, and k.

:data:`K` is the k the starter configuration proposes (:func:`proposed_k`
for a table of so many records); a value held by fewer than k records is
*rare* (:meth:`ColumnProfile.rare_values`): released as it is, it could
single a person out.

The words anonset looks for in column names, and how a name is cut into words.

:data:`IDENTIFIER_NAMES` and :data:`IDENTIFIER_WORDS` mark a direct
identifier, :data:`SENSITIVE_WORDS` a sensitive attribute and
:data:`QUASI_WORDS` a classic quasi-identifier (:mod:`anonset.starter.propose`
applies them); :data:`CODE_WORDS` make a column of digits a code
(:mod:`anonset.starter.profile`).

The kind of a text column, from its distinct values that are not missing.

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

Numbers as people write them, in profiles, comments and the YAML text.

One :class:`~anonset.starter.profile.ColumnProfile` per column of a table.

Profiling works on each column's distinct values, found by Arrow's hash
kernels, never with a Python loop over the records; the distinct counts are
exact.  A text column's kind comes from
:func:`~anonset.starter.profile.detect_kind`; common missing-value
markers (:data:`MISSING_TOKENS`: ``NA``, ``?``, ``null``, ...) are declared
as ``missing`` when, without them, the column is numeric, a date or a code.
Typed Parquet columns are profiled by their type (numbers, dates and
timestamps, booleans; times of day and durations are categorical); a column
whose values are neither text nor one of those (lists, structs, maps,
bytes) is of kind ``other``, with no value read.  Every profile counts the
values held by fewer than :data:`~anonset.starter.profile.K` records
(:func:`~anonset.starter.profile.held_by`).

The data file read as ``anonset anonymize`` reads it, and the checks that refuse a file with no header.

:func:`read_data` reads the table with anonset's own reader
(:func:`anonset.io.tables.read_arrow_table`), so that the starter config sees
the values exactly as ``anonset anonymize`` will.  A CSV whose first row looks
like a record (its names are all numbers, or at least half of them are
values of their own columns: :func:`check_header_is_not_data`, once the
columns are profiled) is refused: it has no header.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numpy.typing import NDArray

from anonset.errors import DataError

__all__ = [
    "CODE_WORDS",
    "ColumnProfile",
    "IDENTIFIER_NAMES",
    "IDENTIFIER_WORDS",
    "K",
    "MIN_ROWS_FOR_UNIQUENESS",
    "MISSING_TOKENS",
    "NEARLY_UNIQUE",
    "PLAIN_NUMBER",
    "QUASI_WORDS",
    "SENSITIVE_WORDS",
    "check_header_is_not_data",
    "detect_kind",
    "format_number",
    "held_by",
    "name_words",
    "number_profile",
    "number_text",
    "profile_column",
    "profile_table",
    "proposed_k",
    "read_data",
    "squashed_name",
]


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


#: Column names (lower case, letters and digits only) that are direct identifiers.
IDENTIFIER_NAMES = frozenset({
    "name", "fullname", "firstname", "lastname", "surname", "forename", "givenname", "familyname", "middlename",
    "patientname", "email", "emailaddress", "mail", "phone", "phonenumber", "telephone", "mobile", "cellphone",
    "fax", "ssn", "socialsecuritynumber", "passport", "passportnumber", "address", "streetaddress", "street",
    "iban", "ipaddress", "username", "login",
})
#: Words of a column name that make it a direct identifier (``patient_id``, ``PatientID``, ``record-uuid``).
IDENTIFIER_WORDS = frozenset({"id", "uuid", "guid", "ssn", "mrn", "email", "phone", "iban", "passport"})
#: Words of a column name that make it a sensitive attribute.
SENSITIVE_WORDS = frozenset({
    "diagnosis", "diagnoses", "disease", "diseases", "illness", "medication", "medications", "treatment",
    "income", "salary", "salaries", "wage", "wages", "earnings", "religion", "hiv",
})
#: Words of a column name that mark a classic quasi-identifier (no "review" note needed).
QUASI_WORDS = frozenset({
    "age", "sex", "gender", "zip", "zipcode", "postcode", "postal", "plz", "birth", "birthdate", "dob", "born",
    "race", "ethnicity", "marital", "nationality", "country", "city", "region", "county", "state", "education",
    "occupation", "job", "profession",
})
#: Words of a column name that make a column of digits a code.
CODE_WORDS = frozenset({"zip", "zipcode", "postcode", "postal", "plz", "code", "icd", "fips", "area", "district"})


def name_words(name: str) -> set[str]:
    """The words of a column name, lower case: ``PatientID`` and ``patient_id`` give {patient, id}."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return {w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w}


def squashed_name(name: str) -> str:
    """A column name in lower case, letters and digits only, as :data:`IDENTIFIER_NAMES` holds names."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


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


def number_text(x: float) -> str:
    """A value as text: a whole number without ``.0`` (below 2**53), any other as Python writes it."""
    return str(int(x)) if x == math.floor(x) and abs(x) < 2**53 else repr(float(x))


def format_number(x: Fraction | float | int) -> str:
    """A number as people write it: 10 not 10.0, 0.05 not 1/20."""
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return str(x.numerator)
        return format(x.numerator / x.denominator, ".12g")
    return number_text(float(x))


#: Markers read as "missing" when the column is numeric, a date or a code without them ("" always is).
MISSING_TOKENS: tuple[str, ...] = ("NA", "N/A", "n/a", "na", "NaN", "nan", "?", "null", "NULL", "None", "-")


def profile_table(table: pa.Table) -> list[ColumnProfile]:
    """One :class:`ColumnProfile` per column, in the table's order."""
    return [profile_column(name, table.column(name)) for name in table.column_names]


def profile_column(name: str, column: pa.ChunkedArray) -> ColumnProfile:
    """The profile of one column: text as written (CSV), or a typed column (Parquet)."""
    kind = column.type
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = kind.value_type
    rows = len(column)
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return _typed_numbers(name, column)
    if pa.types.is_temporal(kind) and not pa.types.is_time(kind) and not pa.types.is_duration(kind):
        return _typed_dates(name, column)
    if _not_values(kind):
        return ColumnProfile(name, rows, "other", 0, int(column.null_count), typed=True, arrow_type=str(kind))
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        column = column.cast(pa.string()) if not pa.types.is_boolean(kind) else pc.if_else(
            column, pa.scalar("True"), pa.scalar("False"))
    counts = pc.value_counts(column)
    values = counts.field("values")
    freq = counts.field("counts").to_numpy(zero_copy_only=False)
    null_rows = int(column.null_count)
    valid = pc.invert(pc.is_null(values))
    values = values.filter(valid)
    freq = freq[valid.to_numpy(zero_copy_only=False)]
    blank = pc.equal(values, "").to_numpy(zero_copy_only=False)
    missing = null_rows + int(freq[blank].sum())
    values, freq = values.filter(pa.array(~blank)), freq[~blank]
    base = ColumnProfile(name, rows, "categorical", len(values), missing, typed=not pa.types.is_string(kind)
                         and not pa.types.is_large_string(kind),
                         named_like_a_value=bool(pc.any(pc.equal(values, name)).as_py()) if len(values) else False,
                         held_by=held_by(freq))
    if len(values) == 0:
        return replace(base, kind="empty")
    if pa.types.is_duration(kind) or pa.types.is_time(kind):  # their text is not the one the dataset reads
        return replace(base, kind="constant" if len(values) == 1 else "categorical",
                       example=str(values[int(np.argmax(freq))].as_py()))
    found = detect_kind(name, base, values, freq)
    if found.kind == "categorical" and not base.typed:
        tokens = pc.is_in(values, value_set=pa.array(MISSING_TOKENS)).to_numpy(zero_copy_only=False)
        if tokens.any() and not tokens.all():
            markers = tuple(t for t in MISSING_TOKENS if t in set(values.filter(pa.array(tokens)).to_pylist()))
            without = replace(base, distinct=int((~tokens).sum()), missing=missing + int(freq[tokens].sum()),
                              markers=markers, held_by=held_by(freq[~tokens]))
            better = detect_kind(name, without, values.filter(pa.array(~tokens)), freq[~tokens])
            if better.kind in ("numeric", "date", "code"):
                return better
    return found


def _typed_numbers(name: str, column: pa.ChunkedArray) -> ColumnProfile:
    """The profile of a typed numeric column (NaN and null are missing, as the dataset reads them)."""
    numbers = column.cast(pa.float64()).to_numpy() if column.num_chunks else np.zeros(0)
    numbers = np.asarray(numbers, dtype=np.float64)
    present = numbers[np.isfinite(numbers)]
    base = ColumnProfile(name, len(column), "numeric", 0, len(column) - len(present), typed=True)
    if not len(present):
        return replace(base, kind="empty")
    distinct, freq = np.unique(present, return_counts=True)
    base = replace(base, distinct=len(distinct), example=number_text(distinct[int(np.argmax(freq))]),
                   held_by=held_by(freq))
    if len(distinct) == 1:
        return replace(base, kind="constant")
    text = pa.array([number_text(distinct[0]), number_text(distinct[-1])])
    profile = number_profile(base, text, np.asarray([distinct[0], distinct[-1]]), np.asarray([1, 1]))
    total = np.cumsum(freq)
    at = np.minimum(np.searchsorted(total, [0.005 * total[-1], 0.995 * total[-1]]), len(distinct) - 1)
    stats = (float(distinct[0]), float(distinct[at[0]]), float(distinct[at[1]]), float(distinct[-1]))
    return replace(profile, numbers=stats, integral=bool((distinct == np.floor(distinct)).all()))


def _typed_dates(name: str, column: pa.ChunkedArray) -> ColumnProfile:
    """The profile of a typed date or timestamp column."""
    counts = pc.value_counts(column)
    values = counts.field("values")
    freq = counts.field("counts").to_numpy(zero_copy_only=False)
    valid = pc.invert(pc.is_null(values)).to_numpy(zero_copy_only=False)
    base = ColumnProfile(name, len(column), "date", int(valid.sum()), int(column.null_count), typed=True)
    if not valid.any():
        return replace(base, kind="empty")
    values, freq = values.filter(pa.array(valid)), freq[valid]
    base = replace(base, held_by=held_by(freq))
    example = str(values[int(np.argmax(freq))].as_py())
    if len(values) == 1:
        return replace(base, kind="constant", example=example)
    low, high = pc.min_max(values).values()
    return replace(base, example=example, date_format="ISO8601", low=str(low.as_py()), high=str(high.as_py()))


def _not_values(kind: pa.DataType) -> bool:
    """Whether a column of this type holds no values anonset reads as text: lists, structs, maps, unions, bytes."""
    return bool(pa.types.is_nested(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
                or pa.types.is_fixed_size_binary(kind) or pa.types.is_binary_view(kind))


def read_data(path: str | Path, delimiter: str | None = None) -> tuple[pa.Table, str | None]:
    """Read a CSV or Parquet file as ``anonset anonymize`` does; the table and the CSV delimiter used.

    Raises
    ------
    DataError
        A missing, empty, binary or unparsable file, ragged rows, a header
        with a nameless or repeated column or made of numbers only (the
        first row is data), a single record.
    """
    from anonset.io.delimiters import sniff_delimiter
    from anonset.io.tables import read_arrow_table

    p = Path(path)
    if not p.exists():
        raise DataError(f"{p}: file not found; check the path")
    if p.is_dir():
        raise DataError(f"{p}: is a directory, not a data file; name the CSV or Parquet file")
    sep: str | None = None
    if p.suffix.lower() in (".parquet", ".pq"):
        table = read_arrow_table(p, fmt="parquet")
    else:
        _refuse_binary(p)
        sep = delimiter or sniff_delimiter(p)
        table = read_arrow_table(p, sep, "csv")
        _check_header(p, table.column_names)
    if table.num_rows < 2:
        raise DataError(f"{p}: the file holds a single record; anonymization groups records, so give the table"
                        " with all its records")
    return table, sep


def _refuse_binary(p: Path) -> None:
    with open(p, "rb") as fh:
        head = fh.read(8192)
    if head.startswith(b"PAR1"):
        raise DataError(f"{p}: is a Parquet file, not CSV text; give it the suffix .parquet")
    if b"\x00" in head:
        raise DataError(f"{p}: is a binary file, not CSV text; give a UTF-8 CSV file (decompress it first) or a"
                        " Parquet file (.parquet)")


def _check_header(p: Path, names: Sequence[str]) -> None:
    for i, name in enumerate(names):
        if not name.strip():
            raise DataError(f"{p}: column {i + 1} has no name in the header row; give every column a name"
                            " (a trailing delimiter at the end of each line makes a nameless column too)")
    looks_like_data = pc.match_substring_regex(pa.array([n.strip() for n in names]), PLAIN_NUMBER)
    if pc.all(looks_like_data).as_py():
        raise DataError(f"{p}: the first row ({_first_names(names)}) holds numbers, not column names; add a header"
                        " row that names the columns")


def check_header_is_not_data(path: str | Path, profiles: Sequence[ColumnProfile]) -> None:
    """Refuse a CSV whose first row looks like a record: at least half its names are values of their columns.

    Raises
    ------
    DataError
        The header row is likely the first record (the file has no header).
    """
    echoed = sum(p.named_like_a_value for p in profiles)
    if profiles and echoed * 2 >= len(profiles) and echoed >= 1 and len(profiles) >= 2:
        raise DataError(f"{path}: the first row ({_first_names([p.name for p in profiles])}) looks like a record,"
                        " not column names: its values occur in the columns below them; add a header row that"
                        " names the columns")


def _first_names(names: Sequence[str]) -> str:
    return ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
