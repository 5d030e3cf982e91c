"""Read hierarchies in the ARX CSV layout: one line per leaf, ``leaf;level1;...;*``.

Values are read as strings exactly as written (no trimming, no number
parsing), so they match the data the same way the data is read.  A UTF-8
byte-order mark at the start of a file (as some spreadsheet programs write
it) is not part of the first value.  Writing is :func:`anonset.hierarchy.write_hierarchy`.
"""

from __future__ import annotations

import csv
from pathlib import Path

from anonset.core.hierarchy import Hierarchy
from anonset.errors import HierarchyError

__all__ = ["read_hierarchy", "read_taxonomy"]


def read_hierarchy(path: str | Path, name: str | None = None, delimiter: str = ";") -> Hierarchy:
    """Read an ARX-style hierarchy CSV file.

    Parameters
    ----------
    path : str or Path
        The file, one line per leaf value: ``leaf;level1;...;root``.
    name : str, optional
        Attribute name for messages (defaults to the file stem).
    delimiter : str
        Field separator (ARX uses ``;``).

    Raises
    ------
    HierarchyError
        Missing or empty file, or a structural problem (see :meth:`Hierarchy.from_rows`).
    """
    p = Path(path)
    attr = name or p.stem
    if not p.exists():
        raise HierarchyError(f"hierarchy file {p} for {attr!r} not found; check the path (relative to the config file)")
    if p.is_dir():
        raise HierarchyError(f"hierarchy file {p} for {attr!r} is a directory; give the path of a hierarchy file")
    try:
        with open(p, encoding="utf-8-sig", newline="") as fh:
            rows = [row for row in csv.reader(fh, delimiter=delimiter) if row and any(cell != "" for cell in row)]
    except UnicodeDecodeError as exc:
        raise HierarchyError(f"hierarchy file {p}: not valid UTF-8 ({exc.reason}); save it as UTF-8") from exc
    return Hierarchy.from_rows(attr, rows, source=str(p))


def read_taxonomy(path: str | Path, name: str | None = None, delimiter: str = ";") -> Hierarchy:
    """Read a taxonomy tree of uneven depth (``leaf;parent;...;*`` per line) as an equal-depth hierarchy.

    A branch shorter than the deepest one is padded by repeating its leaf
    value (``Private;*`` in a 3-level tree becomes ``Private;Private;*``), so
    the value stays itself until it joins the root.  Leaf counts are those of
    the tree; level heights of padded nodes are not tree heights.
    """
    p = Path(path)
    attr = name or p.stem
    if not p.exists():
        raise HierarchyError(f"taxonomy file {p} for {attr!r} not found; check the path")
    if p.is_dir():
        raise HierarchyError(f"taxonomy file {p} for {attr!r} is a directory; give the path of a taxonomy file")
    with open(p, encoding="utf-8-sig", newline="") as fh:
        rows = [row for row in csv.reader(fh, delimiter=delimiter) if row and any(cell != "" for cell in row)]
    if not rows:
        raise HierarchyError(f"taxonomy file {p} is empty; give one line per value, 'value;parent;...;*'")
    depth = max(len(row) for row in rows)
    padded = [[row[0]] * (depth - len(row)) + row for row in rows]
    return Hierarchy.from_rows(attr, padded, source=str(p))
