"""A commented starter configuration written from a data file (``anonset init DATA``).

A new user has a table and no configuration.  :func:`starter_config` reads the
table (with anonset's own reader, :func:`anonset.io.tables.read_arrow_table`,
so it sees the values exactly as ``anonset anonymize`` will), profiles every
column and writes a YAML configuration that ``anonset anonymize`` runs as it
is, with comments that explain each proposal.

Profiling works on each column's distinct values, found by Arrow's hash
kernels, never with a Python loop over the records; the distinct counts are
exact.  A column is

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

Common missing-value markers (``NA``, ``?``, ``null``, ...) are declared as
``missing`` when, without them, the column is numeric, a date or a code.

Roles are proposals, and the comments say so.  A column whose values are
nearly unique per record (at least :data:`NEARLY_UNIQUE` of the records that
hold a value) or whose name says it is a direct identifier (``id``,
``name``, ``email``, ``phone``, ...) is an ``identifier`` (dropped), with a
warning, except a numeric or date column whose name says nothing of the sort:
it stays a quasi-identifier, generalized.  A column named like a sensitive
attribute (``diagnosis``, ``disease``, ``income``, ``salary``, ...) is
``sensitive``, unless it is a date or its name also names a classic
quasi-identifier (``diagnosis_date``, ``age_at_diagnosis``: an attacker may
know those); a column with one value (or none) is ``insensitive``; every
other column is a ``quasi``-identifier with a hierarchy builder suited to its
type: ``intervals`` with round widths from a few dozen bands down to a
handful (numbers), ``dates``, ``masking`` (codes) and ``flat``
(categories: the ``ordered`` builder would group them in alphabetical order,
which mixes unrelated values; meaningful groups need a hierarchy file or an
``order``, which only the user knows).  Typed Parquet columns are profiled
by their type (numbers, dates and timestamps, booleans).  When the quasi-identifiers' lattice would be too large for
the ``optimal`` search, levels are taken out; when even that is not enough,
the configuration uses ``mondrian``.

A CSV whose first row looks like a record (its names are all numbers, or at
least half of them are values of their own columns) is refused: it has no
header.

The public API: :func:`read_data` (the table, as anonymize reads it),
:func:`profile_table` (one :class:`ColumnProfile` per column),
:func:`propose` (one :class:`Proposal` per column), :func:`fit_lattice`,
:func:`render_config` (the YAML text) and :func:`starter_config`, which does
all of it from a file and checks the text with
:func:`anonset.config.parse_config`.
"""

from __future__ import annotations

import json
import math
import os
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import yaml

from anonset.errors import DataError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "LATTICE_BUDGET",
    "MISSING_TOKENS",
    "NEARLY_UNIQUE",
    "ColumnProfile",
    "Proposal",
    "StarterConfig",
    "check_header_is_not_data",
    "fit_lattice",
    "interval_spec",
    "lattice_size",
    "profile_column",
    "profile_table",
    "propose",
    "read_data",
    "render_config",
    "starter_config",
]

#: Share of the records holding a value above which a column counts as nearly unique per record.
NEARLY_UNIQUE = 0.9
#: Fewer records than this and "nearly unique" says nothing (every column of a tiny table is).
MIN_ROWS_FOR_UNIQUENESS = 20
#: Markers read as "missing" when the column is numeric, a date or a code without them ("" always is).
MISSING_TOKENS: tuple[str, ...] = ("NA", "N/A", "n/a", "na", "NaN", "nan", "?", "null", "NULL", "None", "-")
#: Largest number of candidate generalizations (the product of the hierarchy heights) proposed for ``optimal``.
LATTICE_BUDGET = 100_000
#: Bands wanted at the finest interval level (about), and at most this many at the coarsest.
FINE_BANDS = 30
FEW_BANDS = 5
#: At most this many levels between the values and ``*`` for intervals and masking.
MAX_LEVELS = 3
#: A masking level is coarse enough when it leaves at most this many groups.
FEW_GROUPS = 10
#: At most this many masked characters.
MAX_MASKED = 4
#: The privacy proposal.
K = 5
MAX_SUPPRESSION = 0.01

#: Column names (lower case, letters and digits only) that are direct identifiers.
_IDENTIFIER_NAMES = frozenset({
    "name", "fullname", "firstname", "lastname", "surname", "forename", "givenname", "familyname", "middlename",
    "patientname", "email", "emailaddress", "mail", "phone", "phonenumber", "telephone", "mobile", "cellphone",
    "fax", "ssn", "socialsecuritynumber", "passport", "passportnumber", "address", "streetaddress", "street",
    "iban", "ipaddress", "username", "login",
})
#: Words of a column name that make it a direct identifier (``patient_id``, ``PatientID``, ``record-uuid``).
_IDENTIFIER_WORDS = frozenset({"id", "uuid", "guid", "ssn", "mrn", "email", "phone", "iban", "passport"})
#: Words of a column name that make it a sensitive attribute.
_SENSITIVE_WORDS = frozenset({
    "diagnosis", "diagnoses", "disease", "diseases", "illness", "medication", "medications", "treatment",
    "income", "salary", "salaries", "wage", "wages", "earnings", "religion", "hiv",
})
#: Words of a column name that mark a classic quasi-identifier (no "review" note needed).
_QUASI_WORDS = frozenset({
    "age", "sex", "gender", "zip", "zipcode", "postcode", "postal", "plz", "birth", "birthdate", "dob", "born",
    "race", "ethnicity", "marital", "nationality", "country", "city", "region", "county", "state", "education",
    "occupation", "job", "profession",
})
#: Words of a column name that make a column of digits a code.
_CODE_WORDS = frozenset({"zip", "zipcode", "postcode", "postal", "plz", "code", "icd", "fips", "area", "district"})

_PLAIN_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
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


# ---------------------------------------------------------------------------- profiles
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
    looks_like_data = pc.match_substring_regex(pa.array([n.strip() for n in names]), _PLAIN_NUMBER)
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
                         named_like_a_value=bool(pc.any(pc.equal(values, name)).as_py()) if len(values) else False)
    if len(values) == 0:
        return replace(base, kind="empty")
    found = _text_kind(name, base, values, freq)
    if found.kind == "categorical" and not base.typed:
        tokens = pc.is_in(values, value_set=pa.array(MISSING_TOKENS)).to_numpy(zero_copy_only=False)
        if tokens.any() and not tokens.all():
            markers = tuple(t for t in MISSING_TOKENS if t in set(values.filter(pa.array(tokens)).to_pylist()))
            without = replace(base, distinct=int((~tokens).sum()), missing=missing + int(freq[tokens].sum()),
                              markers=markers)
            better = _text_kind(name, without, values.filter(pa.array(~tokens)), freq[~tokens])
            if better.kind in ("numeric", "date", "code"):
                return better
    return found


def _text_kind(name: str, base: ColumnProfile, values: pa.Array, freq: NDArray[np.int64]) -> ColumnProfile:
    """The profile of a column from its distinct values that are not missing (text) and their counts."""
    example = str(values[int(np.argmax(freq))].as_py())
    base = replace(base, example=example)
    if len(values) == 1:
        return replace(base, kind="constant")
    if _all_match(values, _DIGITS):
        code = _code_profile(base, values)
        if code is not None and (_words(name) & _CODE_WORDS or pc.any(pc.starts_with(values, "0")).as_py()):
            return code
    numbers = _numbers_of(values)
    if numbers is not None:
        return _number_profile(base, values, numbers, freq)
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
    if not _all_match(trimmed, _PLAIN_NUMBER):
        return None
    numbers: NDArray[np.float64] = pc.cast(trimmed, pa.float64()).to_numpy(zero_copy_only=False)
    return numbers if bool(np.isfinite(numbers).all()) else None


def _number_profile(base: ColumnProfile, values: pa.Array, numbers: NDArray[np.float64],
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


def _typed_numbers(name: str, column: pa.ChunkedArray) -> ColumnProfile:
    """The profile of a typed numeric column (NaN and null are missing, as the dataset reads them)."""
    numbers = column.cast(pa.float64()).to_numpy() if column.num_chunks else np.zeros(0)
    numbers = np.asarray(numbers, dtype=np.float64)
    present = numbers[np.isfinite(numbers)]
    base = ColumnProfile(name, len(column), "numeric", 0, len(column) - len(present), typed=True)
    if not len(present):
        return replace(base, kind="empty")
    distinct, freq = np.unique(present, return_counts=True)
    base = replace(base, distinct=len(distinct), example=_number_text(distinct[int(np.argmax(freq))]))
    if len(distinct) == 1:
        return replace(base, kind="constant")
    text = pa.array([_number_text(distinct[0]), _number_text(distinct[-1])])
    profile = _number_profile(base, text, np.asarray([distinct[0], distinct[-1]]), np.asarray([1, 1]))
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
    example = str(values[int(np.argmax(freq))].as_py())
    if len(values) == 1:
        return replace(base, kind="constant", example=example)
    low, high = pc.min_max(values).values()
    return replace(base, example=example, date_format="ISO8601", low=str(low.as_py()), high=str(high.as_py()))


def _number_text(x: float) -> str:
    return str(int(x)) if x == math.floor(x) and abs(x) < 2**53 else repr(float(x))


def _words(name: str) -> set[str]:
    """The words of a column name, lower case: ``PatientID`` and ``patient_id`` give {patient, id}."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return {w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w}


def _squashed(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


# ---------------------------------------------------------------------------- proposals
@dataclass(frozen=True)
class Proposal:
    """The role, type and hierarchy proposed for one column, and the comment lines that explain them."""

    profile: ColumnProfile
    role: str
    type: str | None = None
    hierarchy: dict[str, Any] | None = None
    missing: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()
    warning: str | None = None
    groups: tuple[int, ...] = ()   # intervals: bands per level; masking: groups per level

    @property
    def shape(self) -> str | None:
        """A sentence on the hierarchy's levels (None without a multi-level builder)."""
        h = self.hierarchy or {}
        if h.get("builder") == "intervals":
            widths = ", ".join(_number(w) for w in h["widths"])
            bands = ", ".join(str(b) for b in self.groups)
            return f"Intervals {widths} wide (about {bands} bands), then *."
        if h.get("builder") == "dates":
            return f"Dates generalized to {', '.join(h['levels'])}, then * (format {h['format']})."
        if h.get("builder") == "masking":
            length = self.profile.code_length or 0
            example = self.profile.example or "x" * length
            masked = [example[: length - j] + "*" * j for j in range(1, h["levels"] + 1)]
            return (f"A code of {length} characters, masked from the right: {example} -> {' -> '.join(masked)}"
                    f" -> * ({self.groups[h['levels'] - 1]:,} groups at the coarsest level).")
        return None

    @property
    def entry(self) -> dict[str, Any]:
        """The column's mapping in ``attributes``."""
        out: dict[str, Any] = {"role": self.role}
        if self.type is not None:
            out["type"] = self.type
        if self.missing is not None:
            out["missing"] = list(self.missing)
        if self.hierarchy is not None:
            out["hierarchy"] = self.hierarchy
        return out

    @property
    def levels(self) -> int:
        """Levels of its hierarchy between the values and ``*`` (quasi-identifiers; 0 for flat)."""
        h = self.hierarchy or {}
        if h.get("builder") == "intervals":
            return len(h["widths"])
        if h.get("builder") in ("masking", "dates"):
            value = h.get("levels", 0)
            return value if isinstance(value, int) else len(value)
        return 0


def propose(profiles: Sequence[ColumnProfile]) -> list[Proposal]:
    """One proposal per profile: see the module docstring for the rules."""
    return [_propose(p) for p in profiles]


def _propose(p: ColumnProfile) -> Proposal:
    words, squashed = _words(p.name), _squashed(p.name)
    markers = ("", *p.markers) if p.markers else None
    if p.kind == "empty":
        return Proposal(p, "insensitive", notes=("Every value is missing: released as it is (nothing to protect).",))
    named_identifier = squashed in _IDENTIFIER_NAMES or bool(words & _IDENTIFIER_WORDS)
    if named_identifier:
        why = "its name says it identifies a person or a record"
        if p.nearly_unique:
            why += f", and it is nearly unique per row ({p.unique_share:.0%} of the records with a value)"
        return Proposal(p, "identifier", warning=f"{why}: it would single out people if released.",
                        notes=("Removed from the release.",))
    mentions = sorted(words & _SENSITIVE_WORDS)
    # a date (of a diagnosis) or an age (at diagnosis) is what an attacker may know, whatever it is about
    sensitive = bool(mentions) and p.kind != "date" and not words & _QUASI_WORDS
    if p.nearly_unique and p.kind not in ("numeric", "date"):
        return Proposal(p, "identifier", warning=f"nearly unique per row ({p.unique_share:.0%} of the records"
                        " with a value hold a value of their own, like names, record numbers or free text): it"
                        " would single out people if released.",
                        notes=("Removed from the release." + (
                            " If it is a code that an attacker could know (a postcode), make it quasi with a"
                            " hierarchy instead." if p.kind == "code" else ""),))
    if p.kind == "constant":
        return Proposal(p, "insensitive", notes=("One value in every record (or missing): it cannot tell people"
                                                 " apart; released as it is.",))
    unique_warning = (f"nearly unique per row ({p.unique_share:.0%} of the records with a value hold a value of"
                      " their own): released only generalized.") if p.nearly_unique else None
    if sensitive:
        notes = ["Sensitive, by its name: an attacker must not learn it. It is released as it is; protect it with"
                 " l-diversity or t-closeness (privacy, below). If an attacker may already know it, make it quasi."]
        return Proposal(p, "sensitive", type="numeric" if p.kind == "numeric" else None, missing=markers,
                        notes=tuple(notes))
    review: tuple[str, ...] = () if words & _QUASI_WORDS or p.kind == "date" else (
        "Review: quasi, because an attacker may know it. If it must not be learned, make it sensitive; if nobody"
        " could link it to a person, insensitive.",)
    if mentions:
        known = "it is a date" if p.kind == "date" else f"also {' and '.join(sorted(words & _QUASI_WORDS))}"
        review = (f"Its name mentions {' and '.join(mentions)}, but {known}, which an attacker may know: quasi."
                  " If it must not be learned, make it sensitive.",)
    if p.kind == "numeric":
        return _numeric_quasi(p, markers, review, unique_warning)
    if p.kind == "date":
        fmt = p.date_format or "ISO8601"
        notes = []
        if p.date_ambiguous:
            other = {"%d/%m/%Y": "%m/%d/%Y", "%d-%m-%Y": "%m-%d-%Y"}.get(fmt, fmt)
            notes.append(f"Ambiguous: the values read as day-first ({fmt}) and as month-first ({other});"
                         f" if they are month-first, set format: '{other}'.")
        return Proposal(p, "quasi", type="date", missing=markers, warning=unique_warning,
                        hierarchy={"builder": "dates", "levels": ["month", "year", "decade"], "format": fmt},
                        notes=(*notes, *review))
    if p.kind == "code":
        return _code_quasi(p, markers, review)
    notes = []
    if p.distinct > 100:
        notes.append(f"{p.distinct:,} values: a flat hierarchy can only keep them or hide them all; a hierarchy file"
                     " with groups keeps more.")
    return Proposal(p, "quasi", hierarchy={"builder": "flat"}, notes=(*notes, *review))


def _numeric_quasi(p: ColumnProfile, markers: tuple[str, ...] | None, review: tuple[str, ...],
                   warning: str | None) -> Proposal:
    if p.distinct <= 2:
        return Proposal(p, "quasi", type="numeric", missing=markers, hierarchy={"builder": "flat"}, warning=warning,
                        notes=("Only two values: released or replaced by *.", *review))
    assert p.numbers is not None
    hierarchy, bands, coded = interval_spec(p.numbers, p.integral)
    notes = [coded] if coded else []
    return Proposal(p, "quasi", type="numeric", missing=markers, hierarchy=hierarchy, warning=warning,
                    notes=(*notes, *review), groups=tuple(bands))


def _code_quasi(p: ColumnProfile, markers: tuple[str, ...] | None, review: tuple[str, ...]) -> Proposal:
    assert p.code_length is not None
    groups = p.prefix_groups
    if not groups or groups[-1] >= p.distinct:
        return Proposal(p, "quasi", missing=markers, hierarchy={"builder": "flat"},
                        notes=(f"A code of {p.code_length} characters whose values differ in the first one already:"
                               " masking would group nothing, so flat.", *review))
    levels = min(next((j for j, g in enumerate(groups, start=1) if g <= FEW_GROUPS), len(groups)), MAX_MASKED)
    return Proposal(p, "quasi", missing=markers, hierarchy={"builder": "masking", "levels": levels},
                    notes=review, groups=groups)


def interval_spec(numbers: tuple[float, float, float, float],
                  integral: bool) -> tuple[dict[str, Any], list[int], str | None]:
    """An ``intervals`` builder mapping for values spanning ``numbers`` (min, 0.5%, 99.5%, max).

    The finest width is the smallest round number (1, 2 or 5 times a power of
    ten) that cuts the range into at most :data:`FINE_BANDS` bands (at least 2
    for whole numbers); each next width is the next round multiple (x2, x5, x2,
    ...), until at most :data:`FEW_BANDS` bands remain or there are
    :data:`MAX_LEVELS` levels.  When the extreme 1% of the records stretch
    the range more than threefold, the widths follow the other 99% and the
    extremes are bottom- and top-coded.  Returns the mapping, the bands per
    level and a sentence on the coding (or None).
    """
    low, p_low, p_high, high = numbers
    span_low, span_high, coded = low, high, False
    if p_high > p_low and high - low > 3 * (p_high - p_low):
        span_low, span_high, coded = p_low, p_high, True
    width, mantissa = _round_at_least(Fraction(span_high - span_low) / FINE_BANDS if span_high > span_low
                                      else Fraction(1))
    if integral and width < 2:
        width, mantissa = Fraction(2), 2
    widths = [width]
    while _bands(span_low, span_high, widths[-1]) > FEW_BANDS and len(widths) < MAX_LEVELS:
        width, mantissa = (width * 2, 2) if mantissa == 1 else (width * 5, 1) if mantissa == 2 else (width * 2, 1)
        widths.append(width)
    spec: dict[str, Any] = {"builder": "intervals", "widths": [_plain(w) for w in widths]}
    sentence = None
    if coded:
        coarse = widths[-1]
        bottom = Fraction(math.floor(Fraction(span_low) / coarse)) * coarse
        top = Fraction(math.ceil(Fraction(span_high) / coarse)) * coarse
        parts = []
        if Fraction(low) < bottom:
            spec["bottom"] = _plain(bottom)
            parts.append(f"below {_number(bottom)} one group <{_number(bottom)}")
        if Fraction(high) >= top:
            spec["top"] = _plain(top)
            parts.append(f"from {_number(top)} up one group >={_number(top)}")
        if parts:
            sentence = (f"A few extreme values would stretch the bands: values {' and '.join(parts)}"
                        " (bottom and top coding).")
    return spec, [_bands(span_low, span_high, w) for w in widths], sentence


def _round_at_least(x: Fraction) -> tuple[Fraction, int]:
    """The smallest 1, 2 or 5 times a power of ten that is at least ``x`` (> 0), and that 1, 2 or 5."""
    exponent = math.floor(math.log10(float(x))) if x > 0 else 0
    for e in (exponent - 1, exponent, exponent + 1):
        for m in (1, 2, 5):
            value = m * Fraction(10) ** e
            if value >= x:
                return value, m
    return Fraction(10) ** (exponent + 2), 1


def _bands(low: float, high: float, width: Fraction) -> int:
    return int(math.floor(Fraction(high) / width) - math.floor(Fraction(low) / width)) + 1


def _plain(x: Fraction) -> int | float:
    """A width for YAML: an int when whole, else the float of the decimal (exact for 1, 2, 5 x 10^-n)."""
    return int(x) if x.denominator == 1 else float(_number(x))


def _number(x: Fraction | float | int) -> str:
    """A number as people write it: 10 not 10.0, 0.05 not 1/20."""
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return str(x.numerator)
        return format(x.numerator / x.denominator, ".12g")
    return _number_text(float(x))


# ---------------------------------------------------------------------------- the lattice
def fit_lattice(proposals: Sequence[Proposal], budget: int = LATTICE_BUDGET) -> tuple[list[Proposal], bool]:
    """Take levels out (one at a time, from the column with the most) until the lattice fits ``budget``.

    Returns the proposals and whether they fit; when they do not, every
    multi-level hierarchy is down to one level between the values and ``*``.
    """
    out = list(proposals)
    while lattice_size(out) > budget:
        candidates = [i for i, p in enumerate(out) if p.role == "quasi" and p.levels > 1]
        if not candidates:
            return out, False
        i = max(candidates, key=lambda j: (out[j].levels, -j))
        out[i] = _one_level_less(out[i])
    return out, True


def lattice_size(proposals: Iterable[Proposal]) -> int:
    """Candidate generalizations of the quasi-identifiers: the product of their hierarchies' heights."""
    return math.prod(p.levels + 2 for p in proposals if p.role == "quasi")


def _one_level_less(p: Proposal) -> Proposal:
    assert p.hierarchy is not None
    h = dict(p.hierarchy)
    groups = p.groups
    if h["builder"] == "intervals":
        h["widths"], groups = h["widths"][1:], groups[1:]       # the coarser bands stay
    elif h["builder"] == "dates":
        h["levels"] = h["levels"][1:]
    else:
        h["levels"] = h["levels"] - 1                           # masking: the longer prefixes stay
    note = f"Fewer levels than the data would allow, to keep the search small (at most {LATTICE_BUDGET:,} candidates)."
    return replace(p, hierarchy=h, groups=groups, notes=(*p.notes, note) if note not in p.notes else p.notes)


# ---------------------------------------------------------------------------- the YAML text
@dataclass(frozen=True)
class StarterConfig:
    """A starter configuration: its YAML text, the proposals it holds and notes for the terminal."""

    text: str
    proposals: list[Proposal]
    method: str
    notes: list[str] = field(default_factory=list)


def starter_config(data: str | Path, config: str | Path | None = None, delimiter: str | None = None,
                   *, base: str | Path | None = None) -> StarterConfig:
    """Read ``data`` and write the starter configuration for it.

    Parameters
    ----------
    data : str or Path
        The CSV or Parquet file.
    config : str or Path, optional
        Where the configuration will be saved: its folder anchors the
        relative paths.  Default: a file in ``base``.
    delimiter : str, optional
        CSV delimiter (default: sniffed, as ``anonset anonymize`` does).
    base : str or Path, optional
        The folder of a configuration printed rather than saved (default: the
        current folder).

    Raises
    ------
    DataError
        The data cannot be read (see :func:`read_data`).
    """
    data_path = Path(data)
    table, sep = read_data(data_path, delimiter)
    folder = Path(config).parent if config is not None else Path(base) if base is not None else Path.cwd()
    profiles = profile_table(table)
    if sep is not None:
        check_header_is_not_data(data_path, profiles)
    proposals = propose(profiles)
    fitted, fits = fit_lattice(proposals)
    method = "optimal" if fits else "mondrian"
    if not fits:  # mondrian has no lattice: the hierarchies keep every level
        fitted = proposals
    notes = []
    if table.num_rows < K:
        notes.append(f"only {table.num_rows} records: k is {table.num_rows}, the most a table this small allows")
    if not any(p.role == "quasi" for p in fitted):
        notes.append("no column was proposed as a quasi-identifier: anonymize refuses a config without one; mark"
                     " the columns an attacker may know as role: quasi")
    if not fits:
        notes.append(f"the quasi-identifiers' lattice has more than {LATTICE_BUDGET:,} candidate generalizations"
                     " even with one level per hierarchy, too many for method optimal: the config uses mondrian")
    text = render_config(fitted, table.num_rows, _relative(data_path, folder), sep, data_path.stem, method,
                         Path(config).name if config is not None else "CONFIG.yaml")
    _self_check(text, folder)
    return StarterConfig(text, fitted, method, notes)


def _relative(path: Path, folder: Path) -> str:
    """``path`` relative to ``folder``; absolute when the two share no folder but the root."""
    target, start = path.resolve(), folder.resolve()
    try:
        if os.path.commonpath([target, start]) == target.anchor:
            return target.as_posix()
        return Path(os.path.relpath(target, start)).as_posix()
    except ValueError:  # another drive (Windows)
        return target.as_posix()


def _self_check(text: str, folder: Path) -> None:
    """The text must be a configuration anonset accepts (a failure here is a bug in this module)."""
    from anonset.config import parse_config

    parse_config(yaml.safe_load(text), folder / "anonset-init.yaml")


def render_config(proposals: Sequence[Proposal], rows: int, data: str, delimiter: str | None, stem: str,
                  method: str = "optimal", config_name: str = "CONFIG.yaml") -> str:
    """The YAML text of the configuration, with its comments (``config_name``: the file it is saved as)."""
    lines = _header(data, rows, len(proposals), config_name)
    source: dict[str, Any] = {"path": data}
    if delimiter is not None:
        source["delimiter"] = delimiter
    lines += _comment_lines("The data file, relative to this file's folder" + (
        ", and the delimiter anonset detected in it." if delimiter is not None else "."))
    lines.append(f"input: {_flow(source)}")
    lines += ["", "attributes:"]
    for p in proposals:
        lines += _column_lines(p)
    lines += _privacy_lines(proposals, rows, method)
    lines += _method_lines(method)
    output = f"{stem}-anonymized.csv"
    lines += ["", _with_comment(f"output: {_flow({'path': output})}", "relative to this file's folder"),
              _with_comment("seed: 0", "for the randomized methods"), ""]
    return "\n".join(lines)


def _header(data: str, rows: int, columns: int, config_name: str) -> list[str]:
    text = f"""\
Starter configuration for `anonset anonymize`, written by `anonset init` from {data}
({rows:,} records, {columns} columns). Check it, then run: anonset anonymize {config_name}

Every role below is a proposal from the values and the column names, not a decision:
review each column before you release anything. The roles:
  identifier   removed from the release (names, record numbers, free text)
  quasi        an attacker may know it (age, ZIP code, dates, sex): generalized until every
               combination of quasi-identifier values is shared by at least k records
  sensitive    must not be learned about anyone (a diagnosis, an income): released as it is,
               protected by l-diversity or t-closeness (privacy, below)
  insensitive  released as it is
A column missing from `attributes` is released as it is.

Hierarchies say how a quasi-identifier may be coarsened, level by level, up to * (hidden):
  intervals    numbers into wider and wider bands (30-34, 30-39, 20-39, *)
  dates        dates into month, year, decade (2021-03, 2021, 2020s, *)
  masking      codes lose characters from the right (47911, 4791*, 479**, *)
  flat         a value is released or replaced by * (categories: their values have no order
               anonset could group by). For groups in between (regions of countries), write a
               hierarchy file (leaf;level1;...;*); for ordered categories (education levels),
               use type: ordinal, order: [...] and hierarchy: {{builder: ordered, fanouts: [2]}}.
The method picks for each quasi-identifier the level that loses the least information
while meeting `privacy`. Every key is described in docs/config.md."""
    return [f"# {line}".rstrip() for line in text.splitlines()] + [""]


def _column_lines(p: Proposal) -> list[str]:
    prof = p.profile
    out = [""]
    comments = [_describe(prof, show_example=p.role != "identifier")]
    if p.warning:
        comments.append(f"WARNING: {p.warning}")
    if p.shape:
        comments.append(p.shape)
    comments += list(p.notes)
    for comment in comments:
        out += _comment_lines(comment, "  ")
    out.append(f"  {_key(prof.name)}: {_flow(p.entry)}")
    return out


def _describe(p: ColumnProfile, show_example: bool) -> str:
    kind = {"numeric": "numeric", "date": "date", "code": "code", "categorical": "categorical (text)",
            "constant": "one value", "empty": "empty"}[p.kind]
    parts = [f"{p.name}: {kind}, {p.distinct:,} distinct value{'s' if p.distinct != 1 else ''} in {p.rows:,}"
             f" records"]
    if p.missing:
        markers = f" (empty or {', '.join(p.markers)})" if p.markers else ""
        parts.append(f"{p.missing:,} missing{markers}")
    if show_example and p.kind in ("numeric", "date") and p.low is not None:
        parts.append(f"from {p.low.strip()} to {(p.high or '').strip()}")
    elif show_example and p.example is not None:
        parts.append(f"most frequent: {_shown(p.example)}")
    elif not show_example:
        parts.append("values not shown here")
    return "; ".join(parts) + "."


def _shown(value: str, limit: int = 40) -> str:
    text = value if len(value) <= limit else value[: limit - 3] + "..."
    return json.dumps(text, ensure_ascii=False)


def _privacy_lines(proposals: Sequence[Proposal], rows: int, method: str) -> list[str]:
    k = max(1, min(K, rows))
    suppression = MAX_SUPPRESSION if method == "optimal" else 0
    lines = ["", "privacy:",
             _with_comment(f"  k: {k}", f"every combination of quasi-identifier values: at least {k} records"),
             _with_comment(f"  max_suppression: {suppression}",
                           "up to 1% of the records may be suppressed instead" if suppression
                           else f"{method} suppresses no record")]
    sensitive = [p for p in proposals if p.role == "sensitive" and p.profile.distinct >= 2]
    if not sensitive:
        return lines
    names = ", ".join(p.profile.name for p in sensitive)
    several = len(sensitive) > 1
    lines += _comment_lines(
        f"The sensitive column{'s' if several else ''} {names} {'are' if several else 'is'} released as"
        f" {'they are' if several else 'it is'}: all the records of one group could share one value, and then"
        " everybody in the group is known to have it. To prevent that, uncomment one of these (l-diversity:"
        " at least l different values in every group; t-closeness: every group's values distributed like the"
        " whole table's, within t):", "  ")
    l_entries = [{"attribute": p.profile.name, "l": min(3, p.profile.distinct), "variant": "distinct"}
                 for p in sensitive]
    t_entries = [{"attribute": p.profile.name, "t": 0.2, "distance": "ordered" if p.type == "numeric" else "equal"}
                 for p in sensitive]
    lines.append(f"  # l_diversity: {_flow(l_entries[0] if not several else l_entries)}")
    lines.append(f"  # t_closeness: {_flow(t_entries[0] if not several else t_entries)}")
    return lines


def _method_lines(method: str) -> list[str]:
    from anonset.methods import registry

    others = [name for name in registry.names() if name != method]
    if method == "optimal":
        lines = ["", _with_comment("method: {name: optimal, metric: loss}",
                                   "the least information loss over every generalization")]
    else:
        lines = [""] + _comment_lines(
            f"Mondrian, because optimal would have to search more than {LATTICE_BUDGET:,} candidate"
            " generalizations of these quasi-identifiers. It splits the records into classes of at least k and"
            " releases each class's range of numbers and dates (other values through their hierarchy); it"
            " suppresses no record.") + ["method: {name: mondrian}"]
    return lines + _comment_lines(f"Other methods: {', '.join(others)} (`anonset methods` describes them).")


def _comment_lines(text: str, indent: str = "") -> list[str]:
    """``text`` as comment lines of at most about 100 characters (anything YAML could read as a break: a blank)."""
    clean = _UNPRINTABLE.sub(" ", text)
    return [f"{indent}# {line}" for line in textwrap.wrap(clean, 100 - len(indent), break_long_words=False,
                                                           break_on_hyphens=False)]


def _with_comment(code: str, comment: str, column: int = 40) -> str:
    pad = max(column - len(code), 2)
    return f"{code}{' ' * pad}# {comment}"


# ---------------------------------------------------------------------------- YAML scalars
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*")


def _key(name: str) -> str:
    """A column name as a mapping key: plain when YAML reads it back unchanged, else double-quoted."""
    return _text(name)


def _text(value: str) -> str:
    """A string for YAML: plain when YAML reads it back unchanged, else double-quoted with JSON's escapes."""
    if _PLAIN.fullmatch(value) and yaml.safe_load(f"{{k: {value}}}") == {"k": value} and yaml.safe_load(
            f"{value}: 1") == {value: 1}:
        return value
    return json.dumps(value, ensure_ascii=bool(_UNPRINTABLE.search(value)))


#: Characters YAML does not allow unescaped, or reads as a line break.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def _flow(value: Any) -> str:
    """A value in YAML flow style: ``{builder: intervals, widths: [5, 10]}``."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_text(str(k))}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number(value) if value == math.floor(value) else repr(value)
    return _text(str(value))
