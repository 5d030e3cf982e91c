"""Read tables from CSV and Parquet, and write releases atomically.

CSV values are read as strings exactly as written (``007`` stays ``007``,
padding and non-ASCII characters are kept); typing happens later in
:class:`anonset.core.dataset.Dataset`, guided by the attribute specs.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from anonset.errors import DataError
from anonset.io.delimiters import check_delimiter, sniff_delimiter
from anonset.io.outputs import atomic_write

__all__ = ["read_table", "table_writer", "write_table"]


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
    p = Path(path)
    if not p.exists():
        raise DataError(f"{p}: file not found; check the path (in a config, relative paths are relative to the"
                        " config file)")
    if p.is_dir():
        raise DataError(f"{p}: is a directory, not a data file; name the CSV or Parquet file")
    if p.stat().st_size == 0:
        raise DataError(f"{p}: the file is empty; it needs a header row and at least one record")
    kind = fmt or ("parquet" if p.suffix.lower() in (".parquet", ".pq") else "csv")
    if kind == "parquet":
        try:
            table = pq.read_table(p)
        except (pa.ArrowInvalid, OSError) as exc:
            raise DataError(f"{p}: not a readable Parquet file ({exc}); check the file or set `format: csv`") from exc
        _check_unique_columns(p, table.column_names)
        frame = table.to_pandas()
    elif kind == "csv":
        frame = _read_csv(p, delimiter)
    else:
        raise DataError(f"{p}: unknown format {kind!r}; use csv or parquet")
    if len(frame) == 0:
        raise DataError(f"{p}: the file has a header but no records; give at least one record")
    return frame


def _read_csv(p: Path, delimiter: str | None) -> pd.DataFrame:
    sep = delimiter or sniff_delimiter(p)
    if len(sep) != 1:
        raise DataError(f"{p}: delimiter {sep!r} must be a single character such as ';' or ','")
    with open(p, encoding="utf-8", errors="replace", newline="") as fh:
        header_line = fh.readline()
    header = next(csv.reader(io.StringIO(header_line), delimiter=sep), [])
    header = [h.strip("\r\n") for h in header]
    _check_unique_columns(p, header)
    read_opts = pacsv.ReadOptions(use_threads=True, block_size=1 << 24)
    parse_opts = pacsv.ParseOptions(delimiter=sep, quote_char='"', double_quote=True, newlines_in_values=False)
    convert_opts = pacsv.ConvertOptions(
        column_types={name: pa.string() for name in header},
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
        null_values=[],
    )
    try:
        table = pacsv.read_csv(p, read_options=read_opts, parse_options=parse_opts, convert_options=convert_opts)
    except pa.ArrowInvalid as exc:
        raise DataError(f"{p}: {_explain_csv_error(str(exc), sep)}") from exc
    frame = table.to_pandas()
    return frame.astype(object) if len(frame.columns) else frame


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
    kind = fmt or ("parquet" if target.suffix.lower() in (".parquet", ".pq") else "csv")
    if kind not in ("csv", "parquet"):
        raise DataError(f"{target}: unknown format {kind!r}; use csv or parquet")
    if kind == "csv":
        check_delimiter(delimiter, str(target))

    def _write(tmp: Path) -> None:
        if kind == "parquet":
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, sep=delimiter, index=False, lineterminator="\n")

    return _write
