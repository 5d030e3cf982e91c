"""CSV delimiters: guess one from a file's first bytes, refuse one that cannot work; no table library needed.

A delimiter is one ASCII character other than a double quote or a line
break: the CSV reader and writer (Arrow's, and DuckDB's) split fields on one
byte, and a character such as ``é`` takes two in UTF-8.
"""

from __future__ import annotations

import csv
from pathlib import Path

from anonset.errors import DataError

__all__ = ["check_delimiter", "sniff_delimiter"]


def sniff_delimiter(path: Path, sample_bytes: int = 65536) -> str:
    """Guess the delimiter of a CSV file from its first bytes (``,``, ``;``, tab or ``|``)."""
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        sample = fh.read(sample_bytes)
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        header = sample.splitlines()[0] if sample else ""
        counts = {d: header.count(d) for d in ",;\t|"}
        best = max(counts, key=lambda d: counts[d])
        return best if counts[best] else ","


def check_delimiter(delimiter: object, where: str) -> None:
    """Refuse a CSV delimiter that is not one ASCII character (or is a quote or a line break).

    Raises
    ------
    DataError
        Naming ``where`` (the file, or the option or key that gave it) and the delimiter.
    """
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in {'"', "\n", "\r"}:
        raise DataError(f"{where}: delimiter {delimiter!r} must be a single character such as ';' or ','")
    if not delimiter.isascii():
        raise DataError(f"{where}: delimiter {delimiter!r} is not an ASCII character, and anonset splits CSV fields"
                        " on one byte; save the file with a delimiter such as ';', ',', '|' or a tab")
