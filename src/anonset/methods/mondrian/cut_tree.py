"""The first-cut tree of distributed Mondrian: the fragment of every record, and a fragment merged with its siblings.

Distributed Mondrian cuts the table on the driver, from a sample
(:func:`~anonset.methods.mondrian.first_cuts.first_cuts`), into a few
fragments and runs the in-memory Mondrian on each fragment on a worker.
:class:`Cut` is that small decision tree: a numeric quasi-identifier cut at a
threshold (left ``value <= threshold``), or a categorical one split into the
child nodes of its hierarchy at one level; its leaves, numbered depth first,
are the fragments.

- :func:`fragments_of`: every record's fragment, in numpy, from the
  dataset's codes (the rule the Spark expression
  :func:`~anonset.engine.spark.mondrian.with_fragments` states on the
  cluster; a test holds the two together).
- :func:`collapsed`: the tree with a fragment merged with its siblings (its
  parent's cut undone), and each old fragment's new number.
- :func:`unseen_branches`: whether a categorical cut sent branches the
  sample did not hold to one child (whose classes may then cover a sibling's
  values).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset

__all__ = ["Cut", "collapsed", "fragments_of", "unseen_branches"]


@dataclass(frozen=True)
class Cut:
    """A node of the first-cut tree: a fragment (a leaf), or a cut of one quasi-identifier into children.

    Attributes
    ----------
    attribute : str or None
        The quasi-identifier cut; None for a leaf.
    threshold : float
        Numeric cut: child 0 takes ``value <= threshold``, child 1 the rest.
    level : int
        Categorical cut: the hierarchy level of the child nodes (−1 for a numeric cut).
    keys : tuple of int
        Categorical cut: each child's node code at ``level``.
    default : int
        Categorical cut: the child that takes a record whose node at ``level``
        is none of ``keys`` (a branch the sample did not hold).
    children : tuple of Cut
        The children, in key order.
    """

    attribute: str | None = None
    threshold: float = math.nan
    level: int = -1
    keys: tuple[int, ...] = ()
    default: int = 0
    children: tuple[Cut, ...] = ()

    @property
    def is_leaf(self) -> bool:
        """True for a fragment."""
        return self.attribute is None

    @property
    def n_fragments(self) -> int:
        """Leaves under this node."""
        return 1 if self.is_leaf else sum(c.n_fragments for c in self.children)

    def levels_used(self) -> dict[str, set[int]]:
        """Per attribute cut somewhere in the tree, the levels its cuts use (−1: by value)."""
        out: dict[str, set[int]] = {}
        stack = [self]
        while stack:
            node = stack.pop()
            if node.attribute is not None:
                out.setdefault(node.attribute, set()).add(node.level)
                stack.extend(node.children)
        return out


def fragments_of(tree: Cut, dataset: Dataset) -> NDArray[np.int64]:
    """Every record's fragment (0 .. P − 1, depth first) by ``tree``, from ``dataset``'s codes.

    A numeric cut compares the record's number (``value <= threshold``: child
    0; a value without a number goes to child 1), a categorical one its
    hierarchy node at the cut's level (none of ``keys``: child ``default``).
    One pass of whole-array operations per node of the tree, none per record.
    """
    out = np.zeros(dataset.n_rows, dtype=np.int64)
    stack: list[tuple[Cut, NDArray[np.int64], int]] = [(tree, np.arange(dataset.n_rows, dtype=np.int64), 0)]
    while stack:
        node, rows, first = stack.pop()
        if node.attribute is None:
            out[rows] = first
            continue
        codes = dataset.encoded[node.attribute].row_codes()[rows]
        if node.level < 0:
            numbers = dataset.encoded[node.attribute].numbers
            if numbers is None:
                raise ValueError(f"{node.attribute!r} is cut by value but has no numbers")
            child = np.where(np.asarray(numbers, dtype=np.float64)[codes] <= node.threshold, 0, 1)
        else:
            nodes = dataset.require_hierarchy(node.attribute).maps[node.level][codes]
            child = np.full(len(rows), node.default, dtype=np.int64)
            for j, key in reversed(list(enumerate(node.keys))):  # the first matching key wins, as in a CASE WHEN
                child[nodes == key] = j
        at = first
        for j, c in enumerate(node.children):
            stack.append((c, rows[child == j], at))
            at += c.n_fragments
    return out


def collapsed(tree: Cut, failing: set[int]) -> tuple[Cut, NDArray[np.int64]]:
    """``tree`` with the parent cut of every fragment in ``failing`` undone (the fragment merged with its siblings).

    Returns the new tree and, per old fragment, its new fragment (depth-first
    numbering both).  A failing root (a tree of one fragment) is returned as is.
    """
    mapping: list[int] = []
    new_count = 0

    def walk(node: Cut) -> Cut:
        nonlocal new_count
        if node.is_leaf:
            mapping.append(new_count)
            new_count += 1
            return node
        first = len(mapping)
        ids = _leaf_ids(node, first)
        if any(c.is_leaf and i in failing for c, i in zip(node.children, ids, strict=True)):
            mapping.extend([new_count] * node.n_fragments)
            new_count += 1
            return Cut()
        return Cut(node.attribute, node.threshold, node.level, node.keys, node.default,
                   tuple(walk(c) for c in node.children))

    new = walk(tree)
    return new, np.array(mapping, dtype=np.int64)


def _leaf_ids(node: Cut, first: int) -> list[int]:
    """Depth-first number of each child of ``node`` that is a leaf (−1 for inner children)."""
    ids, at = [], first
    for child in node.children:
        ids.append(at if child.is_leaf else -1)
        at += child.n_fragments
    return ids


def unseen_branches(tree: Cut, dataset: Dataset) -> bool:
    """Whether a categorical first cut sent branches the sample did not hold to one child (whose classes may then
    cover a sibling's values).

    ``dataset`` is the whole table's (its value counts say which branches it holds).
    """
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.attribute is None:
            continue
        stack.extend(node.children)
        if node.level < 0:
            continue
        h = dataset.require_hierarchy(node.attribute)
        up = h.parent_map(node.level, node.level + 1)
        held = np.bincount(h.maps[node.level], weights=dataset.encoded[node.attribute].counts(),
                           minlength=h.size(node.level)) > 0
        siblings = np.flatnonzero((up == up[node.keys[0]]) & held)
        if not set(siblings.tolist()) <= set(node.keys):
            return True
    return False
