"""``Dataset``: a table with attribute roles and types, dictionary-encoded once.

A :class:`Dataset` wraps a pandas DataFrame or an Arrow table whose
categorical values are kept as the strings that were read (``007`` stays
``007``).  Each column gets an
:class:`AttributeSpec`: a *role* (identifier, quasi-identifier, sensitive,
insensitive, target, weight) and a *type* (numeric, ordinal, categorical, date).
Columns nobody named are insensitive and pass through a release untouched;
identifiers are dropped from every release.  A survey's sampling weight
(role ``weight``, at most one column) is released untouched too, and read as
numbers by :meth:`Dataset.weights` for the survey risk measures.

A hierarchy may be given as a :class:`~anonset.hierarchy.Hierarchy`, as a
hierarchy file path, or in the builder form of a configuration file
(``{"builder": "intervals", "widths": [5, 10, 20]}``); the dataset builds the
latter from the column's distinct values, read from the rows in memory or from
the value counts of a table profiled inside a database
(:func:`anonset.hierarchy.build_hierarchy` on either path, so both give the
same hierarchy).

Quasi-identifiers and sensitive attributes are encoded once into integer codes
of the narrowest type each column's domain allows (:class:`EncodedColumn`: a
column of at most 127 values takes one byte per record).  A quasi-identifier with a hierarchy is encoded into
the hierarchy's leaf codes, so generalization is a table lookup.  A
categorical quasi-identifier without a hierarchy gets the flat one (value ->
``*``); a numeric one without a hierarchy keeps its numbers for the methods
that cut intervals (full-domain search needs a hierarchy and says so).

Encoding works on the distinct values (:mod:`anonset.core.distinct`): an
Arrow table (:func:`anonset.io.tables.read_arrow_table`) is dictionary-encoded
by Arrow, so its records never become Python strings, and each distinct value
is matched to its hierarchy leaf, number or rank with vectorized lookups.  The
pandas frame of an Arrow table (:attr:`Dataset.table`) is built only when
something asks for it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd
import pyarrow as pa

from anonset.core.distinct import (
    Distinct,
    arrow_text,
    dictionary_encode,
    distinct_of_arrow,
    distinct_of_dictionary,
    distinct_of_objects,
    is_arrow_text,
    is_arrow_text_dictionary,
    key_positions,
    parse_floats,
    plain_floats,
)
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
           "attribute_spec", "code_dtype", "row_values"]


def code_dtype(n_categories: int) -> type[np.signedinteger[Any]]:
    """The narrowest signed integer type that holds the codes ``0 .. n_categories - 1`` (and ``-1``)."""
    for kind in (np.int8, np.int16):
        if n_categories <= np.iinfo(kind).max:
            return kind
    return np.int32


@dataclass(frozen=True, eq=False)
class EncodedColumn:
    """A column dictionary-encoded into codes of the narrowest signed integer type they fit (:func:`code_dtype`).

    ``categories[c]`` is the label of code ``c``; ``numbers[c]`` its numeric
    value for numeric and date columns (days since 1970-01-01 for dates) and
    its rank in the order for ordinal quasi-identifiers, NaN for a missing marker.  For a quasi-identifier with a
    hierarchy the codes
    are the hierarchy's leaf codes.
    """

    name: str
    codes: NDArray[np.signedinteger[Any]] | None
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

    def row_codes(self) -> NDArray[np.signedinteger[Any]]:
        """Per-row codes (int8, int16 or int32: :func:`code_dtype`).

        A DataError when the rows are not in memory (a table in a database).
        """
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


class Dataset:
    """A table plus attribute specs, with quasi-identifiers and sensitive attributes encoded.

    Parameters
    ----------
    table : pandas.DataFrame, pyarrow.Table or None
        The records.  Categorical values should be strings exactly as written
        (an Arrow table of text columns, as
        :func:`anonset.io.tables.read_arrow_table` reads a file, is encoded
        without turning its records into Python strings).
        ``None`` for a table that stays in a database: give ``profile`` instead.
    attributes : mapping of str to AttributeSpec or dict
        Specs by column name; unnamed columns are insensitive.
    source : str
        Where the table came from, for error messages.
    profile : TableProfile, optional
        Columns, row count and value counts of a table that is not in memory
        (see :meth:`from_profile`); its encoded columns have no per-row codes.
    schema : pyarrow.Schema, optional
        The schema of an Arrow ``table`` as its source gives it, when some of
        its text columns were read dictionary-encoded (to save memory): those
        columns are text to the dataset, as in the source (default: the
        table's own schema).

    Attributes
    ----------
    arrow : pyarrow.Table or None
        The records of an Arrow table given as ``table`` (None for a
        DataFrame or a profile).  The text columns the dataset encoded are
        held dictionary-encoded: the same values in less memory.
    encode_seconds : float
        Wall time this dataset took to build: resolving and building the
        hierarchies and encoding the columns.
    """

    def __init__(self, table: pd.DataFrame | pa.Table | None,
                 attributes: Mapping[str, AttributeSpec | Mapping[str, Any]], source: str = "<DataFrame>",
                 profile: TableProfile | None = None, *, schema: pa.Schema | None = None) -> None:
        started = time.perf_counter()
        if (table is None) == (profile is None):
            raise ValueError("give exactly one of table and profile")
        self.arrow: pa.Table | None = table if isinstance(table, pa.Table) else None
        self._schema: pa.Schema | None = None if self.arrow is None else schema or self.arrow.schema
        self._frame: pd.DataFrame | None = table if isinstance(table, pd.DataFrame) else None
        self.attributes = attributes
        self.source = source
        self.profile = profile
        #: Derived facts (metric cost tables and the like), keyed by their producer.
        self.cache: dict[object, Any] = {}
        self._hierarchies: dict[str, Hierarchy] = {}
        self._distinct: dict[str, Distinct] = {}
        self._mapping: dict[str, NDArray[np.int64]] = {}
        self._value_codes: dict[str, dict[str, int]] = {}
        self._qi_matrix: NDArray[np.int32] | None = None
        columns = list(self.columns)
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
        self.specs: dict[str, AttributeSpec] = specs
        self.quasi: tuple[str, ...] = tuple(c for c in columns if specs[c].role is Role.QUASI)
        self.sensitive: tuple[str, ...] = tuple(c for c in columns if specs[c].role is Role.SENSITIVE)
        weights = [c for c in columns if specs[c].role is Role.WEIGHT]
        if len(weights) > 1:
            raise ConfigError(f"{self.source}: columns {weights[0]!r} and {weights[1]!r} both have role weight; a table"
                              " has one sampling weight: give the other role insensitive")
        #: The column holding the sampling weight (role ``weight``), or None.
        self.weight: str | None = weights[0] if weights else None
        self._weights: NDArray[np.float64] | None = None
        self._refuse_compound((*self.quasi, *self.sensitive))
        self.encoded: dict[str, EncodedColumn] = {}
        self._text: dict[str, pa.ChunkedArray] = self._dictionary_encoded((*self.quasi, *self.sensitive))
        for name in self.quasi:
            self.encoded[name] = self._encode_quasi(name)
        for name in self.sensitive:
            self.encoded[name] = self._encode_plain(name)
        self.encode_seconds: float = time.perf_counter() - started

    def __repr__(self) -> str:
        return (f"Dataset(source={self.source!r}, rows={self.n_rows}, quasi={self.quasi!r},"
                f" sensitive={self.sensitive!r})")

    # ------------------------------------------------------------------ accessors
    @classmethod
    def from_profile(cls, profile: TableProfile, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]],
                     source: str) -> Dataset:
        """A dataset of a table that is not in memory, from its value counts."""
        return cls(None, attributes, source=source, profile=profile)

    @property
    def table(self) -> pd.DataFrame | None:
        """The records as a DataFrame (None for a table in a database).

        For an Arrow table this is the frame :func:`anonset.io.tables.read_table`
        gives (text as Python ``str``), built the first time it is asked for.
        """
        if self._frame is None and self.arrow is not None:
            self._frame = self._as_given(self.arrow).to_pandas()
        return self._frame

    def _as_given(self, table: pa.Table) -> pa.Table:
        """Columns of :attr:`arrow` with the types of the table given (text the dataset encoded, decoded)."""
        assert self._schema is not None
        given = pa.schema([self._schema.field(name) for name in table.column_names], metadata=self._schema.metadata)
        return table.cast(given)

    @property
    def columns(self) -> tuple[str, ...]:
        """Column names, in table order."""
        if self.arrow is not None:
            return tuple(str(c) for c in self.arrow.column_names)
        if self._frame is not None:
            return tuple(str(c) for c in self._frame.columns)
        return tuple(str(c) for c in cast(TableProfile, self.profile).columns)

    def column(self, name: str) -> pd.Series:
        """One column as :attr:`table` holds it, without building the whole frame of an Arrow table."""
        if self._frame is None and self.arrow is not None:
            return self._as_given(self.arrow.select([name])).to_pandas()[name]
        frame = self.table
        if frame is None:
            raise DataError(f"column {name!r}: the rows of this dataset live in a database and are not in memory")
        return frame[name]

    @property
    def n_rows(self) -> int:
        """Number of records."""
        if self.arrow is not None:
            return int(self.arrow.num_rows)
        if self._frame is not None:
            return len(self._frame)
        return cast(TableProfile, self.profile).n_rows

    @property
    def in_memory(self) -> bool:
        """True when the rows are in memory (a DataFrame or an Arrow table), False for a profiled database table."""
        return self.profile is None

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

    @property
    def min_levels(self) -> tuple[int, ...]:
        """Each quasi-identifier's ``min_level`` (its minimum generalization), in quasi-identifier order.

        Raises
        ------
        ConfigError
            When a ``min_level`` is above the top of its hierarchy.
        """
        out = tuple(self.specs[q].min_level for q in self.quasi)
        for q, level in zip(self.quasi, out, strict=True):
            h = self.hierarchy(q)
            if h is not None and level > h.max_level:
                raise ConfigError(f"{q}: min_level {level} is not a level of its hierarchy (0 to {h.max_level});"
                                  " give a level in that range")
        return out

    def qi_codes(self) -> NDArray[np.int32]:
        """(n_rows, n_quasi) int32 matrix of leaf codes, cached."""
        if self._qi_matrix is None:
            if self.quasi:
                self._qi_matrix = np.column_stack([self.encoded[q].row_codes() for q in self.quasi]).astype(np.int32)
            else:
                self._qi_matrix = np.zeros((self.n_rows, 0), dtype=np.int32)
        return self._qi_matrix

    def weights(self) -> NDArray[np.float64] | None:
        """Each record's sampling weight (the ``weight`` column as numbers), or None without one; cached.

        Raises
        ------
        DataError
            A weight that is missing, not a number, not finite or not
            positive; the message names the column, the record and the value.
        """
        if self.weight is None:
            return None
        if self._weights is None:
            name = self.weight
            column = self.column(name)
            numbers = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            bad = np.flatnonzero(~(np.isfinite(numbers) & (numbers > 0)))
            if len(bad):
                first = int(bad[0])
                raise DataError(f"{self.source}, column {name!r} (role weight): record {first + 1} has"
                                f" {column.iloc[first]!r}; a sampling weight is a positive number (the people a"
                                f" record stands for): fix the {len(bad)} such value(s) or give the column another"
                                " role")
            self._weights = numbers
        return self._weights

    def value_codes(self, name: str) -> dict[str, int]:
        """Code of every distinct raw value of an encoded column, as the value is written in the source.

        Missing values (NaN / NULL) are written as the first declared missing
        marker, which is how a SQL engine must present them too.
        """
        if name not in self._value_codes:
            labels = self._distinct[name].strings.tolist()
            self._value_codes[name] = dict(zip(labels, self._mapping[name].tolist(), strict=True))
        return self._value_codes[name]

    # ------------------------------------------------------------------ encoding
    def _raw(self, name: str) -> NDArray[np.object_]:
        """A DataFrame column as Python objects; NaN / None / NA become the first declared missing marker."""
        assert self._frame is not None
        col = self._frame[name]
        marker = self._marker(name)
        missing = col.isna().to_numpy()
        values: NDArray[np.object_] = col.to_numpy(dtype=object)
        if missing.any() or col.dtype != object:
            values = np.where(missing, marker, col.astype(str).to_numpy(dtype=object)).astype(object)
        return values

    def _marker(self, name: str) -> str:
        """What a missing value (NaN, None, null) reads as: the first declared missing marker, else ``""``."""
        return self.specs[name].missing[0] if self.specs[name].missing else ""

    def _distinct_of(self, name: str) -> Distinct:
        """Distinct values (in order of first appearance), their counts and each row's index into them."""
        if self.arrow is not None and name in self._text:
            encoded = self._text.pop(name)
            found = distinct_of_dictionary(encoded, self._marker(name))
            assert self._schema is not None
            if is_arrow_text(self._schema.field(name).type):  # held encoded from now on: the same values, less memory
                field = self.arrow.schema.field(name)
                self.arrow = self.arrow.set_column(self.arrow.schema.get_field_index(name),
                                                   pa.field(name, encoded.type, field.nullable, field.metadata),
                                                   encoded)
        elif self.arrow is not None:
            found = distinct_of_objects(_objects(self.column(name), self._marker(name)))
        elif self._frame is not None:
            text = arrow_text(self._frame[name])
            found = (distinct_of_objects(self._raw(name)) if text is None
                     else distinct_of_arrow(text, self._marker(name)))
        else:
            assert self.profile is not None
            if name not in self.profile.values:
                raise DataError(f"{self.source}: no value counts for column {name!r}; profile every quasi-identifier"
                                " and sensitive column")
            values, counts = self.profile.values[name]
            uniques = np.asarray([str(v) for v in values], dtype=object)
            found = Distinct(uniques, np.asarray(counts, dtype=np.int64), None)
        self._distinct[name] = found
        return found

    def _dictionary_encoded(self, names: Sequence[str]) -> dict[str, pa.ChunkedArray]:
        """The Arrow text columns among ``names``, dictionary-encoded on several threads (Arrow frees the GIL)."""
        if self.arrow is None:
            return {}
        arrow = self.arrow
        text = [n for n in names if is_arrow_text(arrow.schema.field(n).type)
                or is_arrow_text_dictionary(arrow.schema.field(n).type)]
        threads = min(len(text), len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
        if threads <= 1:
            return {name: dictionary_encode(arrow.column(name)) for name in text}
        with ThreadPoolExecutor(threads) as pool:
            return dict(zip(text, pool.map(lambda name: dictionary_encode(arrow.column(name)), text), strict=True))

    def _column(self, name: str, mapping: NDArray[np.int64], found: Distinct, categories: NDArray[np.object_],
                numbers: NDArray[np.float64] | None) -> EncodedColumn:
        """An EncodedColumn whose code for distinct value i is ``mapping[i]``."""
        counts = np.bincount(mapping, weights=found.counts, minlength=len(categories)).astype(np.int64)
        codes = None if found.inverse is None else mapping.astype(code_dtype(len(categories)))[found.inverse]
        self._mapping[name] = mapping
        self._distinct[name] = Distinct(found.values, found.counts, None)  # the records' indices are no longer needed
        return EncodedColumn(name, codes, categories, numbers, counts)

    def _missing_check(self, name: str, found: Distinct) -> list[str]:
        spec = self.specs[name]
        present: list[str] = found.strings[found.among(spec.missing)].tolist()
        if present and spec.missing_policy == "error":
            raise DataError(
                f"{self.source}, column {name!r}: missing value {present[0]!r} found and the config says"
                " `missing: error`; fill the value or let missing values form their own group"
            )
        return present

    def _given_hierarchy(self, name: str, found: Distinct) -> Hierarchy | None:
        """The spec's hierarchy: as given, read from its file, or built from the distinct values.

        A builder sees the distinct values without the missing markers; the
        spec is updated to hold the hierarchy.
        """
        spec = self.specs[name]
        given = spec.hierarchy
        if given is None or isinstance(given, Hierarchy):
            return given
        if isinstance(given, Mapping):
            values = found.strings[~found.among(spec.missing)].tolist()
            h = build_hierarchy(name, given, values, order=spec.order)
        else:
            h = read_hierarchy(os.fspath(given), name=name)
        self.specs[name] = replace(spec, hierarchy=h)
        return h

    def _refuse_compound(self, names: Sequence[str]) -> None:
        """A DataError for a quasi-identifier or sensitive column whose values are not single values.

        Lists, structs and maps (Parquet's nested types), and bytes, cannot be
        compared, generalized or counted as values.
        """
        for name in names:
            kind = self._schema.field(name).type if self._schema is not None else None
            if kind is None and self._frame is not None:
                first = self._frame[name].dropna().head(1).tolist()
                compound = bool(first) and isinstance(first[0], (list, tuple, dict, set, np.ndarray, bytes))
                shown = type(first[0]).__name__ if compound else ""
            else:
                compound = kind is not None and (pa.types.is_nested(kind) or pa.types.is_binary(kind)
                                                 or pa.types.is_large_binary(kind)
                                                 or pa.types.is_fixed_size_binary(kind))
                shown = str(kind)
            if compound:
                role = self.specs[name].role.value
                raise DataError(f"{self.source}, column {name!r}: its values are {shown}, not single values, so it"
                                f" cannot be {'a quasi-identifier' if role == 'quasi' else 'sensitive'}; declare it"
                                " role: identifier (dropped) or insensitive (released as it is), or flatten it into"
                                " columns of single values")

    def _number_kind(self, name: str) -> str | None:
        """``float`` or ``int`` when the column was given as numbers (a DataFrame's or an Arrow table's), else None."""
        if self._frame is not None:
            dtype = self._frame[name].dtype
            if pd.api.types.is_bool_dtype(dtype):
                return None
            if pd.api.types.is_float_dtype(dtype):
                return "float"
            return "int" if pd.api.types.is_integer_dtype(dtype) else None
        if self._schema is not None:
            kind = self._schema.field(name).type
            if pa.types.is_floating(kind):
                return "float"
            return "int" if pa.types.is_integer(kind) else None
        return None

    def _codes_as_numbers(self, name: str, found: Distinct) -> bool:
        """Whether a code column (categorical or ordinal) arrived as numbers that its hierarchy can still match.

        A ZIP code that ``pandas.read_csv`` read as float (``1903.0``) or as an
        integer that lost its leading zero (``1903`` for ``01903``) would be
        generalized as that text, so it is refused, unless its values are
        whole numbers that a given hierarchy lists (matched by value, released
        as the hierarchy writes them).  True when that exception applies.
        """
        spec = self.specs[name]
        kind = self._number_kind(name)
        if kind is None or spec.type not in (AttributeType.CATEGORICAL, AttributeType.ORDINAL):
            return False
        given = spec.hierarchy
        builder = str(given.get("builder", "")) if isinstance(given, Mapping) else None
        numbers, ok = parse_floats(found.text)
        valid = ok & ~np.isnan(numbers)
        whole = bool(np.all(np.mod(numbers[valid], 1) == 0))
        shown = found.strings[valid][:1].tolist() or found.strings[:1].tolist()
        if kind == "float" and (builder is not None or given is None or not whole):
            self._refuse_numbers(name, kind, shown, builder or "flat")
        if kind == "int" and builder == "masking" and valid.any():
            digits = np.char.str_len(np.abs(numbers[valid]).astype(np.int64).astype(str))
            if digits.min() != digits.max():
                self._refuse_numbers(name, kind, shown, builder)
        return kind == "float"

    def _refuse_numbers(self, name: str, kind: str, shown: list[str], builder: str) -> None:
        example = f" (e.g. {shown[0]})" if shown else ""
        lost = ("written as a decimal number" if kind == "float"
                else "read as an integer, so leading zeros are lost")
        raise DataError(
            f"{self.source}, column {name!r}: the values are {lost}{example}, but the column is a code generalized"
            f" as text ({builder} hierarchy); read it as text (pandas.read_csv(..., dtype=str), or"
            " anonset.read_table) or, for a quantity, declare it type: numeric with an intervals hierarchy")

    def _encode_quasi(self, name: str) -> EncodedColumn:
        spec = self.specs[name]
        found = self._distinct_of(name)
        missing_present = self._missing_check(name, found)
        by_number = self._codes_as_numbers(name, found)
        h = self._given_hierarchy(name, found)
        if h is None and spec.type is AttributeType.NUMERIC:
            numbers = _parse_numbers(self.source, name, found, spec.missing)
            if np.isnan(numbers).any():
                raise DataError(
                    f"{self.source}, column {name!r}: numeric quasi-identifier has missing values"
                    f" ({missing_present[0]!r}) and no hierarchy to place them; fill them or give a hierarchy"
                    " that lists the marker"
                )
            order = np.argsort(numbers, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            return self._column(name, rank, found, found.values[order], numbers[order])
        if h is None:
            if spec.order:
                unlisted = found.strings[~found.among([*map(str, spec.order), *spec.missing])]
                if len(unlisted):
                    raise ConfigError(f"{self.source}, column {name!r}: value {unlisted[0]!r} is not in the declared"
                                      " `order`; list every value")
            values = list(spec.order) if spec.order else sorted(found.strings.tolist())
            h = Hierarchy.flat(name, values)
        numeric = spec.type is AttributeType.NUMERIC or by_number
        leaf_of_unique = _leaf_codes(h, found, numeric)
        extra = [v for v in found.strings[leaf_of_unique < 0].tolist() if v in missing_present]
        if extra:
            h = h.with_extra_leaves(extra)
            leaf_of_unique = _leaf_codes(h, found, numeric)
        kind = self._number_kind(name) if spec.type is not AttributeType.NUMERIC else None
        if kind is not None and (leaf_of_unique < 0).any():
            self._refuse_numbers(name, kind, found.strings[leaf_of_unique < 0][:1].tolist(), "given")
        _require_covered(self.source, name, h, found, leaf_of_unique, "(one line each)")
        self._hierarchies[name] = h
        leaf_numbers = None
        if spec.type is AttributeType.NUMERIC:
            leaf_numbers = _leaf_numbers(h, spec.missing)
        elif spec.type is AttributeType.DATE:
            leaf_numbers = _date_numbers(h.labels[0], spec.missing, h.date_format)
        elif spec.type is AttributeType.ORDINAL:
            leaf_numbers = _leaf_ranks(self.source, name, h, spec.order, spec.missing, leaf_of_unique)
        return self._column(name, leaf_of_unique, found, h.labels[0], leaf_numbers)

    def _encode_plain(self, name: str) -> EncodedColumn:
        """Encode a sensitive attribute.

        With a hierarchy the codes are the hierarchy's leaf codes (what
        hierarchical t-closeness needs), and the leaf order is the value order;
        otherwise values are ranked numerically (numeric), by ``order``
        (ordinal), or as sorted text.
        """
        spec = self.specs[name]
        found = self._distinct_of(name)
        self._missing_check(name, found)
        numeric = spec.type is AttributeType.NUMERIC
        h = self._given_hierarchy(name, found)
        if h is not None:
            leaf = _leaf_codes(h, found, numeric)
            _require_covered(self.source, name, h, found, leaf, "")
            self._hierarchies[name] = h
            numbers = _leaf_numbers(h, spec.missing) if numeric else None
            return self._column(name, leaf, found, h.labels[0], numbers)
        numbers = None
        if numeric:
            numbers = _parse_numbers(self.source, name, found, spec.missing)
            order = np.argsort(numbers, kind="stable")
        elif spec.order:
            position = key_positions(found.text, spec.order)
            unknown = found.strings[position < 0]
            if len(unknown):
                raise ConfigError(
                    f"{self.source}, column {name!r}: value {unknown[0]!r} is not in the declared `order`;"
                    " list every value"
                )
            order = np.argsort(position, kind="stable")
        else:
            order = np.argsort(found.values.astype(str), kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return self._column(name, rank, found, found.values[order], None if numbers is None else numbers[order])


def _objects(column: pd.Series, marker: str) -> NDArray[np.object_]:
    """A column that is not text as Python objects, as :meth:`Dataset._raw` reads a DataFrame column."""
    missing = column.isna().to_numpy()
    if not missing.any() and column.dtype == object:
        return cast("NDArray[np.object_]", column.to_numpy(dtype=object))
    return np.where(missing, marker, column.astype(str).to_numpy(dtype=object)).astype(object)


def _parse_numbers(source: str, name: str, found: Distinct, missing: Sequence[str]) -> NDArray[np.float64]:
    """The number of each distinct value of a numeric column; NaN for a missing marker.

    Plain decimals are read in one vectorized pass; any other value is read
    by Python (blanks stripped), and one that is not a number is an error.
    """
    out, plain = plain_floats(found.text)
    out[plain & found.among(missing)] = np.nan
    for i in np.flatnonzero(~plain):  # markers, blanks, inf, text: few
        v = found.values[i]
        s = str(v).strip()
        if s in missing or v in missing:
            continue
        try:
            out[i] = float(s)
        except ValueError:
            raise DataError(
                f"{source}, column {name!r}: value {str(v)!r} is not a number but the column is numeric;"
                " fix the value, declare it as a missing marker, or make the column categorical"
            ) from None
    return out


def _leaf_codes(h: Hierarchy, found: Distinct, numeric: bool) -> NDArray[np.int64]:
    """Leaf code of each distinct value (−1 when the hierarchy lacks it); numeric values also match by value."""
    codes = key_positions(found.text, h.labels[0])
    if numeric and (codes < 0).any():
        codes = _match_numeric_leaves(h, found, codes)
    return codes


def _require_covered(source: str, name: str, h: Hierarchy, found: Distinct, codes: NDArray[np.int64],
                     hint: str) -> None:
    """HierarchyError listing up to five values the hierarchy does not cover, and how many there are."""
    unmatched = found.strings[codes < 0].tolist()
    if unmatched:
        shown = ", ".join(repr(v) for v in unmatched[:5])
        raise HierarchyError(
            f"{source}, column {name!r}: {len(unmatched)} value(s) not in hierarchy {h.source}: {shown};"
            f" add them to the hierarchy{' ' + hint if hint else ''} or fix the data"
        )


def _match_numeric_leaves(h: Hierarchy, found: Distinct, leaf_of_unique: NDArray[np.int64]) -> NDArray[np.int64]:
    """Match data values to hierarchy leaves by numeric value where the strings differ (``39.0`` ~ ``39``).

    A number written by several leaves matches the first of them; NaN matches nothing.
    """
    leaf_numbers, leaf_ok = parse_floats(_text(h.labels[0]))
    usable = np.flatnonzero(leaf_ok & ~np.isnan(leaf_numbers))
    by_number = usable[np.argsort(leaf_numbers[usable], kind="stable")]
    numbers = leaf_numbers[by_number]
    out = leaf_of_unique.copy()
    unmatched = np.flatnonzero(out < 0)
    if not len(numbers) or not len(unmatched):
        return out
    values, ok = parse_floats(found.text.take(pa.array(unmatched)))
    at = np.minimum(np.searchsorted(numbers, values), len(numbers) - 1)
    hit = ok & ~np.isnan(values) & (numbers[at] == values)
    out[unmatched[hit]] = by_number[at[hit]]
    return out


def _text(labels: NDArray[np.object_] | Sequence[str]) -> pa.StringArray:
    """Labels as an Arrow text array (``str`` of each)."""
    return pa.array(list(map(str, labels)), type=pa.string())


def _date_numbers(labels: NDArray[np.object_], missing: Sequence[str],
                  date_format: str | None = None) -> NDArray[np.float64]:
    """Days since 1970-01-01 of date labels (NaN for missing markers and unparseable labels).

    ``date_format`` is the hierarchy's (the ``format`` of the ``dates``
    builder that made it): day-first dates such as ``03/04/2020`` are read
    with it, not guessed, however often the attribute is encoded.
    """
    text = pd.Series(list(map(str, labels)), dtype=object)
    text[text.isin(list(missing))] = None
    parsed = pd.to_datetime(text, errors="coerce", format=date_format or "mixed")
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
    labels = _text(h.labels[0])
    listed = key_positions(labels, order or ())
    kept = ~_among(labels, missing)
    out = np.full(h.n_leaves, np.nan)
    if order:
        seen = np.unique(present)
        unlisted = seen[(listed[seen] < 0) & kept[seen]]
        if len(unlisted):
            raise ConfigError(f"{source}, column {name!r}: value {labels[int(unlisted[0])].as_py()!r} is not in the"
                              " declared `order`; list every value")
        ranked = (listed >= 0) & kept
        out[ranked] = listed[ranked]
        return out
    out[kept] = np.arange(int(kept.sum()))
    return out


def _among(text: pa.StringArray, keys: Sequence[str]) -> NDArray[np.bool_]:
    """Whether each value is one of ``keys``."""
    return key_positions(text, keys) >= 0


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
    """The number of each leaf label; NaN for a missing marker and for a label that is not a number."""
    labels = _text(h.labels[0])
    out, _ = parse_floats(labels)
    out[_among(labels, missing)] = np.nan
    return out
