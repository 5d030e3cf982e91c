"""A release read against its input: which released row is which input record, and what the released values say.

A report needs both: the breakdown of the suppressed records and the
record-level figures need to know which input record each released row is,
and the rest is read from the released values themselves.

*Alignment is established, not assumed.*  Released row ``i`` is aligned with
input record ``i`` only if each of its quasi-identifier values generalizes
the record's value: the same value, the label of an ancestor in the
attribute's hierarchy, ``*``, or, for an attribute compared by value
(numeric, date, ordinal), a released range (``20-39``, ``[0.5, 2]``,
``2020-01-01..2020-03-31``) that contains it.  :func:`check_alignment`
checks this on every row, vectorized: per attribute one lookup per
hierarchy level, on integer codes.

*The released values alone* give the full-domain levels
(:func:`released_levels`: the levels whose labels the released values are,
checked row by row when the rows are aligned and on the counts of each label
when they are not) and each class's generalized value
(:func:`partition_of_release`: the node a label names or the range it
writes), so the loss and the metrics of a release whose rows were shuffled
are still those of the release.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonset.core.dataset import BY_VALUE_TYPES, AttributeType, Dataset, row_values
from anonset.core.partition import GeneralizedValues, HierarchyNodes, Intervals, Partition
from anonset.recheck.columns import SUPPRESSED, text_codes

if TYPE_CHECKING:
    from collections.abc import Mapping

    from numpy.typing import NDArray

__all__ = ["Alignment", "ReleasedCodes", "all_star_rows", "check_alignment", "partition_of_blanked_release",
           "partition_of_release", "released_levels"]

#: ``20-39``: a range of whole numbers as a release writes it.
_DASH_RANGE = r"^(\d+)-(\d+)$"
#: ``[0.5, 2]``: a range with a bound that is not a whole number (or is negative).
_BRACKET_RANGE = r"^\[([^,\]]+),\s*([^\]]+)\]$"


@dataclass(frozen=True)
class Alignment:
    """Whether released row ``i`` is a release of input record ``i``, for every ``i``.

    Attributes
    ----------
    aligned : bool
        Every released row generalizes the input record at its position.
    misaligned_rows : int
        Released rows that do not (0 when the row counts differ: nothing was compared).
    first_row : int or None
        The first of them (0-based, as a data row of the release).
    column : str or None
        A quasi-identifier in which ``first_row`` does not generalize its input record.
    reason : str or None
        Why the release is not aligned, as a clause (None when it is).
    """

    aligned: bool
    misaligned_rows: int = 0
    first_row: int | None = None
    column: str | None = None
    reason: str | None = None


@dataclass(frozen=True, eq=False)
class ReleasedCodes:
    """The released quasi-identifiers, each as every row's code into the distinct texts of its column.

    Read once (:meth:`of`) and shared by every step that looks at the
    released values; a missing value reads as the column's missing marker,
    as the input reads it.
    """

    codes: Mapping[str, NDArray[np.int64]]
    texts: Mapping[str, NDArray[np.object_]]
    n_rows: int

    @classmethod
    def of(cls, dataset: Dataset, released: pd.DataFrame) -> ReleasedCodes:
        """The codes of ``released``'s quasi-identifiers."""
        codes, texts = {}, {}
        for q in dataset.quasi:
            codes[q], texts[q] = text_codes(released[q], _marker(dataset, q))
        return cls(codes, texts, len(released))

    def all_star(self) -> NDArray[np.bool_]:
        """Rows whose released quasi-identifiers are all ``*``."""
        mask = np.ones(self.n_rows, dtype=np.bool_)
        for q, codes in self.codes.items():
            mask &= np.asarray(self.texts[q] == SUPPRESSED, dtype=np.bool_)[codes]
        return mask

    def classes(self) -> NDArray[np.int64]:
        """Each row's class: rows with the same released quasi-identifiers share one (numbered 0..c-1)."""
        keys = np.zeros(self.n_rows, dtype=np.int64)
        space = 1
        for q, codes in self.codes.items():
            radix = max(len(self.texts[q]), 1)
            if space * radix >= 2**62:
                keys = pd.factorize(keys)[0].astype(np.int64)
                space = int(keys.max()) + 1 if len(keys) else 1
            keys = keys * radix + codes
            space *= radix
        return np.asarray(pd.factorize(keys)[0], dtype=np.int64)


def check_alignment(dataset: Dataset, released: ReleasedCodes) -> Alignment:
    """Establish whether the released rows are the input's records in the input's order."""
    if released.n_rows != dataset.n_rows:
        return Alignment(False, reason=f"the release has {released.n_rows:,} records and the input {dataset.n_rows:,}"
                                       " (suppressed records left out), so its rows cannot be matched to the input's")
    ok = np.ones(released.n_rows, dtype=np.bool_)
    for q in dataset.quasi:
        ok &= _generalizes(dataset, q, released.codes[q], released.texts[q])
    if ok.all():
        return Alignment(True)
    first = int(np.argmin(ok))
    column = next(q for q in dataset.quasi
                  if not _generalizes(dataset, q, released.codes[q][first:first + 1], released.texts[q], first)[0])
    misaligned = int((~ok).sum())
    return Alignment(False, misaligned, first, column,
                     f"{misaligned:,} released rows are not a generalization of the input record at the same position"
                     f" (the first: row {first + 1:,}, {column!r}), so the rows are not in the input's order")


def all_star_rows(released: pd.DataFrame, quasi: tuple[str, ...]) -> NDArray[np.bool_]:
    """Rows of ``released`` whose quasi-identifiers are all ``*`` (without reading the columns' distinct texts)."""
    mask = np.ones(len(released), dtype=np.bool_)
    for q in quasi:
        column = released[q]
        if isinstance(column.dtype, pd.CategoricalDtype):
            star = np.asarray(column.cat.categories.astype(str) == SUPPRESSED)
            codes = column.cat.codes.to_numpy()
            mask &= np.where(codes >= 0, star[np.maximum(codes, 0)], False)
        else:
            mask &= np.asarray(column.to_numpy(dtype=object) == SUPPRESSED, dtype=np.bool_)
    return mask


def released_levels(dataset: Dataset, released: ReleasedCodes, suppressed: NDArray[np.bool_],
                    aligned: bool) -> dict[str, tuple[int, ...]]:
    """Per quasi-identifier, the hierarchy levels its released values can be (empty: none, or no hierarchy).

    A level qualifies when every released value of a record not in
    ``suppressed`` is its label at that level: checked record by record when
    the rows are ``aligned``; otherwise each label must be one of the
    level's and be held by no more released records than input records have
    it at that level.
    """
    out: dict[str, tuple[int, ...]] = {}
    kept = ~suppressed
    for q in dataset.quasi:
        h = dataset.hierarchy(q)
        if h is None:
            out[q] = ()
            continue
        codes, texts = released.codes[q], released.texts[q]
        index = pd.Index(texts)
        leaf = dataset.encoded[q].row_codes()
        found = []
        if aligned:
            codes_kept, leaf_kept = codes[kept], leaf[kept]
            for level in range(h.n_levels):
                node_text = index.get_indexer(_texts(h.labels[level]))
                if np.array_equal(node_text[h.maps[level][leaf_kept]], codes_kept):
                    found.append(level)
        else:
            released_counts = np.bincount(codes[kept], minlength=len(texts))
            for level in range(h.n_levels):
                node_text = index.get_indexer(_texts(h.labels[level]))
                nodes = np.bincount(h.maps[level][leaf], minlength=h.size(level))
                present = node_text >= 0
                input_counts = np.bincount(node_text[present], weights=nodes[present], minlength=len(texts))
                if np.all(released_counts <= input_counts):
                    found.append(level)
        out[q] = tuple(found)
    return out


def _released_classes(released: ReleasedCodes, suppressed: NDArray[np.bool_] | None) -> tuple[
        NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], int]:
    """The groups of identical released quasi-identifiers (``suppressed`` rows in none): each row's class
    (−1: none), the classes' sizes, each class's first row, and the rows kept."""
    row_class = released.classes()
    if suppressed is not None and suppressed.any():
        row_class = np.where(suppressed, -1, row_class)
    kept_rows = np.flatnonzero(row_class >= 0)
    used, row_class_kept = np.unique(row_class[kept_rows], return_inverse=True)
    row_class = np.full(len(row_class), -1, dtype=np.int64)
    row_class[kept_rows] = row_class_kept
    sizes = np.bincount(row_class_kept, minlength=len(used)).astype(np.int64)
    first = np.full(len(used), -1, dtype=np.int64)
    first[row_class_kept[::-1]] = kept_rows[::-1]
    return row_class, sizes, first, len(kept_rows)


def partition_of_blanked_release(dataset: Dataset, released: ReleasedCodes, suppressed: NDArray[np.bool_] | None,
                                 aligned: bool) -> Partition | None:
    """The partition of a release whose ``*`` are blanked values (local suppression), or None when a value is unknown.

    The classes are the groups of identical released quasi-identifiers (the
    records in ``suppressed`` left out); a class's value is its leaf (the
    input's value, as written) or the top level where it shows ``*``, as the
    run that blanked them builds it.  ``row_class`` is set only for
    ``aligned`` rows.
    """
    row_class, sizes, first, kept = _released_classes(released, suppressed)
    values: dict[str, GeneralizedValues] = {}
    for q in dataset.quasi:
        h = dataset.hierarchy(q)
        if h is None:
            return None
        texts = pd.Series(released.texts[q][released.codes[q][first]], dtype=object).astype(str)
        blank = (texts == SUPPRESSED).to_numpy()
        codes = texts.map(dataset.value_codes(q)).to_numpy(dtype=np.float64)
        if np.isnan(codes[~blank]).any():
            return None
        codes = np.where(blank, 0, np.nan_to_num(codes)).astype(np.int64)
        values[q] = HierarchyNodes(np.where(blank, h.max_level, 0).astype(np.int16),
                                   np.where(blank, h.maps[h.max_level][0], codes).astype(np.int32))
    return Partition(values=values, sizes=sizes, n_suppressed=dataset.n_rows - kept,
                     row_class=row_class if aligned else None, blanks_match_any=True)


def partition_of_release(dataset: Dataset, released: ReleasedCodes, levels: Mapping[str, int] | None,
                         suppressed: NDArray[np.bool_] | None, aligned: bool) -> Partition | None:
    """The partition the released values show, each class's values read from its labels (None when one is unreadable).

    The classes are the groups of identical released quasi-identifiers, the
    records in ``suppressed`` left out (and, in the count of suppressed
    records, every input record the release lacks).  A class's value is the
    node its label names (at ``levels`` for a full-domain release, else the
    lowest level with that label), or for an attribute compared by value
    the range the label writes (``*``: the whole domain).  ``row_class`` is
    set only for ``aligned`` rows: otherwise nothing says which input
    record is in which class.
    """
    row_class, sizes, first, kept = _released_classes(released, suppressed)
    values: dict[str, GeneralizedValues] = {}
    for q in dataset.quasi:
        value = _class_values(dataset, q, released.texts[q], released.codes[q][first],
                              None if levels is None else int(levels[q]))
        if value is None:
            return None
        values[q] = value
    return Partition(values=values, sizes=sizes, n_suppressed=dataset.n_rows - kept,
                     row_class=row_class if aligned else None)


def _class_values(dataset: Dataset, q: str, texts: NDArray[np.object_], class_text: NDArray[np.int64],
                  level: int | None) -> GeneralizedValues | None:
    """Each class's generalized value of ``q``, from the text of its label (None when a label names none)."""
    h = dataset.hierarchy(q)
    if level is not None:
        if h is None:
            return None
        node = _lookup(h.labels[level], texts)[class_text]
        if (node < 0).any():
            return None
        return HierarchyNodes(np.full(len(class_text), level, dtype=np.int16), node.astype(np.int32))
    if row_values(dataset, q) is not None:
        lo, hi = _ranges(dataset, q, texts)
        numbers = np.asarray(dataset.encoded[q].numbers, dtype=np.float64)
        finite = numbers[np.isfinite(numbers)]
        star = texts == SUPPRESSED
        if len(finite):
            lo[star], hi[star] = finite.min(), finite.max()
        lo, hi = lo[class_text], hi[class_text]
        if np.isnan(lo).any() or np.isnan(hi).any():
            return None
        return Intervals(lo, hi)
    if h is None:
        return None
    node_level = np.full(len(texts), -1, dtype=np.int16)
    node_code = np.full(len(texts), -1, dtype=np.int64)
    for at in range(h.n_levels):
        found = _lookup(h.labels[at], texts)
        fresh = (found >= 0) & (node_level < 0)
        node_level[fresh], node_code[fresh] = at, found[fresh]
    if (node_level[class_text] < 0).any():
        return None
    return HierarchyNodes(node_level[class_text], node_code[class_text].astype(np.int32))


def _generalizes(dataset: Dataset, q: str, codes: NDArray[np.int64], texts: NDArray[np.object_],
                 offset: int = 0) -> NDArray[np.bool_]:
    """Per released row (codes into ``texts``; input rows ``offset ...``): does its value generalize the input's?"""
    ok: NDArray[np.bool_] = np.asarray(texts == SUPPRESSED, dtype=np.bool_)[codes]
    leaf = dataset.encoded[q].row_codes()[offset:offset + len(codes)]
    h = dataset.hierarchy(q)
    if h is not None:
        index = pd.Index(texts)
        for level in range(h.n_levels):
            node_text = index.get_indexer(_texts(h.labels[level]))
            ok |= node_text[h.maps[level][leaf]] == codes
    numbers = dataset.encoded[q].numbers
    if dataset.specs[q].type in BY_VALUE_TYPES and numbers is not None:
        lo, hi = _ranges(dataset, q, texts)
        x = np.asarray(numbers, dtype=np.float64)[leaf]
        ok |= (lo[codes] <= x) & (x <= hi[codes])
    return ok


def _ranges(dataset: Dataset, q: str, texts: NDArray[np.object_]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The ``[lo, hi]`` each released text writes, in the attribute's numbers (NaN where it writes none).

    Numbers read ``20``, ``20-39`` or ``[0.5, 2]``; dates and ordinal values
    ``first..last`` or one value, each a value of the input (its day number
    or its rank).
    """
    text = pd.Series(texts, dtype=object).astype(str)
    numbers = np.asarray(dataset.encoded[q].numbers, dtype=np.float64)
    if dataset.specs[q].type is AttributeType.NUMERIC:
        lo = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
        hi = lo.copy()
        for pattern in (_DASH_RANGE, _BRACKET_RANGE):
            bounds = text.str.extract(pattern)
            a = pd.to_numeric(bounds[0], errors="coerce").to_numpy(dtype=np.float64)
            b = pd.to_numeric(bounds[1], errors="coerce").to_numpy(dtype=np.float64)
            both = ~np.isnan(a) & ~np.isnan(b)
            lo[both], hi[both] = a[both], b[both]
    else:
        h = dataset.require_hierarchy(q)
        leaves = _texts(h.labels[0])
        number_of = pd.Series(numbers[: len(leaves)], index=leaves)
        number_of = number_of[~number_of.index.duplicated()]
        parts = text.str.partition("..")
        ranged = (parts[1] == "..").to_numpy()
        first = number_of.reindex(np.where(ranged, parts[0], text)).to_numpy(dtype=np.float64)
        last = number_of.reindex(np.where(ranged, parts[2], text)).to_numpy(dtype=np.float64)
        lo, hi = first, last
    finite = np.isfinite(lo) & np.isfinite(hi)
    return np.where(finite, lo, np.nan), np.where(finite, hi, np.nan)


def _lookup(labels: NDArray[np.object_], texts: NDArray[np.object_]) -> NDArray[np.int64]:
    """The code of each text among ``labels`` (the first when a label repeats), −1 where it is none."""
    index = pd.Index(_texts(labels))
    if index.is_unique:
        return np.asarray(index.get_indexer(texts), dtype=np.int64)
    keep = ~index.duplicated()
    positions = np.flatnonzero(keep)
    found = pd.Index(index[keep]).get_indexer(texts)
    return np.where(found >= 0, positions[np.maximum(found, 0)], -1).astype(np.int64)


def _texts(labels: NDArray[np.object_]) -> NDArray[np.object_]:
    """Hierarchy labels as an object array of str."""
    return np.asarray(labels, dtype=object).astype(str).astype(object)


def _marker(dataset: Dataset, q: str) -> str:
    """The text a missing released value reads as: the column's first missing marker, as the input reads it."""
    missing = dataset.specs[q].missing
    return str(missing[0]) if missing else ""
