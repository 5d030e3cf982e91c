"""The engine contract: what search methods ask of an engine (``StatsRequest`` in, ``ClassStats`` out).

The statistics types themselves live in :mod:`anonset.core.stats`; the numpy
engine (:mod:`anonset.engine.numpy`) is the reference implementation and the
SQL engine (:mod:`anonset.engine.sql`) must return identical statistics.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.stats import ClassStats

__all__ = ["Engine"]


class Engine(Protocol):
    """What search methods ask of an engine."""

    dataset: Dataset

    def class_stats(self, levels: tuple[int, ...]) -> ClassStats:
        """Class statistics of the full-domain node ``levels``."""
        ...

    def row_classes(self, levels: tuple[int, ...]) -> tuple[np.ndarray, ClassStats]:
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
