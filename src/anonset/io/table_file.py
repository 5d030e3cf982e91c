"""``TableFile``: a CSV or Parquet file named now and read when called (a population table in a config).

Parsing a configuration opens nothing: a model that compares the input with
another table holds this reader and calls it when it needs the records.  The
module imports no table library until then, so a configuration error is
still reported before pandas or Arrow is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["TableFile"]


@dataclass(frozen=True)
class TableFile:
    """A CSV or Parquet file read when called (:func:`anonset.io.tables.read_arrow_table`)."""

    path: Path
    delimiter: str | None = None
    format: str | None = None

    def __call__(self) -> pa.Table:
        """The file's records, text columns as written."""
        from anonset.io.tables import read_arrow_table

        return read_arrow_table(self.path, self.delimiter, self.format)
