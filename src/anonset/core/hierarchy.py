"""The ``Hierarchy`` type: a value generalization hierarchy encoded as int lookup tables.

A hierarchy over a domain of ``m`` leaf values has ``n_levels`` levels; level 0
holds the leaves themselves and the last level a single root (usually ``*``).
Each level ``j`` is stored as ``maps[j]``, an int32 array that sends every leaf
code to the code of its ancestor at level ``j``, and ``labels[j]``, the label
of each code at that level.  Leaf codes index ``labels[0]``; the dataset
encodes a column directly into leaf codes, so generalizing a whole column to
level ``j`` is one ``take``.

Tree facts that metrics need (leaves under each node, the parent map between
two levels) are derived once and cached.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

from anonset.errors import HierarchyError

__all__ = ["Hierarchy"]


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """A value generalization hierarchy with equal depth on every leaf.

    Parameters
    ----------
    name : str
        Attribute name (used in error messages).
    labels : tuple of numpy.ndarray
        ``labels[j][c]`` is the label (str) of code ``c`` at level ``j``.
    maps : tuple of numpy.ndarray
        ``maps[j][leaf]`` is the code at level ``j`` of the ancestor of ``leaf``
        (int32); ``maps[0]`` is the identity.
    source : str
        Where the hierarchy came from (a file path or a builder description).
    date_format : str, optional
        How the leaves read as dates (the ``format`` of the ``dates``
        builder that made it), so that every encoding of the attribute reads
        them the same way (day-first dates stay day-first).

    Use :meth:`from_rows` to build one from leaf-to-root label rows; it
    validates the structure.
    """

    name: str
    labels: tuple[NDArray[np.object_], ...]
    maps: tuple[NDArray[np.int32], ...]
    source: str = "<memory>"
    date_format: str | None = None
    _leaf_index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.labels) != len(self.maps) or not self.labels:
            raise HierarchyError(f"hierarchy {self.name!r} ({self.source}): labels and maps differ in length")
        index = {str(v): i for i, v in enumerate(self.labels[0])}
        object.__setattr__(self, "_leaf_index", index)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_rows(cls, name: str, rows: Sequence[Sequence[str]], source: str = "<memory>") -> Hierarchy:
        """Build and validate a hierarchy from rows ``[leaf, level1, ..., root]``.

        Raises
        ------
        HierarchyError
            On an empty hierarchy, rows of unequal depth, a duplicated leaf, a
            value with two parents, levels that form a cycle (``a`` generalized
            to ``b`` on one line and ``b`` to ``a`` on another), or more than
            one root.
        """
        where = f"hierarchy {name!r} ({source})"
        if not rows:
            raise HierarchyError(f"{where} is empty: give one line per value, 'value;level1;...;*'")
        for i, row in enumerate(rows):
            if not row:
                raise HierarchyError(f"{where}, line {i + 1} is empty; give 'value;level1;...;*' or remove the line")
        depth = len(rows[0])
        for i, row in enumerate(rows):
            if len(row) != depth:
                raise HierarchyError(
                    f"{where}, line {i + 1} ({row[0]!r}): has {len(row)} levels but line 1 has {depth};"
                    " every line needs the same number of levels (pad a short branch by repeating its value)"
                )
        seen: dict[str, int] = {}
        for i, row in enumerate(rows):
            if row[0] in seen:
                raise HierarchyError(
                    f"{where}, line {i + 1}: value {row[0]!r} is listed twice (also line {seen[row[0]] + 1});"
                    " list each value once"
                )
            seen[row[0]] = i
        cycle = _find_cycle(rows)
        if cycle:
            path = " -> ".join(repr(v) for v in cycle)
            raise HierarchyError(
                f"{where}: the levels form a cycle, {path}; a value's generalizations must lead to the root"
                " without coming back to it (fix the lines of these values)"
            )
        labels: list[NDArray[np.object_]] = []
        maps: list[NDArray[np.int32]] = []
        previous_codes: NDArray[np.int64] | None = None
        for level in range(depth):
            column = [str(row[level]) for row in rows]
            uniques, codes = _first_seen_codes(column)
            if previous_codes is not None:
                # every code at the level below must have exactly one parent code here
                parent = np.full(int(previous_codes.max()) + 1, -1, dtype=np.int64)
                parent[previous_codes] = codes
                clash = parent[previous_codes] != codes
                if clash.any():
                    i = int(np.flatnonzero(clash)[0])
                    child = rows[i][level - 1]
                    same_child = np.flatnonzero(previous_codes == previous_codes[i])
                    parents = list(dict.fromkeys(column[j] for j in same_child))
                    other, mine = parents[0], parents[1]
                    raise HierarchyError(
                        f"{where}: value {child!r} at level {level - 1} has two parents at level {level}"
                        f" ({other!r} and {mine!r}); a value may have only one parent"
                    )
            labels.append(np.array(uniques, dtype=object))
            maps.append(codes.astype(np.int32))
            previous_codes = codes
        if len(labels[-1]) != 1:
            shown = ", ".join(repr(v) for v in list(labels[-1])[:5])
            raise HierarchyError(
                f"{where}: the last level has {len(labels[-1])} values ({shown}); a hierarchy needs a single root"
                " such as '*'"
            )
        return cls(name=name, labels=tuple(labels), maps=tuple(maps), source=source)

    @classmethod
    def flat(cls, name: str, values: Sequence[str], root: str = "*") -> Hierarchy:
        """A two-level hierarchy: every value, then ``root``."""
        return cls.from_rows(name, [[str(v), root] for v in values], source="flat")

    # ------------------------------------------------------------------ facts
    @property
    def n_levels(self) -> int:
        """Number of levels including the leaves and the root."""
        return len(self.maps)

    @property
    def max_level(self) -> int:
        """Index of the root level (``n_levels - 1``)."""
        return len(self.maps) - 1

    @property
    def n_leaves(self) -> int:
        """Number of leaf values (the domain size ``|D|``)."""
        return len(self.labels[0])

    def size(self, level: int) -> int:
        """Number of distinct nodes at ``level``."""
        return len(self.labels[level])

    @property
    def leaves(self) -> list[str]:
        """Leaf labels in code order."""
        return [str(v) for v in self.labels[0]]

    def leaf_code(self, value: str) -> int | None:
        """Code of a leaf label, or ``None`` when the value is not a leaf."""
        return self._leaf_index.get(value)

    @cached_property
    def leaf_counts(self) -> tuple[NDArray[np.int64], ...]:
        """``leaf_counts[j][c]``: number of leaves under node ``c`` of level ``j``."""
        return tuple(np.bincount(m, minlength=len(lab)).astype(np.int64)
                     for m, lab in zip(self.maps, self.labels, strict=True))

    def parent_map(self, from_level: int, to_level: int) -> NDArray[np.int32]:
        """Int32 array sending each code at ``from_level`` to its ancestor's code at ``to_level``."""
        if to_level < from_level:
            raise ValueError(f"to_level {to_level} is below from_level {from_level}")
        return self._parent_maps[from_level][to_level]

    @cached_property
    def _parent_maps(self) -> list[list[NDArray[np.int32]]]:
        out: list[list[NDArray[np.int32]]] = []
        for a in range(self.n_levels):
            row: list[NDArray[np.int32]] = []
            for b in range(self.n_levels):
                if b < a:
                    row.append(np.empty(0, dtype=np.int32))
                    continue
                m = np.empty(self.size(a), dtype=np.int32)
                m[self.maps[a]] = self.maps[b]
                row.append(m)
            out.append(row)
        return out

    def generalize(self, leaf_codes: NDArray[np.integer[Any]], level: int) -> NDArray[np.int32]:
        """Codes at ``level`` of the given leaf codes."""
        return cast("NDArray[np.int32]", self.maps[level][leaf_codes])

    def label(self, level: int, codes: NDArray[np.integer[Any]]) -> NDArray[np.object_]:
        """Labels (object array of str) of codes at ``level``."""
        return cast("NDArray[np.object_]", self.labels[level][codes])

    def rows(self) -> list[list[str]]:
        """The hierarchy as rows ``[leaf, level1, ..., root]`` (the ARX CSV layout)."""
        return [[str(self.labels[j][self.maps[j][leaf]]) for j in range(self.n_levels)]
                for leaf in range(self.n_leaves)]

    def with_extra_leaves(self, values: Sequence[str]) -> Hierarchy:
        """A copy with ``values`` added as leaves that stay themselves up to the root.

        Used for declared missing-value markers that a hierarchy file does not list.
        """
        root = str(self.labels[-1][0])
        if self.max_level == 0:
            raise HierarchyError(
                f"hierarchy {self.name!r} ({self.source}) has only a root; cannot place missing marker(s)"
                f" {list(values)!r}"
            )
        inner = {str(v) for level in self.labels[1:-1] for v in level}
        clash = [v for v in values if str(v) in inner]
        if clash:
            raise HierarchyError(
                f"hierarchy {self.name!r} ({self.source}): missing marker {clash[0]!r} is also a group label;"
                " list the marker as a value in the hierarchy file (or choose another marker)"
            )
        rows = self.rows() + [[str(v)] * self.max_level + [root] for v in values]
        return replace(Hierarchy.from_rows(self.name, rows, source=self.source), date_format=self.date_format)

    def __repr__(self) -> str:
        sizes = "/".join(str(self.size(j)) for j in range(self.n_levels))
        return f"Hierarchy({self.name!r}, levels={self.n_levels}, sizes={sizes}, source={self.source!r})"


def _find_cycle(rows: Sequence[Sequence[str]]) -> list[str] | None:
    """A cycle ``[a, b, ..., a]`` in the graph of value -> next-level label (a label kept as is is no edge)."""
    edges: dict[str, set[str]] = {}
    for row in rows:
        for child, parent in itertools.pairwise(row):
            if child != parent:
                edges.setdefault(str(child), set()).add(str(parent))
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for start in sorted(edges):
        if start in state:
            continue
        path = [start]
        stack = [iter(sorted(edges[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(edges.get(nxt, ()))))
    return None


def _first_seen_codes(column: Sequence[str]) -> tuple[list[str], NDArray[np.int64]]:
    """Dictionary-encode ``column`` with codes in order of first appearance."""
    index: dict[str, int] = {}
    codes = np.empty(len(column), dtype=np.int64)
    for i, v in enumerate(column):
        c = index.get(v)
        if c is None:
            c = len(index)
            index[v] = c
        codes[i] = c
    return list(index), codes
