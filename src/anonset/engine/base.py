"""The engine contract: what search methods ask of an engine (``StatsRequest`` in, ``ClassStats`` out).

Everything a caller needs to know about an engine is in the protocol: its
``name`` for reports, the ``dataset`` and ``request`` it was built for, the
statistics themselves, counters of the work done (``rows_read``,
``nodes_computed``, ``rows_fetched``) and ``close``; engines are also context
managers that close on exit.  Nothing needs to probe an engine's type.

The statistics types themselves live in :mod:`anonset.core.stats`; the numpy
engine (:mod:`anonset.engine.numpy`) is the reference implementation and the
SQL engine (:mod:`anonset.engine.sql`) must return identical statistics.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.hierarchy import Hierarchy
from anonset.core.stats import ClassStats, StatsRequest

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Engine", "floor_levels"]


class Engine(Protocol):
    """What search methods (and the Anonymizer) ask of an engine.

    After :meth:`close` the statistics methods raise ``RuntimeError``; the
    counters and the descriptive members stay readable.
    """

    @property
    def name(self) -> str:
        """What computes the statistics, for reports: ``numpy``, ``duckdb`` or ``postgresql``."""
        ...

    @property
    def dataset(self) -> Dataset:
        """The dataset the engine was built for (its value codes define the statistics' keys)."""
        ...

    @property
    def request(self) -> StatsRequest:
        """The sensitive statistics the engine was built to carry per class."""
        ...

    @property
    def bottom_levels(self) -> tuple[int, ...]:
        """The levels the engine counted its most specific class table at: the original values (all 0), or the
        dataset's minimum generalization (``min_level``) for an engine built with ``floor=``; no node below
        them can be asked for."""
        ...

    def class_stats(self, levels: tuple[int, ...]) -> ClassStats:
        """Class statistics of the full-domain node ``levels`` (at or above :attr:`bottom_levels`)."""
        ...

    def row_classes(self, levels: tuple[int, ...]) -> tuple[NDArray[np.int64], ClassStats]:
        """Row -> class index of node ``levels`` (into the returned stats), and the stats."""
        ...

    def small_class_rows(self, levels: tuple[int, ...], k: int) -> int:
        """Records in classes smaller than ``k`` at node ``levels`` (a database engine fetches one number)."""
        ...

    @property
    def rows_read(self) -> int:
        """Records the engine has read or fetched so far (for reports and transfer tests)."""
        ...

    @property
    def nodes_computed(self) -> int:
        """Class tables (frequency sets) computed so far."""
        ...

    @property
    def rows_fetched(self) -> int | None:
        """Result rows fetched from a database into Python so far; None for an in-memory engine."""
        ...

    def close(self) -> None:
        """Release what the engine holds (caches, temporary tables); calling it again does nothing."""
        ...

    def __enter__(self) -> Self:
        """The engine itself."""
        ...

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        """:meth:`close`."""
        ...


def floor_levels(hierarchies: Sequence[Hierarchy], quasi: Sequence[str],
                 floor: Sequence[int] | None) -> tuple[int, ...]:
    """``floor`` as a node (all 0 when None); a ValueError unless each is a level of its hierarchy."""
    if floor is None:
        return tuple(0 for _ in hierarchies)
    out = tuple(int(v) for v in floor)
    if len(out) != len(hierarchies):
        raise ValueError(f"floor {out} gives {len(out)} levels for {len(hierarchies)} quasi-identifiers")
    for q, h, level in zip(quasi, hierarchies, out, strict=True):
        if not 0 <= level <= h.max_level:
            raise ValueError(f"floor level {level} of {q!r} is not a level of its hierarchy (0 to {h.max_level})")
    return out
