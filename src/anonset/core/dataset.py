"""``Dataset``: a table with attribute roles and types, dictionary-encoded once.

A :class:`Dataset` wraps a pandas DataFrame whose categorical values are kept
as the strings that were read (``007`` stays ``007``).  Each column gets an
:class:`AttributeSpec`: a *role* (identifier, quasi-identifier, sensitive,
insensitive, target) and a *type* (numeric, ordinal, categorical, date).
Columns nobody named are insensitive and pass through a release untouched;
identifiers are dropped from every release.

A hierarchy may be given as a :class:`~anonset.hierarchy.Hierarchy`, as a
hierarchy file path, or in the builder form of a configuration file
(``{"builder": "intervals", "widths": [5, 10, 20]}``); the dataset builds the
latter from the column's distinct values, read from the rows in memory or from
the value counts of a table profiled inside a database
(:func:`anonset.hierarchy.build_hierarchy` on either path, so both give the
same hierarchy).

Quasi-identifiers and sensitive attributes are encoded once into int32 codes
(:class:`EncodedColumn`).  A quasi-identifier with a hierarchy is encoded into
the hierarchy's leaf codes, so generalization is a table lookup.  A
categorical quasi-identifier without a hierarchy gets the flat one (value ->
``*``); a numeric one without a hierarchy keeps its numbers for the methods
that cut intervals (full-domain search needs a hierarchy and says so).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from anonset.core.hierarchy import Hierarchy
from anonset.core.hierarchy_builders import build_hierarchy
from anonset.core.hierarchy_csv import read_hierarchy
from anonset.core.specs import (
    AttributeSpec,
    AttributeType,
    HierarchyForm,
    Role,
    attribute_spec,
)
from anonset.errors import ConfigError, DataError, HierarchyError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["BY_VALUE_TYPES", "AttributeSpec", "AttributeType", "Dataset", "EncodedColumn", "HierarchyForm", "Role",
           "attribute_spec", "row_values"]


@dataclass(frozen=True, eq=False)
class EncodedColumn:
    """A column dictionary-encoded into int32 codes.

    ``categories[c]`` is the label of code ``c``; ``numbers[c]`` its numeric
    value for numeric and date columns (days since 1970-01-01 for dates) and
    its rank in the order for ordinal quasi-identifiers, NaN for a missing marker.  For a quasi-identifier with a
    hierarchy the codes
    are the hierarchy's leaf codes.
    """

    name: str
    codes: NDArray[np.int32] | None
    categories: NDArray[np.object_]
    numbers: NDArray[np.float64] | None = None
    value_counts: NDArray[np.int64] | None = None

    def __post_init__(self) -> None:
        if self.value_counts is None:
            if self.codes is None:
                raise ValueError(f"column {self.name!r}: give per-row codes or per-value counts")
            counts = np.bincount(self.codes, minlength=len(self.categories)).astype(np.int64)
            object.__setattr__(self, "value_counts", counts)

    @property
    def n_categories(self) -> int:
        """Size of the code domain."""
        return len(self.categories)

    def counts(self) -> NDArray[np.int64]:
        """Number of rows per code."""
        assert self.value_counts is not None
        return self.value_counts

    def row_codes(self) -> NDArray[np.int32]:
        """Per-row codes; a DataError when the rows are not in memory (a table in a database)."""
        if self.codes is None:
            raise DataError(
                f"column {self.name!r}: the rows of this dataset live in a database and are not in memory;"
                " use the SQL engine for this operation"
            )
        return self.codes


@dataclass(frozen=True)
class TableProfile:
    """What a dataset needs of a table that is not in memory: columns, row count, value counts.

    ``values[column]`` is ``(distinct values as str, count of each)``; only
    quasi-identifiers and sensitive attributes need an entry.
    """

    columns: tuple[str, ...]
    n_rows: int
    values: Mapping[str, tuple[NDArray[np.object_], NDArray[np.int64]]]


@dataclass(eq=False)
class Dataset:
    """A table plus attribute specs, with quasi-identifiers and sensitive attributes encoded.

    Parameters
    ----------
    table : pandas.DataFrame or None
        The records.  Categorical values should be strings exactly as written.
        ``None`` for a table that stays in a database: give ``profile`` instead.
    attributes : mapping of str to AttributeSpec or dict
        Specs by column name; unnamed columns are insensitive.
    source : str
        Where the table came from, for error messages.
    profile : TableProfile, optional
        Columns, row count and value counts of a table that is not in memory
        (see :meth:`from_profile`); its encoded columns have no per-row codes.
    """

    table: pd.DataFrame | None
    attributes: Mapping[str, AttributeSpec | Mapping[str, Any]]
    source: str = "<DataFrame>"
    profile: TableProfile | None = None
    specs: dict[str, AttributeSpec] = field(init=False)
    quasi: tuple[str, ...] = field(init=False)
    sensitive: tuple[str, ...] = field(init=False)
    encoded: dict[str, EncodedColumn] = field(init=False)

    def __post_init__(self) -> None:
        if (self.table is None) == (self.profile is None):
            raise ValueError("give exactly one of table and profile")
        if self.table is not None:
            columns = [str(c) for c in self.table.columns]
        else:
            assert self.profile is not None
            columns = [str(c) for c in self.profile.columns]
        dupes = sorted({c for c in columns if columns.count(c) > 1})
        if dupes:
            raise DataError(f"{self.source}: duplicate column name {dupes[0]!r}; rename the columns so each is unique")
        if self.n_rows == 0:
            raise DataError(f"{self.source}: the table has no rows (header only?); give at least one record")
        specs: dict[str, AttributeSpec] = {}
        for name, spec in self.attributes.items():
            if name not in columns:
                raise DataError(
                    f"{self.source}: configured column {name!r} is not in the data; columns are: {', '.join(columns)}"
                    + _delimiter_hint(columns)
                )
            specs[name] = attribute_spec(name, spec)
        for name in columns:
            specs.setdefault(name, AttributeSpec())
        self.specs = specs
        self.quasi = tuple(c for c in columns if specs[c].role is Role.QUASI)
        self.sensitive = tuple(c for c in columns if specs[c].role is Role.SENSITIVE)
        self.encoded = {}
        for name in self.quasi:
            self.encoded[name] = self._encode_quasi(name)
        for name in self.sensitive:
            self.encoded[name] = self._encode_plain(name)

    # ------------------------------------------------------------------ accessors
    @classmethod
    def from_profile(cls, profile: TableProfile, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]],
                     source: str) -> Dataset:
        """A dataset of a table that is not in memory, from its value counts."""
        return cls(None, attributes, source=source, profile=profile)

    @property
    def n_rows(self) -> int:
        """Number of records."""
        return len(self.table) if self.table is not None else cast(TableProfile, self.profile).n_rows

    @property
    def in_memory(self) -> bool:
        """True when the rows are in memory (a DataFrame), False for a profiled database table."""
        return self.table is not None

    def hierarchy(self, name: str) -> Hierarchy | None:
        """The (possibly extended or built) hierarchy of a quasi-identifier or sensitive attribute, or ``None``."""
        return self._hierarchies.get(name)

    def resolved_specs(self) -> dict[str, AttributeSpec]:
        """The attribute specs with the hierarchies this dataset built (flat, from a builder or file, extended).

        Another table encoded with them gets the same leaf codes, which is what
        applying a recoding learned here to new records needs.
        """
        return {name: replace(spec, hierarchy=self.hierarchy(name) or spec.hierarchy)
                for name, spec in self.specs.items()}

    def require_hierarchy(self, name: str) -> Hierarchy:
        """The hierarchy of ``name``; a ConfigError when it has none."""
        h = self.hierarchy(name)
        if h is None:
            raise ConfigError(
                f"{self.source}: numeric quasi-identifier {name!r} has no hierarchy, which full-domain"
                " generalization needs; give `hierarchy:` a file or a builder such as"
                " {builder: intervals, widths: [5, 10, 20]}"
            )
        return h

    @property
    def hierarchies(self) -> tuple[Hierarchy, ...]:
        """Hierarchies of all quasi-identifiers, in quasi-identifier order (all must exist)."""
        return tuple(self.require_hierarchy(q) for q in self.quasi)

    def qi_codes(self) -> NDArray[np.int32]:
        """(n_rows, n_quasi) int32 matrix of leaf codes, cached."""
        if self._qi_matrix is None:
            if self.quasi:
                self._qi_matrix = np.column_stack([self.encoded[q].row_codes() for q in self.quasi]).astype(np.int32)
            else:
                self._qi_matrix = np.zeros((self.n_rows, 0), dtype=np.int32)
        return self._qi_matrix

    _hierarchies: dict[str, Hierarchy] = field(init=False, default_factory=dict)
    _distinct_values: dict[str, NDArray[np.object_]] = field(init=False, default_factory=dict, repr=False)
    _value_codes: dict[str, dict[str, int]] = field(init=False, default_factory=dict, repr=False)
    #: Derived facts (metric cost tables and the like), keyed by their producer.
    cache: dict[object, Any] = field(init=False, default_factory=dict, repr=False)
    _qi_matrix: NDArray[np.int32] | None = field(init=False, default=None)

    # ------------------------------------------------------------------ encoding
    def _raw(self, name: str) -> NDArray[np.object_]:
        """The column as strings; NaN / None / NA become the first declared missing marker."""
        assert self.table is not None
        col = self.table[name]
        marker = self.specs[name].missing[0] if self.specs[name].missing else ""
        missing = col.isna().to_numpy()
        values: NDArray[np.object_] = col.to_numpy(dtype=object)
        if missing.any() or col.dtype != object:
            values = np.where(missing, marker, col.astype(str).to_numpy(dtype=object)).astype(object)
        return values

    def _distinct(self, name: str) -> tuple[NDArray[np.object_], NDArray[np.int64], NDArray[np.int64] | None]:
        """Distinct values (str), their counts, and each row's index into them (None without rows)."""
        if self.table is not None:
            uniques, inverse = _factorize(self._raw(name))
            self._distinct_values[name] = uniques
            return uniques, np.bincount(inverse, minlength=len(uniques)).astype(np.int64), inverse
        assert self.profile is not None
        if name not in self.profile.values:
            raise DataError(f"{self.source}: no value counts for column {name!r}; profile every quasi-identifier"
                            " and sensitive column")
        values, counts = self.profile.values[name]
        uniques = np.asarray([str(v) for v in values], dtype=object)
        self._distinct_values[name] = uniques
        return uniques, np.asarray(counts, dtype=np.int64), None

    def _column(self, name: str, mapping: NDArray[np.int64], inverse: NDArray[np.int64] | None,
                unique_counts: NDArray[np.int64], categories: NDArray[np.object_],
                numbers: NDArray[np.float64] | None) -> EncodedColumn:
        """An EncodedColumn whose code for distinct value i is ``mapping[i]``."""
        counts = np.bincount(mapping, weights=unique_counts, minlength=len(categories)).astype(np.int64)
        codes = None if inverse is None else mapping[inverse].astype(np.int32)
        labels = (str(v) for v in self._distinct_values[name])
        self._value_codes[name] = dict(zip(labels, mapping.tolist(), strict=True))
        return EncodedColumn(name, codes, categories, numbers, counts)

    def value_codes(self, name: str) -> dict[str, int]:
        """Code of every distinct raw value of an encoded column, as the value is written in the source.

        Missing values (NaN / NULL) are written as the first declared missing
        marker, which is how a SQL engine must present them too.
        """
        return self._value_codes[name]

    def _missing_check(self, name: str, uniques: NDArray[np.object_]) -> list[str]:
        spec = self.specs[name]
        present = [str(v) for v in uniques if str(v) in spec.missing]
        if present and spec.missing_policy == "error":
            raise DataError(
                f"{self.source}, column {name!r}: missing value {present[0]!r} found and the config says"
                " `missing: error`; fill the value or let missing values form their own group"
            )
        return present

    def _given_hierarchy(self, name: str, uniques: NDArray[np.object_]) -> Hierarchy | None:
        """The spec's hierarchy: as given, read from its file, or built from the distinct values.

        A builder sees the distinct values without the missing markers; the
        spec is updated to hold the hierarchy.
        """
        spec = self.specs[name]
        given = spec.hierarchy
        if given is None or isinstance(given, Hierarchy):
            return given
        if isinstance(given, Mapping):
            values = [str(v) for v in uniques if str(v) not in spec.missing]
            h = build_hierarchy(name, given, values, order=spec.order)
        else:
            h = read_hierarchy(os.fspath(given), name=name)
        self.specs[name] = replace(spec, hierarchy=h)
        return h

    def _encode_quasi(self, name: str) -> EncodedColumn:
        spec = self.specs[name]
        uniques, unique_counts, inverse = self._distinct(name)
        missing_present = self._missing_check(name, uniques)
        h = self._given_hierarchy(name, uniques)
        if h is None and spec.type is AttributeType.NUMERIC:
            numbers = _parse_numbers(self.source, name, uniques, spec.missing)
            if np.isnan(numbers).any():
                raise DataError(
                    f"{self.source}, column {name!r}: numeric quasi-identifier has missing values"
                    f" ({missing_present[0]!r}) and no hierarchy to place them; fill them or give a hierarchy"
                    " that lists the marker"
                )
            order = np.argsort(numbers, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            return self._column(name, rank, inverse, unique_counts, uniques[order], numbers[order])
        if h is None:
            if spec.order:
                listed = set(map(str, spec.order)) | set(spec.missing)
                unlisted = [str(v) for v in uniques if str(v) not in listed]
                if unlisted:
                    raise ConfigError(f"{self.source}, column {name!r}: value {unlisted[0]!r} is not in the declared"
                                      " `order`; list every value")
            values = list(spec.order) if spec.order else sorted(str(v) for v in uniques)
            h = Hierarchy.flat(name, values)
        numeric = spec.type is AttributeType.NUMERIC
        leaf_of_unique = _leaf_codes(h, uniques, numeric)
        extra = [str(uniques[i]) for i in np.flatnonzero(leaf_of_unique < 0) if str(uniques[i]) in missing_present]
        if extra:
            h = h.with_extra_leaves(extra)
            leaf_of_unique = _leaf_codes(h, uniques, numeric)
        _require_covered(self.source, name, h, uniques, leaf_of_unique, "(one line each)")
        self._hierarchies[name] = h
        leaf_numbers = None
        if spec.type is AttributeType.NUMERIC:
            leaf_numbers = _leaf_numbers(h, spec.missing)
        elif spec.type is AttributeType.DATE:
            leaf_numbers = _date_numbers(h.labels[0], spec.missing)
        elif spec.type is AttributeType.ORDINAL:
            leaf_numbers = _leaf_ranks(self.source, name, h, spec.order, spec.missing, leaf_of_unique)
        return self._column(name, leaf_of_unique, inverse, unique_counts, h.labels[0], leaf_numbers)

    def _encode_plain(self, name: str) -> EncodedColumn:
        """Encode a sensitive attribute.

        With a hierarchy the codes are the hierarchy's leaf codes (what
        hierarchical t-closeness needs), and the leaf order is the value order;
        otherwise values are ranked numerically (numeric), by ``order``
        (ordinal), or as sorted text.
        """
        spec = self.specs[name]
        uniques, unique_counts, inverse = self._distinct(name)
        self._missing_check(name, uniques)
        numeric = spec.type is AttributeType.NUMERIC
        h = self._given_hierarchy(name, uniques)
        if h is not None:
            leaf = _leaf_codes(h, uniques, numeric)
            _require_covered(self.source, name, h, uniques, leaf, "")
            self._hierarchies[name] = h
            numbers = _leaf_numbers(h, spec.missing) if numeric else None
            return self._column(name, leaf, inverse, unique_counts, h.labels[0], numbers)
        numbers = None
        if numeric:
            numbers = _parse_numbers(self.source, name, uniques, spec.missing)
            order = np.argsort(numbers, kind="stable")
        elif spec.order:
            pos = {v: i for i, v in enumerate(spec.order)}
            unknown = [str(v) for v in uniques if str(v) not in pos]
            if unknown:
                raise ConfigError(
                    f"{self.source}, column {name!r}: value {unknown[0]!r} is not in the declared `order`;"
                    " list every value"
                )
            order = np.argsort([pos[str(v)] for v in uniques], kind="stable")
        else:
            order = np.argsort(uniques.astype(str), kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return self._column(name, rank, inverse, unique_counts, uniques[order],
                            None if numbers is None else numbers[order])


def _factorize(raw: NDArray[np.object_]) -> tuple[NDArray[np.object_], NDArray[np.int64]]:
    codes, uniques = pd.factorize(raw, sort=False, use_na_sentinel=False)
    return np.asarray(uniques, dtype=object), codes.astype(np.int64)


def _parse_numbers(source: str, name: str, uniques: NDArray[np.object_], missing: Sequence[str]) -> NDArray[np.float64]:
    out = np.empty(len(uniques), dtype=np.float64)
    for i, v in enumerate(uniques):
        s = str(v).strip()
        if s in missing or v in missing:
            out[i] = np.nan
            continue
        try:
            out[i] = float(s)
        except ValueError:
            raise DataError(
                f"{source}, column {name!r}: value {str(v)!r} is not a number but the column is numeric;"
                " fix the value, declare it as a missing marker, or make the column categorical"
            ) from None
    return out


def _leaf_codes(h: Hierarchy, uniques: NDArray[np.object_], numeric: bool) -> NDArray[np.int64]:
    """Leaf code of each distinct value (−1 when the hierarchy lacks it); numeric values also match by value."""
    codes = np.array([-1 if h.leaf_code(str(v)) is None else h.leaf_code(str(v)) for v in uniques], dtype=np.int64)
    if numeric and (codes < 0).any():
        codes = _match_numeric_leaves(h, uniques, codes)
    return codes


def _require_covered(source: str, name: str, h: Hierarchy, uniques: NDArray[np.object_], codes: NDArray[np.int64],
                     hint: str) -> None:
    """HierarchyError listing up to five values the hierarchy does not cover, and how many there are."""
    unmatched = [str(uniques[i]) for i in np.flatnonzero(codes < 0)]
    if unmatched:
        shown = ", ".join(repr(v) for v in unmatched[:5])
        raise HierarchyError(
            f"{source}, column {name!r}: {len(unmatched)} value(s) not in hierarchy {h.source}: {shown};"
            f" add them to the hierarchy{' ' + hint if hint else ''} or fix the data"
        )


def _match_numeric_leaves(h: Hierarchy, uniques: NDArray[np.object_],
                          leaf_of_unique: NDArray[np.int64]) -> NDArray[np.int64]:
    """Match data values to hierarchy leaves by numeric value where the strings differ (``39.0`` ~ ``39``)."""
    by_number: dict[float, int] = {}
    for code, label in enumerate(h.labels[0]):
        try:
            by_number.setdefault(float(str(label)), code)
        except ValueError:
            continue
    out = leaf_of_unique.copy()
    for i in np.flatnonzero(out < 0):
        try:
            out[i] = by_number.get(float(str(uniques[i]).strip()), -1)
        except ValueError:
            continue
    return out


def _date_numbers(labels: NDArray[np.object_], missing: Sequence[str]) -> NDArray[np.float64]:
    """Days since 1970-01-01 of date labels (NaN for missing markers and unparseable labels)."""
    text = pd.Series([None if str(v) in missing else str(v) for v in labels], dtype=object)
    parsed = pd.to_datetime(text, errors="coerce", format="mixed")
    days = (parsed - pd.Timestamp("1970-01-01")) / pd.Timedelta(days=1)
    out: NDArray[np.float64] = days.to_numpy(dtype=np.float64, na_value=np.nan)
    return out


def _leaf_ranks(source: str, name: str, h: Hierarchy, order: Sequence[str] | None, missing: Sequence[str],
                present: NDArray[np.int64]) -> NDArray[np.float64]:
    """Rank of each leaf of an ordinal attribute: its position in ``order``, else in the hierarchy's leaf order.

    Missing markers (and, with an ``order``, leaves absent from the data that
    it does not list) get NaN; a value of the data that the ``order`` does not
    list is an error.
    """
    labels = [str(v) for v in h.labels[0]]
    out = np.full(h.n_leaves, np.nan)
    if order:
        pos = {str(v): i for i, v in enumerate(order)}
        for code in np.unique(present):
            if labels[code] not in pos and labels[code] not in missing:
                raise ConfigError(f"{source}, column {name!r}: value {labels[code]!r} is not in the declared"
                                  " `order`; list every value")
        for code, label in enumerate(labels):
            if label in pos and label not in missing:
                out[code] = pos[label]
        return out
    kept = [code for code, label in enumerate(labels) if label not in missing]
    out[kept] = np.arange(len(kept))
    return out


#: Types whose quasi-identifiers the partitioning methods compare by value and release as a range.
BY_VALUE_TYPES = (AttributeType.NUMERIC, AttributeType.DATE, AttributeType.ORDINAL)


def _delimiter_hint(columns: list[str]) -> str:
    """A hint when a file read with the wrong delimiter left one column whose name holds the real one."""
    if len(columns) != 1:
        return ""
    found = [d for d in (";", ",", "\t", "|") if d in columns[0]]
    if not found:
        return ""
    return f" (one column only: the file seems to be {found[0]!r}-separated; set input.delimiter: {found[0]!r})"


def row_values(dataset: Dataset, name: str) -> NDArray[np.float64] | None:
    """Per-record value of a quasi-identifier compared by value, or None when it is not.

    A numeric attribute's number, a date's days since 1970-01-01, an ordinal
    attribute's rank in its order — for attributes of :data:`BY_VALUE_TYPES`
    with such a value on every record; None for other types and when a
    record has none (a missing marker), since such an attribute is then
    compared through its hierarchy.
    """
    enc = dataset.encoded[name]
    if dataset.specs[name].type not in BY_VALUE_TYPES or enc.numbers is None:
        return None
    values = np.asarray(enc.numbers, dtype=np.float64)[enc.row_codes()]
    return values if np.isfinite(values).all() else None


def _leaf_numbers(h: Hierarchy, missing: Sequence[str]) -> NDArray[np.float64]:
    out = np.full(h.n_leaves, np.nan)
    for code, label in enumerate(h.labels[0]):
        if str(label) in missing:
            continue
        try:
            out[code] = float(str(label))
        except ValueError:
            continue
    return out
