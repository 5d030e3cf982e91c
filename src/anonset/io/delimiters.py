"""CSV delimiters: guess one from a file's first bytes, refuse one that cannot work; no table library needed."""

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
    """Refuse a CSV delimiter that is not one character (or is a quote or a line break)."""
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in {'"', "\n", "\r"}:
        raise DataError(f"{where}: delimiter {delimiter!r} must be a single character such as ';' or ','")
