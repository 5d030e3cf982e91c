"""Read tables from CSV and Parquet, and write releases atomically.

CSV values are read as strings exactly as written (``007`` stays ``007``,
padding and non-ASCII characters are kept); typing happens later in
:class:`anonset.core.dataset.Dataset`, guided by the attribute specs.
Parquet columns keep their types, but for timezone-aware timestamps, which
are read as the local times they hold, without the zone (``2020-01-01
00:30+01:00`` is ``2020-01-01 00:30``), as every date of a CSV file is.

:func:`read_arrow_table` reads a file into an Arrow table, which a
:class:`~anonset.core.dataset.Dataset` encodes without turning each value
into a Python object (:func:`read_dataset` does both); :func:`read_table`
gives the same records as a pandas DataFrame of Python strings.  :func:`table_writer` writes CSV through Arrow
when every column is text that needs no quoting (the bytes pandas would
write), and through pandas otherwise.
"""

from __future__ import annotations

import csv
import io
import mmap
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from anonset.core.dataset import AttributeSpec, Dataset, Role, attribute_spec
from anonset.core.distinct import is_arrow_text
from anonset.errors import ConfigError, DataError
from anonset.io.delimiters import check_delimiter, sniff_delimiter
from anonset.io.outputs import atomic_write

__all__ = ["read_arrow_table", "read_dataset", "read_table", "table_writer", "write_table"]


def read_table(path: str | Path, delimiter: str | None = None, fmt: str | None = None) -> pd.DataFrame:
    """Read a CSV or Parquet file into a DataFrame of strings (CSV) or typed columns (Parquet).

    Parameters
    ----------
    path : str or Path
        The file.
    delimiter : str, optional
        CSV delimiter; sniffed from the first bytes when omitted.
    fmt : {"csv", "parquet"}, optional
        Format; inferred from the file name (``.parquet``/``.pq`` is Parquet).

    Raises
    ------
    DataError
        Missing or empty file, header only, ragged rows, duplicate column
        names, or text that is not UTF-8.
    """
    table = read_arrow_table(path, delimiter, fmt)
    frame = table.to_pandas()
    if _kind(Path(path), fmt) == "csv" and len(frame.columns):
        frame = frame.astype(object)
    return frame


def read_dataset(path: str | Path, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]],
                 delimiter: str | None = None, fmt: str | None = None, *,
                 keep_identifiers: bool = True) -> Dataset:
    """Read a CSV or Parquet file into a :class:`~anonset.core.dataset.Dataset` without a DataFrame of strings.

    The file is read by :func:`read_arrow_table` and handed to the dataset,
    which holds the text columns it encodes dictionary-encoded; the memory
    their text took is given back once the dataset is built.  The
    parameters, checks and errors are those of :func:`read_table` and of the
    dataset; the dataset's :attr:`~anonset.core.dataset.Dataset.table`
    equals what :func:`read_table` gives, except that without
    ``keep_identifiers`` (a run, which releases no identifier and reads none)
    each column with role ``identifier`` keeps its place and name but no
    value (all null), so its text (one per record, often the widest column)
    is not held.  A Parquet file's text columns that the dataset encodes
    (quasi-identifiers and sensitive attributes) are read dictionary-encoded:
    their text is never held once per record.
    """
    identifiers = [] if keep_identifiers else [name for name, spec in attributes.items()
                                                  if attribute_spec(name, spec).role is Role.IDENTIFIER]
    table, given = _read_arrow(path, delimiter, fmt, skip=identifiers, dictionary=_encoded_columns(attributes))
    dataset = Dataset(table, attributes, source=str(path), schema=given)
    del table  # the dataset holds the columns it encoded encoded: what they took as read can be given back
    pa.default_memory_pool().release_unused()
    return dataset


def _encoded_columns(attributes: Mapping[str, AttributeSpec | Mapping[str, Any]]) -> list[str]:
    """The columns a dataset of ``attributes`` encodes: quasi-identifiers and sensitive attributes (a spec the
    dataset will refuse names none)."""
    names = []
    for name, spec in attributes.items():
        try:
            role = attribute_spec(name, spec).role
        except ConfigError:
            continue
        if role in (Role.QUASI, Role.SENSITIVE):
            names.append(name)
    return names


def read_arrow_table(path: str | Path, delimiter: str | None = None, fmt: str | None = None, *,
                     skip: Collection[str] = ()) -> pa.Table:
    """Read a CSV or Parquet file into an Arrow table: CSV columns as text exactly as written.

    The parameters, the checks and the errors are those of :func:`read_table`;
    no value becomes a Python object.  A column named in ``skip`` keeps its
    place and name with no value (all null; a Parquet file's is not read).
    """
    return _read_arrow(path, delimiter, fmt, skip=skip)[0]


def _read_arrow(path: str | Path, delimiter: str | None, fmt: str | None, *, skip: Collection[str] = (),
                dictionary: Collection[str] = ()) -> tuple[pa.Table, pa.Schema]:
    """:func:`read_arrow_table`, and the schema of the table as the file gives it.

    A Parquet text column named in ``dictionary`` is read dictionary-encoded,
    so that its text is never held once per record; the schema returned
    still gives it as text (what :func:`read_arrow_table` reads).
    """
    p = Path(path)
    if not p.exists():
        raise DataError(f"{p}: file not found; check the path (in a config, relative paths are relative to the"
                        " config file)")
    if p.is_dir():
        raise DataError(f"{p}: is a directory, not a data file; name the CSV or Parquet file")
    if p.stat().st_size == 0:
        raise DataError(f"{p}: the file is empty; it needs a header row and at least one record")
    kind = _kind(p, fmt)
    if kind == "parquet":
        import pyarrow.parquet as pq  # here: a CSV run need not import it (50 ms)

        try:
            schema = pq.read_schema(p)
            names = schema.names
            _check_unique_columns(p, names)
            as_dictionary = [n for n in names if n in dictionary and n not in skip
                             and is_arrow_text(schema.field(n).type)]
            table = pq.read_table(p, columns=[n for n in names if n not in skip], read_dictionary=as_dictionary)
        except (pa.ArrowInvalid, OSError) as exc:
            raise DataError(f"{p}: not a readable Parquet file ({exc}); check the file or set `format: csv`") from exc
        for i, name in enumerate(names):
            if name in skip:
                table = table.add_column(i, pa.field(name, pa.null()), pa.nulls(table.num_rows))
        table = _local_timestamps(table)
        given = pa.schema([pa.field(f.name, f.type.value_type, f.nullable, f.metadata) if f.name in as_dictionary
                           else f for f in table.schema], metadata=table.schema.metadata)
    elif kind == "csv":
        table = _read_csv(p, delimiter)
        for name in skip:
            if name in table.column_names:
                i = table.schema.get_field_index(name)
                table = table.set_column(i, pa.field(name, pa.null()), pa.nulls(table.num_rows))
        given = table.schema
    else:
        raise DataError(f"{p}: unknown format {kind!r}; use csv or parquet")
    if table.num_rows == 0:
        raise DataError(f"{p}: the file has a header but no records; give at least one record")
    pa.default_memory_pool().release_unused()  # what reading needed on top of the table
    return table, given


def _local_timestamps(table: pa.Table) -> pa.Table:
    """The table with every timezone-aware timestamp column as the local times it holds, the zone dropped.

    ``2020-01-01 00:30+01:00`` (Europe/Paris) is read as ``2020-01-01 00:30``:
    the calendar dates and hours people of that zone wrote, which the dates
    hierarchies generalize; every other column is kept as it is.
    """
    for i, field in enumerate(table.schema):
        if pa.types.is_timestamp(field.type) and field.type.tz is not None:
            table = table.set_column(i, field.name, pc.local_timestamp(table.column(i)))
    return table


def _kind(p: Path, fmt: str | None) -> str:
    """The format of a file: as given, else Parquet for ``.parquet``/``.pq`` and CSV for any other name."""
    return fmt or ("parquet" if p.suffix.lower() in (".parquet", ".pq") else "csv")


#: Bytes of CSV each of Arrow's reading threads parses at a time.
CSV_BLOCK_BYTES = 1 << 24


def _has_quote(p: Path) -> bool:
    """Whether the file holds a double quote anywhere (searched in the mapped file, without reading it into Python)."""
    with open(p, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        return mapped.find(b'"') >= 0


def _read_csv(p: Path, delimiter: str | None) -> pa.Table:
    sep = delimiter or sniff_delimiter(p)
    check_delimiter(sep, str(p))
    with open(p, encoding="utf-8-sig", errors="replace", newline="") as fh:  # a byte-order mark is not a name
        header_line = fh.readline()
    header = next(csv.reader(io.StringIO(header_line), delimiter=sep), [])
    header = [h.strip("\r\n") for h in header]
    _check_unique_columns(p, header)
    read_opts = pacsv.ReadOptions(use_threads=True, block_size=CSV_BLOCK_BYTES)
    # a quoted value may hold a line break: Arrow then splits the file into blocks at record ends only
    parse_opts = pacsv.ParseOptions(delimiter=sep, quote_char='"', double_quote=True,
                                    newlines_in_values=_has_quote(p))
    convert_opts = pacsv.ConvertOptions(
        column_types={name: pa.string() for name in header},
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
        null_values=[],
    )
    try:
        return pacsv.read_csv(p, read_options=read_opts, parse_options=parse_opts, convert_options=convert_opts)
    except pa.ArrowInvalid as exc:
        raise DataError(f"{p}: {_explain_csv_error(str(exc), sep)}") from exc


def _explain_csv_error(message: str, sep: str) -> str:
    text = message.strip().splitlines()[0]
    if "Expected" in text and "columns" in text:
        return f"ragged rows ({text}); every row needs as many '{sep}'-separated fields as the header"
    if "UTF8" in text or "utf8" in text or "UTF-8" in text:
        return f"text is not valid UTF-8 ({text}); save the file as UTF-8"
    if "Empty CSV" in text:
        return "the file is empty; it needs a header row and at least one record"
    return f"cannot parse CSV ({text}); check the delimiter and quoting"


def _check_unique_columns(p: Path, names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise DataError(f"{p}: duplicate column name {name!r}; rename the columns so each is unique")
        seen.add(name)


def write_table(frame: pd.DataFrame, path: str | Path, delimiter: str = ",", fmt: str | None = None) -> None:
    """Write a DataFrame to CSV or Parquet atomically.

    The format comes from the suffix unless given; ``-`` is standard output.
    """
    atomic_write(path, table_writer(frame, path, delimiter, fmt))


def table_writer(frame: pd.DataFrame, path: str | Path, delimiter: str = ",",
                 fmt: str | None = None) -> Callable[[Path], None]:
    """A writer of ``frame`` into a given file, in the format ``path`` calls for (see :func:`write_table`).

    Raises
    ------
    DataError
        An unknown format, or a CSV delimiter that is not one character.
    """
    target = Path(path)
    kind = _kind(target, fmt)
    if kind not in ("csv", "parquet"):
        raise DataError(f"{target}: unknown format {kind!r}; use csv or parquet")
    if kind == "csv":
        check_delimiter(delimiter, str(target))

    def _write(tmp: Path) -> None:
        if kind == "parquet":
            _write_parquet(frame, tmp)
        else:
            _write_csv(frame, tmp, delimiter)

    return _write


def _write_csv(frame: pd.DataFrame, tmp: Path, delimiter: str) -> None:
    """CSV as pandas writes it (header, minimal quoting, ``\\n``); through Arrow when no field needs quotes."""
    text = _text_columns(frame)
    if text is not None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            csv.writer(fh, delimiter=delimiter, lineterminator="\n").writerow([str(c) for c in frame.columns])
        try:
            with open(tmp, "ab") as fh:
                options = pacsv.WriteOptions(include_header=False, delimiter=delimiter, quoting_style="none")
                pacsv.write_csv(text, fh, options)
            return
        except pa.ArrowInvalid:  # a field holds the delimiter, a quote or a line break: it needs quotes
            pass
    frame.to_csv(tmp, sep=delimiter, index=False, lineterminator="\n")


def _text_columns(frame: pd.DataFrame) -> pa.Table | None:
    """The frame as an Arrow table when every column is text without nulls, else None.

    A single column with an empty field is None too: CSV writes that field
    as ``""`` so that the line is not blank.
    """
    if not len(frame.columns):
        return None
    columns = [_text_array(frame[name]) for name in frame.columns]
    if any(c is None or c.null_count for c in columns):
        return None
    if len(columns) == 1 and len(frame) and pc.min(pc.utf8_length(_values(columns[0]))).as_py() == 0:
        return None
    return pa.table(columns, names=[str(c) for c in frame.columns])


def _text_array(series: pd.Series) -> pa.Array | pa.ChunkedArray | None:
    """A column's values as Arrow text (plain or dictionary-encoded), or None when they are not all text."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        values = pa.array(series.array)
        kind = values.type.value_type
    elif series.dtype == object or isinstance(series.dtype, (pd.StringDtype, pd.ArrowDtype)):
        try:
            values = pa.array(series.to_numpy() if series.dtype == object else series.array)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None
        kind = values.type
    else:
        return None
    return values if pa.types.is_string(kind) or pa.types.is_large_string(kind) else None


def _values(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """The distinct texts a column can hold: a dictionary's values, else the column itself."""
    return column.dictionary if isinstance(column, pa.DictionaryArray) else column


def _write_parquet(frame: pd.DataFrame, tmp: Path) -> None:
    """Parquet as ``DataFrame.to_parquet`` writes it; text held by Arrow is written as the same plain strings.

    Categorical and Arrow-backed text columns are written as plain
    ``string`` columns with the pandas description of Python strings, so the
    file reads back as a frame of ``str`` whatever held the values.
    """
    import pyarrow.parquet as pq  # here: a CSV run need not import it

    arrow_held = [c for c in frame.columns if isinstance(frame[c].dtype, (pd.CategoricalDtype, pd.StringDtype,
                                                                          pd.ArrowDtype))]
    if not arrow_held:
        frame.to_parquet(tmp, index=False)
        return
    table = pa.Table.from_pandas(frame, preserve_index=False)
    for name in arrow_held:
        i = table.schema.get_field_index(str(name))
        table = table.set_column(i, str(name), table.column(i).cast(pa.string()))
    described = pa.Schema.from_pandas(frame.head(1).astype({c: object for c in arrow_held}), preserve_index=False)
    pq.write_table(table.replace_schema_metadata(described.metadata), tmp)
