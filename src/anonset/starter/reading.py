"""The data file read as ``anonset anonymize`` reads it, and the checks that refuse a file with no header.

:func:`read_data` reads the table with anonset's own reader
(:func:`anonset.io.tables.read_arrow_table`), so that the starter config sees
the values exactly as ``anonset anonymize`` will.  A CSV whose first row looks
like a record (its names are all numbers, or at least half of them are
values of their own columns: :func:`check_header_is_not_data`, once the
columns are profiled) is refused: it has no header.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from anonset.errors import DataError
from anonset.starter.column_profile import ColumnProfile
from anonset.starter.column_types import PLAIN_NUMBER

__all__ = ["check_header_is_not_data", "read_data"]


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
