"""``Release``: the anonymized table with its partition, metrics and provenance, immutable.

A :class:`Release` carries typed facts of the method that produced it and its
provenance (:mod:`anonset.release.facts`); :meth:`Release.summary` is the JSON
``anonset anonymize --summary`` writes.  Metrics import nothing from here;
the anonymizer computes metric values and hands them to the release.
:func:`render_full_domain` turns a full-domain node
into the released table: quasi-identifiers replaced by their generalized
labels (``30-39``, ``Europe``, ``4791*``), suppressed records' quasi-identifiers
replaced by ``*`` (or the records dropped on request), identifiers removed,
every other column passed through untouched.

A release of a table that lives in a database is written inside that database
(through its sink, :class:`anonset.sinks.database.DatabaseSink`); its :class:`Release` then
holds no records (``table`` is ``None``) and says where they went
(``location``).  :func:`copy_table_to_file` exports such a table from DuckDB
to a CSV or Parquet file without the records passing through Python.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from anonset.core.dataset import AttributeType, Dataset, Role
from anonset.core.distinct import is_arrow_text, is_arrow_text_dictionary, one_dictionary
from anonset.core.partition import GeneralizedValues, Intervals, Partition
from anonset.errors import DataError
from anonset.recheck.columns import SUPPRESSED
from anonset.release.facts import MethodFacts, Provenance, frozen, thawed
from anonset.release.stages import StageTimes

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.engine.sql.base import SqlBackend, TableName
    from anonset.recheck.verify import VerificationReport

__all__ = [
    "Release",
    "class_labels",
    "copy_table_to_file",
    "render_full_domain",
    "render_partition",
    "table_copier",
]

#: The largest row group a Parquet release is written in (DuckDB's ROW_GROUP_SIZE_BYTES).
ROW_GROUP_BYTES = "16MB"


@dataclass(frozen=True, eq=False)
class Release:
    """An anonymized table and everything needed to judge and reproduce it (immutable).

    Attributes
    ----------
    table : pandas.DataFrame or None
        The released records; ``None`` when the release was written inside a
        database (see ``location``).
    partition : Partition
        Records -> classes and each class's generalized values (without
        ``row_class`` for a release written inside a database).
    method : str
        The method that produced it.
    levels : mapping of str to int, or None
        The full-domain node (generalization level per quasi-identifier).
    metrics : mapping of str to float
        Utility metrics of the release.
    suppressed_rows : int
        Records whose quasi-identifiers were suppressed (or that were dropped).
    verified : bool
        True once the release passed the independent re-check.
    requirements : str
        The privacy requirements in words.
    provenance : Provenance
        Configuration, seed, versions (and the database and table of a
        release written inside a database).
    search : SearchFacts, GroupingFacts, FrontFacts or TransformFacts
        How the method found the release (see :mod:`anonset.release.facts`).
    seconds : float
        Wall time of ``fit`` (or ``transform``): encoding, the method, rendering, metrics and the re-check.
    location : str or None
        Where the records are when they are not only in ``table``: the
        database and output table, or the file they were written to
        (:meth:`written_to`); ``None`` for an in-memory release.
    engine : str
        The engine that computed the class statistics: ``numpy``, ``duckdb``
        or ``postgresql``.
    rows_fetched : int or None
        Result rows that travelled from the database to Python since the
        backend was opened (value counts, class tables, checks); ``None``
        for the numpy engine.
    omitted_metrics : mapping of str to str
        Metrics that were not computed, with the reason (record-level metrics
        of a release written inside a database).
    warnings : tuple of str
        What a custodian must know before handing the release over: a
        release that generalizes everything (and the model that forced it),
        columns passed through unchanged that single out records.
    classes : int or None
        Equivalence classes of the released table (records with identical
        released quasi-identifier values, suppressed records left out), as
        the independent re-check recomputed them; None before a re-check.
    smallest_class : int or None
        Size of the smallest of those classes.
    risk : mapping, optional
        Re-identification risk of the ``input`` and of the ``release`` (the
        classes the re-check found, suppressed records left out; see
        :func:`anonset.risk.report.risk_report` for the keys); None before a re-check.
    stages : StageTimes
        Wall time per stage (:class:`~anonset.release.stages.StageTimes`):
        what ``fit`` ran (encode, search, release, metrics, verify), and a
        command adds reading and writing.
    withheld : tuple of str
        The models the suppressed records would break as one group, when
        their sensitive values were withheld (released as ``*``) for that
        reason; empty when they were released (see
        :mod:`anonset.recheck.suppressed`).
    models : tuple of str
        Each privacy model of ``requirements`` and the suppression budget, as described.
    recheck : VerificationReport, optional
        What the independent re-check of ``table`` found (a report of the
        release made in the same process reads it instead of re-checking
        again); not part of the summary.
    perturbation : mapping
        What the perturbations applied after the method did (empty: none):
        ``treatments``, each with its kind, attributes and parameters, the
        transition matrix or the noise's standard deviation and the values
        changed; ``numbers``, the risk by record linkage and interval
        disclosure and sdcMicro's ``dUtility`` figures of the numbers they
        changed.  The summary's ``perturbation``
        (:mod:`anonset.release.perturbation`).

    In a notebook a release shows itself as its "In short" and its
    guarantees (:meth:`_repr_html_`).

    Mappings and lists given to the constructor are kept as read-only
    mappings and tuples.
    """

    table: pd.DataFrame | None
    partition: Partition
    method: str
    levels: Mapping[str, int] | None
    metrics: Mapping[str, float]
    suppressed_rows: int
    verified: bool
    requirements: str
    provenance: Provenance
    search: MethodFacts
    seconds: float = 0.0
    location: str | None = None
    engine: str = "numpy"
    rows_fetched: int | None = None
    omitted_metrics: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    warnings: tuple[str, ...] = ()
    classes: int | None = None
    smallest_class: int | None = None
    risk: Mapping[str, Any] | None = None
    stages: StageTimes = field(default_factory=StageTimes)
    withheld: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    recheck: VerificationReport | None = field(default=None, repr=False)
    perturbation: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.levels is not None:
            object.__setattr__(self, "levels", MappingProxyType(dict(self.levels)))
        object.__setattr__(self, "metrics", MappingProxyType(dict(self.metrics)))
        object.__setattr__(self, "omitted_metrics", MappingProxyType(dict(self.omitted_metrics)))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        object.__setattr__(self, "withheld", tuple(self.withheld))
        object.__setattr__(self, "models", tuple(self.models))
        object.__setattr__(self, "perturbation", frozen(self.perturbation))

    def __repr__(self) -> str:
        levels = "" if self.levels is None else f", levels={dict(self.levels)}"
        return (f"Release(method={self.method!r}, records={self.partition.n_rows:,}, classes={self.n_classes:,},"
                f" smallest_class={self.min_class_size:,}, suppressed={self.suppressed_rows:,}{levels},"
                f" verified={self.verified}, warnings={len(self.warnings)})")

    def _repr_html_(self) -> str:
        """The release in a notebook: what was released and how safe, the guarantees, the warnings (escaped)."""
        from anonset.release.notebook import release_html

        return release_html(self)

    @property
    def n_classes(self) -> int:
        """Equivalence classes of the released table.

        Those the re-check recomputed from the released values when there was
        one (clusters of a partitioning method that received the same
        released values are one class), else the method's own.
        """
        if self.classes is not None:
            return self.classes
        return self.partition.n_classes

    @property
    def min_class_size(self) -> int:
        """Size of the smallest released class (0 when every record is suppressed)."""
        if self.smallest_class is not None:
            return self.smallest_class
        return int(self.partition.sizes.min()) if self.partition.n_classes else 0

    def written_to(self, location: str | None) -> Release:
        """This release with its records written to ``location`` (a file, ``standard output``, or None: nowhere).

        A release written inside a run's own scratch database and copied to
        a file from there names the file; the scratch table is no longer in
        its provenance.
        """
        return replace(self, location=location, provenance=replace(self.provenance, output_table=None))

    def timed(self, **seconds: float) -> Release:
        """This release with the given stage times set (a command adds ``load``, ``encode`` and ``write``)."""
        return replace(self, stages=self.stages.with_times(**seconds))

    def summary(self, *, seconds: float | None = None, config: str | None = None) -> dict[str, Any]:
        """A JSON-ready summary: what ``anonset anonymize --summary`` writes.

        Besides the release's facts it names the ``engine`` and the
        ``output`` (``location``); ``rows_fetched`` appears for the SQL
        engines and ``metrics_omitted`` ({metric: reason}) when a metric was
        left out.  A research-value search's ``success_list`` (with
        ``frequency_sets``) and a trade-off search's ``front`` (with
        ``nodes_evaluated``) come last, at the top level, not in ``search``.
        ``stage_seconds`` gives the seconds of each stage (they sum to at most
        ``seconds``).

        Parameters
        ----------
        seconds : float, optional
            The wall time to report (a command reports its whole run);
            default the release's own ``seconds``.
        config : str, optional
            The configuration file of the run, recorded in the provenance.
        """
        out: dict[str, Any] = {
            "method": self.method,
            "levels": None if self.levels is None else dict(self.levels),
            "classes": self.n_classes,
            "min_class_size": self.min_class_size,
            "suppressed_rows": self.suppressed_rows,
            "rows": int(self.partition.n_rows),
            "metrics": {k: _json_number(v) for k, v in self.metrics.items()},
            "verified": self.verified,
            "requirements": self.requirements,
            "seconds": round(self.seconds if seconds is None else seconds, 4),
            "stage_seconds": self.stages.to_json(),
            "search": self.search.to_json(),
            "provenance": self.provenance.to_json(config),
            "engine": self.engine,
            "output": self.location,
        }
        if self.rows_fetched is not None:
            out["rows_fetched"] = int(self.rows_fetched)
        if self.omitted_metrics:
            out["metrics_omitted"] = dict(self.omitted_metrics)
        if self.risk is not None:
            out["risk"] = dict(self.risk)
        out["sensitive_withheld"] = list(self.withheld)
        out["warnings"] = list(self.warnings)
        if self.perturbation:
            out["perturbation"] = thawed(self.perturbation)
        out.update(self.search.lists_json())
        return out


def _json_number(v: float) -> float | None:
    return None if v is None or not np.isfinite(v) else float(v)


def render_full_domain(dataset: Dataset, levels: tuple[int, ...], suppressed_rows: NDArray[np.bool_],
                       drop_suppressed: bool = False, withhold_sensitive: bool = False) -> pd.DataFrame:
    """The released table of a full-domain node.

    Parameters
    ----------
    dataset : Dataset
        The input.
    levels : tuple of int
        Level per quasi-identifier.
    suppressed_rows : numpy.ndarray
        Boolean per record: suppressed.
    drop_suppressed : bool
        Drop suppressed records instead of writing ``*`` in their quasi-identifiers.
    withhold_sensitive : bool
        Write ``*`` in the sensitive columns of the suppressed records too
        (see :mod:`anonset.recheck.suppressed`).
    """

    def labels(name: str) -> tuple[NDArray[np.integer[Any]], NDArray[np.object_]]:
        level = levels[dataset.quasi.index(name)]
        h = dataset.require_hierarchy(name)
        return h.maps[level][dataset.encoded[name].row_codes()], h.labels[level].astype(object)

    return _assemble(dataset, labels, suppressed_rows, drop_suppressed, withhold_sensitive)


def copy_table_to_file(backend: SqlBackend, table: TableName, path: str | Path, delimiter: str = ",",
                       fmt: str | None = None) -> None:
    """Export a table of a DuckDB database to a CSV or Parquet file with DuckDB's ``COPY``.

    The records go from DuckDB straight to the file; they are written to a
    temporary file that is then put at ``path``
    (:func:`anonset.io.outputs.atomic_write`), so a failure leaves nothing
    there.  See :func:`table_copier` for the format and the parameters.
    """
    from anonset.io.outputs import atomic_write

    atomic_write(path, table_copier(backend, table, path, delimiter, fmt))


def table_copier(backend: SqlBackend, table: TableName, path: str | Path, delimiter: str = ",",
                 fmt: str | None = None) -> Callable[[Path], None]:
    """A writer that copies a DuckDB table into a given file (for :class:`~anonset.io.outputs.StagedOutputs`).

    CSV files get a header row, ``delimiter`` between fields and ``"``
    quoting where needed (DuckDB writes an empty string as ``""``); the
    records come in the table's (unspecified) order.

    Parameters
    ----------
    backend : SqlBackend
        A DuckDB backend (PostgreSQL's ``COPY ... TO`` would write on the server).
    table : str or tuple of str
        The table to export.
    path : str or Path
        Where the file will go (its suffix chooses the format).
    delimiter : str
        CSV field separator (one character).
    fmt : {"csv", "parquet"}, optional
        Format; from the suffix (``.parquet`` / ``.pq`` is Parquet) when omitted.

    Raises
    ------
    DataError
        When the backend is not DuckDB, or the format or delimiter is invalid.
    """
    if backend.dialect != "duckdb":
        raise DataError(f"{backend.description}: only DuckDB can copy a table to a local file; a table in"
                        " PostgreSQL stays in the database")
    target = Path(path)
    kind = fmt or ("parquet" if target.suffix.lower() in (".parquet", ".pq") else "csv")
    if kind == "parquet":
        # row groups of at most ROW_GROUP_BYTES as well as DuckDB's 122,880 records: wide rows (free text) would
        # otherwise make one row group larger than a modest memory_limit lets the writer hold
        options = f"FORMAT parquet, ROW_GROUP_SIZE_BYTES '{ROW_GROUP_BYTES}'"
    elif kind == "csv":
        if len(delimiter) != 1 or delimiter in {'"', "\n", "\r"}:
            raise DataError(f"{target}: delimiter {delimiter!r} must be a single character such as ';' or ','")
        options = f"FORMAT csv, HEADER true, DELIMITER {_sql_string(delimiter)}, QUOTE '\"', ESCAPE '\"'"
    else:
        raise DataError(f"{target}: unknown format {kind!r}; use csv or parquet")
    source = backend.table_ref(table)

    def _copy(tmp: Path) -> None:
        backend.execute(f"COPY {source} TO {_sql_string(str(tmp))} ({options})", (), f"writing {target}")

    return _copy


def _sql_string(text: str) -> str:
    """A SQL string literal (DuckDB's COPY takes its file name and options as literals, not parameters)."""
    return "'" + text.replace("'", "''") + "'"


def render_partition(dataset: Dataset, partition: Partition, drop_suppressed: bool = False,
                     withhold_sensitive: bool = False) -> pd.DataFrame:
    """The released table of any partition (local recoding: each class its own generalized values).

    Numeric intervals are written ``lo-hi`` (a single value as itself; ``[lo, hi]`` when a bound is
    not an integer), hierarchy nodes by their labels; suppressed records get ``*`` in every
    quasi-identifier (or are dropped; with ``withhold_sensitive`` in their sensitive columns too),
    identifiers are removed, other columns pass through.
    """
    if partition.row_class is None:
        raise ValueError("render_partition needs the partition's row -> class map")
    row_class = partition.row_class
    suppressed = row_class < 0

    def labels(name: str) -> tuple[NDArray[np.integer[Any]], NDArray[np.object_]]:
        return np.maximum(row_class, 0), class_labels(dataset, name, partition.values[name])

    return _assemble(dataset, labels, suppressed, drop_suppressed, withhold_sensitive)


#: The released labels of a quasi-identifier: each record's index into an array of labels, and the labels.
QuasiLabels = Callable[[str], tuple["NDArray[np.integer[Any]]", "NDArray[np.object_]"]]


def _assemble(dataset: Dataset, quasi_labels: QuasiLabels, suppressed: NDArray[np.bool_],
              drop_suppressed: bool, withhold_sensitive: bool = False) -> pd.DataFrame:
    """Identifiers removed, quasi-identifiers labelled (``*`` when suppressed), other columns untouched.

    With ``withhold_sensitive`` the sensitive columns of the suppressed
    records read ``*`` too.  The release of a DataFrame holds Python strings.
    The release of an Arrow table keeps what Arrow holds: each
    quasi-identifier is a categorical column (one code per record into its
    labels) and every other text column stays Arrow text, so no record
    becomes a Python string.
    """
    if not dataset.in_memory:
        raise ValueError("rendering a release needs the rows in memory; a database table is rendered in SQL")
    withheld = suppressed if withhold_sensitive and not drop_suppressed and suppressed.any() else None
    columns: dict[str, Any] = {}
    for name in dataset.columns:
        spec = dataset.specs[name]
        if spec.role is Role.IDENTIFIER:
            continue
        if spec.role is Role.QUASI:
            index, labels = quasi_labels(name)
            columns[name] = (_categorical(index, labels, suppressed) if dataset.arrow is not None
                             else _objects(index, labels, suppressed))
        elif withheld is not None and spec.role is Role.SENSITIVE:
            columns[name] = _withheld(dataset, name, withheld)
        elif dataset.arrow is not None and is_arrow_text(dataset.arrow.schema.field(name).type):
            columns[name] = _ARROW_TEXT.__from_arrow__(dataset.arrow.column(name))
        elif dataset.arrow is not None and is_arrow_text_dictionary(dataset.arrow.schema.field(name).type):
            columns[name] = _categorical_of(dataset.arrow.column(name))
        else:
            columns[name] = dataset.column(name).to_numpy()
    table = pd.DataFrame(columns, index=pd.RangeIndex(dataset.n_rows))
    if drop_suppressed:
        table = table.loc[~suppressed]
    return table.reset_index(drop=True)


def _withheld(dataset: Dataset, name: str, rows: NDArray[np.bool_]) -> Any:
    """A sensitive column as given, with ``*`` in ``rows``.

    The column of an Arrow table stays Arrow text (no record becomes a
    Python string); the column of a DataFrame becomes an object column with
    its other values untouched.
    """
    if dataset.arrow is not None:
        column = dataset.arrow.column(name)
        if not is_arrow_text(column.type):
            column = column.cast(pa.large_string() if pa.types.is_large_string(column.type) else pa.string())
        marked = pc.if_else(pa.chunked_array([pa.array(rows)]), pa.scalar(SUPPRESSED, column.type), column)
        return _ARROW_TEXT.__from_arrow__(marked)
    values = dataset.column(name).to_numpy(dtype=object, copy=True)
    values[rows] = SUPPRESSED
    return values


#: How the release of an Arrow table holds a text column that passes through: Arrow text with NaN for missing.
_ARROW_TEXT = pd.StringDtype("pyarrow", na_value=np.nan)


def _objects(index: NDArray[np.integer[Any]], labels: NDArray[np.object_],
             suppressed: NDArray[np.bool_]) -> NDArray[np.object_]:
    """Each record's label as a Python string, ``*`` where suppressed."""
    out = cast("NDArray[np.object_]", labels[index])
    out[suppressed] = SUPPRESSED
    return out


def _categorical_of(column: pa.ChunkedArray) -> pd.Categorical:
    """A column of dictionary-encoded text as a categorical column (a null as a missing value)."""
    column = one_dictionary(column)
    chunks = [c for c in column.chunks if len(c)] or column.chunks
    codes = np.concatenate([pc.fill_null(c.indices, -1).to_numpy(zero_copy_only=False) for c in chunks])
    code_of_entry, categories = pd.factorize(chunks[0].dictionary.to_numpy(zero_copy_only=False), sort=False)
    if len(categories) < len(code_of_entry):  # a dictionary that lists a value twice
        codes = np.where(codes < 0, -1, code_of_entry[codes])
    return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=object))


def _categorical(index: NDArray[np.integer[Any]], labels: NDArray[np.object_],
                 suppressed: NDArray[np.bool_]) -> pd.Categorical:
    """Each record's label as a code into the distinct labels (with ``*``), ``*`` where suppressed."""
    code_of_label, distinct = pd.factorize(np.append(labels, np.asarray([SUPPRESSED], dtype=object)), sort=False)
    codes = code_of_label[index]
    codes[suppressed] = code_of_label[-1]
    return pd.Categorical.from_codes(codes, categories=pd.Index(distinct, dtype=object))


def class_labels(dataset: Dataset, attribute: str, values: GeneralizedValues) -> NDArray[np.object_]:
    """The released label of each class's generalized value (object array of str).

    An interval reads ``lo-hi`` (numbers), ``lo..hi`` (dates, as written in
    the data; ordinal values, from the first to the last category of the
    range in the attribute's order), or the single value when ``lo == hi``; a
    class released as one number in its range's place (``Intervals.shown``)
    reads that number, ``*`` where it holds no value.
    """
    if isinstance(values, Intervals) and values.shown is not None:
        return np.array([SUPPRESSED if np.isnan(v) else _number(v) for v in values.shown], dtype=object)
    if isinstance(values, Intervals):
        kind = dataset.specs[attribute].type
        if kind in (AttributeType.DATE, AttributeType.ORDINAL):
            return _value_range_labels(dataset, attribute, values)
        integral = bool(np.all(np.mod(values.lo, 1) == 0) and np.all(np.mod(values.hi, 1) == 0))
        labels = [_interval_label(lo, hi, integral) for lo, hi in zip(values.lo, values.hi, strict=True)]
        return np.array(labels, dtype=object)
    h = dataset.require_hierarchy(attribute)
    out = np.empty(len(values.levels), dtype=object)
    for level in np.unique(values.levels):
        mask = values.levels == level
        out[mask] = h.labels[int(level)][values.codes[mask]]
    return out


def _value_range_labels(dataset: Dataset, attribute: str, values: Intervals) -> NDArray[np.object_]:
    """``first..last`` labels of date or ordinal ranges: the leaves whose value is each end of the range."""
    col = dataset.encoded[attribute]
    assert col.numbers is not None
    leaves = dataset.require_hierarchy(attribute).labels[0]
    numbers = np.asarray(col.numbers[: len(leaves)], dtype=np.float64)
    valid = np.flatnonzero(np.isfinite(numbers))
    by_value = valid[np.argsort(numbers[valid], kind="stable")]
    ordered = numbers[by_value]
    text = np.asarray([str(v) for v in leaves], dtype=object)
    first = text[by_value[np.searchsorted(ordered, values.lo)]]
    last = text[by_value[np.searchsorted(ordered, values.hi)]]
    return np.where(values.lo == values.hi, first, first + ".." + last).astype(object)


def _interval_label(lo: float, hi: float, integral: bool) -> str:
    if lo == hi:
        return _number(lo)
    return f"{_number(lo)}-{_number(hi)}" if integral and lo >= 0 else f"[{_number(lo)}, {_number(hi)}]"


def _number(v: float) -> str:
    """A bound as written: an integer without a decimal point, else the shortest text that reads back as ``v``.

    (Six significant digits would print 40000.25 as 40000.2, a range that no longer contains the value.)
    """
    return str(int(v)) if float(v).is_integer() else repr(float(v))
