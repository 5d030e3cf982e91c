"""The reference engine: numpy group-bys with a bounded roll-up cache.

The rows are read once, for the most specific node (every quasi-identifier at
its leaf level).  Any other node is computed by *rolling up* the class table
of a cached, less general node: map each key column to the coarser level,
group the (much smaller) class table and sum the statistics.  The cache keeps
the class tables of recently computed nodes up to a budget of cells; the
source of a roll-up is the cached node below the target with the fewest
classes.  When that is the bottom node, the roll-up goes through the node's
*hub* (one level up wherever the node is above the bottom), computed once and
cached, since many nodes share a hub whose table is several times smaller.
:meth:`NumpyEngine.close` drops the class tables (the engine holds nothing
else); it is also a context manager.

An engine whose records are elsewhere (a Spark cluster) hands the numpy
engine the bottom class table it counted there (``bottom=``): the search then
rolls up locally from it, and only :meth:`NumpyEngine.row_classes`, which
needs the records, is unavailable.

Built with ``floor=`` (the dataset's minimum generalization, ``min_level``),
the engine counts its most specific class table at those levels instead of
the original values: fewer classes when a quasi-identifier is near-unique,
and no node below the floor can be asked for.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Self, cast

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.hierarchy import Hierarchy
from anonset.core.stats import ClassStats, StatsRequest, aggregate, stats_from_assignment
from anonset.engine.base import floor_levels
from anonset.engine.numpy.kernels import hash_groups, rollup_group, sum_rows_into
from anonset.errors import DataError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["NumpyEngine", "group_rows", "leaf_combinations"]

# the key under which a dataset's cache points (weakly) at a live engine's grouping of the records by leaf codes
_LEAF_GROUPING = "numpy engine: records by leaf combination"


class NumpyEngine:
    """Compute class statistics of full-domain nodes in memory.

    Parameters
    ----------
    dataset : Dataset
        The data; every quasi-identifier must have a hierarchy.
    request : StatsRequest
        Sensitive statistics to carry per class.
    cache_cells : int
        Budget of the roll-up cache, in class-table cells (classes times
        columns summed over cached nodes).  The bottom node is always kept.
    bottom : ClassStats, optional
        The class table of the most specific node, counted elsewhere (keys
        are codes at ``floor``'s levels, the statistics of ``request``); the
        dataset's records are then not read, and may be absent (a dataset
        built from a profile).
    floor : sequence of int, optional
        The levels to count the most specific class table at (each
        quasi-identifier's minimum generalization); the original values
        (all 0) by default.

    Attributes
    ----------
    name : str
        ``"numpy"``.
    rows_fetched : None
        No database: nothing is fetched.
    """

    name = "numpy"
    rows_fetched: int | None = None

    def __init__(self, dataset: Dataset, request: StatsRequest | None = None, cache_cells: int = 20_000_000, *,
                 bottom: ClassStats | None = None, floor: Sequence[int] | None = None):
        self.dataset = dataset
        self.request = request or StatsRequest()
        self.hierarchies = dataset.hierarchies
        self.cache_cells = cache_cells
        self._cache: OrderedDict[tuple[int, ...], ClassStats] = OrderedDict()
        self._cells = 0
        self._rows_read = 0
        self._nodes_computed = 0
        bottom_levels = floor_levels(self.hierarchies, dataset.quasi, floor)
        self._row_to_bottom: NDArray[np.int64] | None = None
        if bottom is None:
            keys, inverse = group_rows(dataset, bottom_levels)
            self._row_to_bottom = inverse
            if not any(bottom_levels):  # shared with whoever groups the records by leaf codes while this lives
                dataset.cache[_LEAF_GROUPING] = weakref.ref(inverse)
            self._rows_read += dataset.n_rows
            bottom = stats_from_assignment(dataset, inverse, self.request, keys=keys)
        else:
            _check_bottom(bottom, dataset, self.request, bottom_levels)
        self._bottom = ClassStats(bottom.sizes, bottom.keys, bottom.histograms, bottom.sums, bottom.sumsq,
                                  bottom_levels)
        self._bottom_levels = bottom_levels
        self._maps_flat, self._map_offset = _flatten_parent_maps(self.hierarchies)
        self._slot_levels = np.zeros((64, len(self.hierarchies)), dtype=np.int64)
        self._slot_classes = np.zeros(64, dtype=np.int64)
        self._slots_used = 0
        self._slot_of: dict[tuple[int, ...], int] = {}
        height = max((h.n_levels for h in self.hierarchies), default=1)
        self._dims = np.arange(len(self.hierarchies))
        self._radix = np.ones((len(self.hierarchies), height), dtype=np.int64)
        for j, h in enumerate(self.hierarchies):
            self._radix[j, :h.n_levels] = [h.size(level) for level in range(h.n_levels)]
        self._closed = False
        self._rows_dropped = False

    @property
    def rows_read(self) -> int:
        """Rows read from the data so far (one pass at construction)."""
        return self._rows_read

    @property
    def nodes_computed(self) -> int:
        """Class tables computed by roll-up so far (cache hits not counted)."""
        return self._nodes_computed

    @property
    def bottom(self) -> ClassStats:
        """Class statistics of the most specific node."""
        self._check_open()
        return self._bottom

    @property
    def bottom_levels(self) -> tuple[int, ...]:
        """The levels of the most specific node: all 0, or the floor the engine was built with."""
        return self._bottom_levels

    def close(self) -> None:
        """Drop the cached class tables and the bottom node; the statistics methods then raise."""
        self._closed = True
        self._cache.clear()
        self._cells = 0
        self._slot_of.clear()
        self._slots_used = 0
        self._bottom = _EMPTY
        self._row_to_bottom = None

    def drop_rows(self) -> None:
        """Give back the records' bottom classes and the cached node tables once no record needs a class.

        Class statistics still roll up from the bottom node (the models that
        bind a useless release are found that way); :meth:`row_classes`
        then raises.  At ten million records this gives back about 150 MB
        before a release is rendered and re-checked.
        """
        self._rows_dropped = True
        self._row_to_bottom = None
        self._cache.clear()
        self._cells = 0
        self._slot_of.clear()
        self._slots_used = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def class_stats(self, levels: tuple[int, ...]) -> ClassStats:
        """Class statistics of node ``levels`` (rolled up from the best cached node)."""
        self._check_open()
        levels = self._above_floor(levels)
        if levels == self._bottom_levels:
            return self._bottom
        hit = self._cache.get(levels)
        if hit is not None:
            self._cache.move_to_end(levels)
            return hit
        source = self._best_source(levels)
        if source is self._bottom:
            source = self._hub(levels)
        stats, _ = self._rollup(source, levels)
        self._nodes_computed += 1
        self._store(levels, stats)
        return stats

    def small_class_rows(self, levels: tuple[int, ...], k: int) -> int:
        """Records in classes smaller than ``k`` at node ``levels``."""
        sizes = self.class_stats(levels).sizes
        return int(sizes[sizes < k].sum())

    def row_classes(self, levels: tuple[int, ...]) -> tuple[NDArray[np.int64], ClassStats]:
        """Row -> class index for node ``levels`` and the node's class statistics."""
        self._check_open()
        if self._rows_dropped:
            raise RuntimeError("the numpy engine gave its records' classes back (drop_rows); build another one")
        if self._row_to_bottom is None:
            raise DataError(f"{self.dataset.source}: the class table was counted where the records are; the rows"
                            " are not here to be assigned to classes (a release is written where the records are)")
        levels = self._above_floor(levels)
        stats, inverse = self._rollup(self._bottom, levels)
        return inverse[self._row_to_bottom], stats

    # ---------------------------------------------------------------- internals
    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the numpy engine is closed; build another one")

    def _above_floor(self, levels: tuple[int, ...]) -> tuple[int, ...]:
        out = tuple(int(v) for v in levels)
        if len(out) == len(self._bottom_levels) and any(v < f for v, f in zip(out, self._bottom_levels, strict=True)):
            raise ValueError(f"node {out} lies below the levels the engine counted its classes at"
                             f" ({self._bottom_levels}, the minimum generalization)")
        return out

    def _best_source(self, levels: tuple[int, ...]) -> ClassStats:
        """The cached node below ``levels`` with the fewest classes (direct children looked up first)."""
        best = self._bottom
        for j, level in enumerate(levels):
            if level == self._bottom_levels[j]:
                continue
            child = self._cache.get(levels[:j] + (level - 1,) + levels[j + 1:])
            if child is not None and child.n_classes < best.n_classes:
                best = child
        if best is not self._bottom:
            return best
        n = self._slots_used
        if n:
            below = np.all(self._slot_levels[:n] <= np.asarray(levels), axis=1)
            sizes = np.where(below, self._slot_classes[:n], _NO_SOURCE)
            i = int(np.argmin(sizes))
            if sizes[i] < self._bottom.n_classes:
                return self._cache[tuple(int(v) for v in self._slot_levels[i])]
        return self._bottom

    def _hub(self, levels: tuple[int, ...]) -> ClassStats:
        """The node one level up from the bottom wherever ``levels`` is above it, computed once and cached.

        Rolling up from the bottom node reads its every class; many nodes
        share the same hub, whose class table is several times smaller, so
        each roll-up after the first reads the hub instead.
        """
        hub = tuple(min(level, floor + 1) for level, floor in zip(levels, self._bottom_levels, strict=True))
        if hub == levels or hub == self._bottom_levels:
            return self._bottom
        cached = self._cache.get(hub)
        if cached is None:
            cached, _ = self._rollup(self._bottom, hub)
            self._nodes_computed += 1
            self._store(hub, cached)
        return cached

    def _rollup(self, source: ClassStats, levels: tuple[int, ...]) -> tuple[ClassStats, NDArray[np.int64]]:
        src_levels = source.levels
        assert src_levels is not None
        d = len(levels)
        if d == 0:
            inverse = np.zeros(source.n_classes, dtype=np.int64)
            return aggregate(inverse, 1, source, np.zeros((1, 0), dtype=np.int32), levels), inverse
        offsets = self._map_offset[self._dims, src_levels, levels]
        radix = self._radix[self._dims, levels]
        names = list(source.histograms)
        first = source.histograms[names[0]] if names else np.zeros((source.n_classes, 0), dtype=np.int64)
        keys, inverse, sizes, summed = rollup_group(source.keys, self._maps_flat, offsets, radix, source.sizes, first)
        histograms = {a: sum_rows_into(inverse, len(sizes), source.histograms[a]) for a in names[1:]}
        if names:
            histograms[names[0]] = summed
        stats = ClassStats(
            sizes=sizes,
            keys=keys,
            histograms={a: histograms[a] for a in names},
            # a weighted bincount is float64 (numpy's stubs type every bincount as intp)
            sums={a: cast("NDArray[np.float64]", np.bincount(inverse, weights=s, minlength=len(sizes)))
                  for a, s in source.sums.items()},
            sumsq={a: cast("NDArray[np.float64]", np.bincount(inverse, weights=s, minlength=len(sizes)))
                   for a, s in source.sumsq.items()},
            levels=levels,
        )
        return stats, inverse

    def _store(self, levels: tuple[int, ...], stats: ClassStats) -> None:
        self._cache[levels] = stats
        self._cells += stats.n_classes * _width(stats)
        self._append_slot(levels, stats.n_classes)
        while self._cells > self.cache_cells and len(self._cache) > 1:
            old_levels, old = self._cache.popitem(last=False)
            self._cells -= old.n_classes * _width(old)
            self._slot_classes[self._slot_of.pop(old_levels)] = _NO_SOURCE
        if self._slots_used > 2 * len(self._cache) + 64:
            self._compact_slots()

    def _append_slot(self, levels: tuple[int, ...], n_classes: int) -> None:
        if self._slots_used == len(self._slot_classes):
            grow = 2 * len(self._slot_classes)
            self._slot_levels = np.resize(self._slot_levels, (grow, self._slot_levels.shape[1]))
            self._slot_classes = np.resize(self._slot_classes, grow)
        self._slot_levels[self._slots_used] = levels
        self._slot_classes[self._slots_used] = n_classes
        self._slot_of[levels] = self._slots_used
        self._slots_used += 1

    def _compact_slots(self) -> None:
        self._slots_used = 0
        self._slot_of = {}
        for lv, st in self._cache.items():
            self._append_slot(lv, st.n_classes)


_NO_SOURCE = np.iinfo(np.int64).max
#: What a closed engine keeps in place of its bottom node.
_EMPTY = ClassStats(np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.int32), {}, {}, {}, ())


def _width(stats: ClassStats) -> int:
    """Cells per class of a class table (keys, size, histograms, moments)."""
    return stats.keys.shape[1] + 1 + sum(h.shape[1] for h in stats.histograms.values()) + 2 * len(stats.sums)


def _flatten_parent_maps(hierarchies: tuple[Hierarchy, ...]) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
    """All parent maps of all hierarchies in one int32 array, with offsets ``[attr, from, to]`` (−1 if to < from)."""
    height = max((h.n_levels for h in hierarchies), default=1)
    offsets = np.full((len(hierarchies), height, height), -1, dtype=np.int64)
    chunks: list[NDArray[np.int32]] = []
    pos = 0
    for j, h in enumerate(hierarchies):
        for a in range(h.n_levels):
            for b in range(a, h.n_levels):
                m = h.parent_map(a, b)
                chunks.append(m)
                offsets[j, a, b] = pos
                pos += len(m)
    flat = np.concatenate(chunks).astype(np.int32) if chunks else np.zeros(0, dtype=np.int32)
    return flat, offsets


def _check_bottom(bottom: ClassStats, dataset: Dataset, request: StatsRequest, levels: tuple[int, ...]) -> None:
    """A ValueError unless ``bottom`` is the class table of ``dataset`` at ``levels`` carrying ``request``'s
    statistics."""
    d = len(dataset.quasi)
    if bottom.keys.ndim != 2 or bottom.keys.shape[1] != d:
        raise ValueError(f"the bottom class table has {bottom.keys.shape} keys; one code per quasi-identifier"
                         f" ({d}) per class is needed")
    if bottom.levels is not None and tuple(bottom.levels) != levels:
        raise ValueError(f"the bottom class table was counted at levels {tuple(bottom.levels)}; the engine's"
                         f" floor is {levels}")
    if int(bottom.sizes.sum()) != dataset.n_rows:
        raise ValueError(f"the bottom class table counts {int(bottom.sizes.sum())} records; the dataset has"
                         f" {dataset.n_rows}")
    missing = (set(request.histograms) - set(bottom.histograms)) | (set(request.moments) - set(bottom.sums))
    if missing:
        raise ValueError(f"the bottom class table lacks the statistics of {sorted(missing)}")
    for j, h in enumerate(dataset.hierarchies):
        column, size = bottom.keys[:, j], h.size(levels[j])
        if len(column) and (int(column.min()) < 0 or int(column.max()) >= size):
            raise ValueError(f"codes of {dataset.quasi[j]!r} outside 0..{size - 1}")


def group_rows(dataset: Dataset, levels: Sequence[int]) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
    """The distinct combinations of the records' quasi-identifier codes at ``levels`` (first seen first), and each
    record's combination: the one pass over the records.

    The codes are read a column at a time into one 64-bit key per record
    (mixed radix, as :func:`~anonset.engine.numpy.kernels.group_keys` packs
    them) and grouped by the hash kernel, so no matrix of every record's
    codes is built; a code space beyond 62 bits falls back to sorting rows.
    """
    n, d = dataset.n_rows, len(dataset.quasi)
    if d == 0:
        return np.zeros((1 if n else 0, 0), dtype=np.int32), np.zeros(n, dtype=np.int64)
    # a quasi-identifier without a hierarchy (a number Mondrian cuts) is grouped on its codes, at level 0
    maps = [dataset.require_hierarchy(q).maps[level] if level else None for q, level in zip(dataset.quasi, levels,
                                                                                             strict=True)]

    def column(j: int, rows: NDArray[np.int64] | None = None) -> NDArray[np.int32]:
        codes = dataset.encoded[dataset.quasi[j]].row_codes()
        codes = codes if rows is None else codes[rows]
        level_map = maps[j]
        return codes if level_map is None else level_map[codes]

    radix = [max(dataset.encoded[q].n_categories if m is None else int(m.max()) + 1, 1)
             for q, m in zip(dataset.quasi, maps, strict=True)]
    if float(np.prod(np.asarray(radix, dtype=np.float64))) >= 2.0**62:
        keys, inverse = np.unique(np.column_stack([column(j) for j in range(d)]), axis=0, return_inverse=True)
        return keys.astype(np.int32), inverse.reshape(-1).astype(np.int64)
    key = np.zeros(n, dtype=np.int64)
    for j in range(d):
        key *= radix[j]
        key += column(j)
    inverse, first = hash_groups(key)
    del key
    keys = np.empty((len(first), d), dtype=np.int32)
    for j in range(d):
        keys[:, j] = column(j, first)
    return keys, inverse


def leaf_combinations(dataset: Dataset) -> NDArray[np.int64]:
    """Each record's combination of quasi-identifier leaf codes, numbered first seen first
    (:func:`group_rows` at level 0 everywhere).

    A numpy engine counted at the leaves has grouped the records so already:
    while it lives its grouping is returned, not made again (a weak reference
    in the dataset's cache, so that the dataset keeps none of it).
    """
    ref = dataset.cache.get(_LEAF_GROUPING)
    held = ref() if ref is not None else None
    if held is not None:
        return cast("NDArray[np.int64]", held)
    return group_rows(dataset, tuple(0 for _ in dataset.quasi))[1]


if TYPE_CHECKING:  # mypy checks that the class implements the protocol
    from anonset.engine.base import Engine

    _IS_AN_ENGINE: type[Engine] = NumpyEngine
