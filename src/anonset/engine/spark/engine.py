"""The Spark engine: one GROUP BY on the cluster, then every node rolled up on the driver.

A Spark job costs about a second whatever it does, so the engine never runs
one per lattice node.  :func:`anonset.engine.spark.source.count_frame` groups
the table once by its quasi-identifiers (with per class the count, one count
per sensitive value and the sums of numeric sensitive attributes); that
bottom class table (one row per distinct combination of values, never a
record) is all the engine needs: a
:class:`~anonset.engine.numpy.engine.NumpyEngine` built on it rolls every
other node up locally.  The statistics equal the numpy engine's.  Counted at
the quasi-identifiers' minimum generalization (``count_frame(...,
at_floor=True)``), the bottom class table is at those levels.

The records stay on the cluster: :meth:`SparkEngine.row_classes` refuses, and
a release is written there by :class:`~anonset.sinks.spark.SparkSink`.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Self

import numpy as np

from anonset.core.stats import ClassStats, StatsRequest
from anonset.engine.numpy.engine import NumpyEngine
from anonset.engine.spark.source import SparkCounts
from anonset.errors import DataError

if TYPE_CHECKING:
    from numpy.typing import NDArray
    from pyspark.sql import DataFrame

__all__ = ["SparkEngine"]


class SparkEngine:
    """Class statistics of full-domain nodes of a table on Spark (one job, then local roll-ups).

    Parameters
    ----------
    counts : SparkCounts
        The table's dataset and bottom class table
        (:func:`anonset.engine.spark.source.count_frame`), counted with ``request``.
    request : StatsRequest
        Sensitive statistics to carry per class.
    frame : pyspark.sql.DataFrame
        The table, as :func:`~anonset.engine.spark.source.read_frame` reads it.
    cache_cells : int
        Budget of the local roll-up cache (see :class:`NumpyEngine`).
    source : str
        How messages and the provenance name the table (its path or catalog name).
    output_delimiter : str
        The field separator of a CSV release written by the engine's sink.
    """

    name = "spark"

    def __init__(self, counts: SparkCounts, request: StatsRequest | None, frame: DataFrame, *,
                 cache_cells: int = 20_000_000, source: str = "", output_delimiter: str = ",") -> None:
        self.dataset = counts.dataset
        self.request = request or StatsRequest()
        self.frame = frame
        self.source = source or self.dataset.source
        self.output_delimiter = output_delimiter
        self._rows_fetched = counts.bottom.n_classes
        self._local = NumpyEngine(self.dataset, self.request, cache_cells, bottom=counts.bottom,
                                  floor=counts.bottom.levels)
        self._closed = False

    @property
    def rows_read(self) -> int:
        """Rows Spark read for the class tables (one pass)."""
        return self.dataset.n_rows

    @property
    def nodes_computed(self) -> int:
        """Class tables rolled up on the driver so far."""
        return self._local.nodes_computed

    @property
    def rows_fetched(self) -> int:
        """Rows that came from Spark to the driver for the search: the bottom class table's."""
        return self._rows_fetched

    @property
    def bottom_levels(self) -> tuple[int, ...]:
        """The levels Spark counted the most specific class table at (the floor, when counted at it)."""
        return self._local.bottom_levels

    @property
    def bottom(self) -> ClassStats:
        """Class statistics of the most specific node, as Spark counted them."""
        return self._local.bottom

    def class_stats(self, levels: tuple[int, ...]) -> ClassStats:
        """Class statistics of node ``levels`` (rolled up on the driver)."""
        return self._local.class_stats(levels)

    def small_class_rows(self, levels: tuple[int, ...], k: int) -> int:
        """Records in classes smaller than ``k`` at node ``levels``."""
        return self._local.small_class_rows(levels, k)

    def row_classes(self, levels: tuple[int, ...]) -> tuple[NDArray[np.int64], ClassStats]:
        """Refused: the records are on Spark, and a release of them is written there."""
        if self._closed:
            raise RuntimeError("the Spark engine is closed; build another one")
        raise DataError(f"{self.source}: the records stay on Spark; they are released in Spark by the engine's"
                        " sink, never assigned to classes on the driver")

    def close(self) -> None:
        """Drop the local class tables (the Spark session belongs to the caller)."""
        self._closed = True
        self._local.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


if TYPE_CHECKING:  # mypy checks that the class implements the protocol
    from anonset.engine.base import Engine

    _IS_AN_ENGINE: type[Engine] = SparkEngine
