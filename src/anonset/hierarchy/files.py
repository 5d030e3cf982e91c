"""Write hierarchies in the ARX CSV layout (``leaf;level1;...;*``), atomically.

Reading them is :mod:`anonset.core.hierarchy_csv`.
"""

from __future__ import annotations

import csv
from pathlib import Path

from anonset.core.hierarchy import Hierarchy
from anonset.io.outputs import atomic_write

__all__ = ["write_hierarchy"]


def write_hierarchy(hierarchy: Hierarchy, path: str | Path, delimiter: str = ";") -> None:
    """Write a hierarchy in the ARX CSV layout (atomically)."""

    def _write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, delimiter=delimiter, lineterminator="\n")
            writer.writerows(hierarchy.rows())

    atomic_write(path, _write)
