"""One fragment of distributed Mondrian on a worker: its release, and partial sums of the release's metrics.

:class:`FragmentJob` is what ``applyInPandas`` calls with the records of one
fragment (a pandas DataFrame of text columns, named by position:
:meth:`FragmentJob.keys`, since pyspark names them unquoted).  It builds the fragment's
:class:`~anonset.core.dataset.Dataset` with the *table's* resolved attribute
specs (the hierarchies built once on the driver, so every fragment codes and
labels values alike) and fits the configured model on it: an
:class:`~anonset.anonymizer.Anonymizer` with ``method="mondrian"`` and the
run's options, the same code as a run in memory, whose release is rendered by
:func:`~anonset.release.release.render_partition` and re-checked on the
worker.  It returns the released rows (every column as text) and one more
row holding, as JSON in :data:`STATS`, the fragment's facts (its classes, the
largest and smallest), the partial sums the driver adds up into the release's
metrics (:func:`~anonset.metrics.partial.partial_sums`, added up by
:func:`~anonset.metrics.partial.combine_partial_sums`), and how many of the
fragment's input classes have each size, which add up to the input's (a
record's fragment depends on its quasi-identifiers alone), so the release's
risk report needs no pass over the input of its own
(:func:`input_class_sizes`).

A fragment that fails (it should not: the driver checked that each fragment
as a whole satisfies every model) returns its error in the statistics row
instead of raising, so the driver reports it as one line naming the fragment.

The model class comes from the caller (``make_model``): this module sits
below :mod:`anonset.anonymizer` and never imports it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeSpec, Dataset, row_values
from anonset.core.weights import quasi_weights
from anonset.metrics.base import Metric
from anonset.metrics.partial import partial_sums
from anonset.privacy.base import Requirements
from anonset.risk.report import class_sizes_of_codes

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.release.release import Release

__all__ = ["FRAGMENT_ERRORS", "STATS", "FragmentJob", "FragmentModel", "input_class_sizes"]

#: The column of the statistics row (null on every released row).
STATS = "_anonset_fragment_stats"

#: anonset's errors a fragment may report, by name (anything else is a bug, reported as RuntimeError).
FRAGMENT_ERRORS = ("ConfigError", "DataError", "HierarchyError", "InfeasibleError")


class FragmentModel(Protocol):
    """What ``make_model(...)`` returns: a model that releases a dataset (an Anonymizer)."""

    release_: Release

    def fit(self, data: Dataset) -> FragmentModel:
        """Fit on ``data``; its release (rendered and re-checked) is then ``release_``."""
        ...


@dataclass(frozen=True)
class FragmentJob:
    """The fit of one fragment, pickled to the workers once per task (see the module docstring).

    Attributes
    ----------
    make_model : callable
        ``make_model(specs, requirements, method=..., weights=..., method_options=..., seed=...,
        allow_unprotected=...)``: the model class (:class:`~anonset.anonymizer.Anonymizer`).
    specs : mapping of str to AttributeSpec
        The table's resolved attribute specs.
    requirements : Requirements
        The privacy models.
    method, method_options, weights, seed, allow_unprotected
        As configured (``method_options`` without the options only the driver reads).
    whole : Dataset
        The table's profiled dataset: the value ranges and hierarchies the metrics are measured against.
    metrics : tuple of Metric
        The metrics the release reports.
    columns : tuple of str
        The released columns, in order.
    source : str
        How messages name the table.
    spans : mapping of str to float
        The table's range of each quasi-identifier compared by value.
    global_ranges : bool
        Scale each such attribute's weight by the fragment's range over the
        table's, so that Mondrian in the fragment ranks attributes by their
        range normalized by the *table's* range, as Mondrian on the table does
        (with one fragment the weights are unchanged).
    """

    make_model: Callable[..., FragmentModel]
    specs: Mapping[str, AttributeSpec]
    requirements: Requirements
    method: str
    method_options: Mapping[str, Any]
    weights: Mapping[str, float] | None
    seed: int
    allow_unprotected: bool
    whole: Dataset
    metrics: tuple[Metric, ...]
    columns: tuple[str, ...]
    source: str
    spans: Mapping[str, float]
    global_ranges: bool = True

    def schema(self) -> str:
        """The Spark schema of what :meth:`__call__` returns (DDL: every column text, named by its key)."""
        return ", ".join(f"{k} string" for k in (*self.keys(), STATS))

    def keys(self) -> list[str]:
        """The Spark names of :attr:`columns`, by position (:func:`~anonset.engine.spark.source.column_key`).

        The records come in, and the release goes out, under these names:
        ``applyInPandas`` names its columns unquoted, so a column named
        ``a.b`` or ``x`y`` would not resolve.
        """
        from anonset.engine.spark.source import column_key

        return [column_key(i) for i in range(len(self.columns))]

    def __call__(self, records: pd.DataFrame) -> pd.DataFrame:
        """The released rows of one fragment's records (keyed columns and :data:`FRAGMENT`), and its statistics row."""
        from anonset.engine.spark.mondrian import FRAGMENT

        fragment = int(records[FRAGMENT].iloc[0])
        table = records[self.keys()].set_axis(list(self.columns), axis=1).reset_index(drop=True)
        facts: dict[str, Any] = {"fragment": fragment, "rows": len(table)}
        started = time.perf_counter()
        try:
            data = Dataset(table, self.specs, source=f"{self.source} (fragment {fragment})")
            facts["input_sizes"] = _input_sizes(data)
            model = self.make_model(self.specs, self.requirements, method=self.method, weights=self.weights_of(data),
                                    method_options=dict(self.method_options), seed=self.seed,
                                    allow_unprotected=self.allow_unprotected)
            release = model.fit(data).release_
            assert release.table is not None
            partition = release.partition
            facts.update(partial_sums(partition, data, self.whole, self.metrics))
            facts.update(largest=int(partition.sizes.max()), smallest=int(partition.sizes.min()))
        except Exception as exc:  # reported by the driver as one line naming the fragment
            text = str(exc).strip().splitlines()
            facts["error"] = {"type": type(exc).__name__, "message": text[0] if text else type(exc).__name__}
            return self._rows(pd.DataFrame(columns=list(self.columns)), facts)
        facts["seconds"] = time.perf_counter() - started
        return self._rows(release.table, facts)

    def weights_of(self, data: Dataset) -> dict[str, float] | None:
        """The weights the fragment's Mondrian gets (see ``global_ranges``)."""
        if not self.global_ranges:
            return None if self.weights is None else dict(self.weights)
        given = quasi_weights(data.quasi, self.weights, data.source, "mondrian")
        scaled = dict(given)
        for q in data.quasi:
            values = row_values(data, q)
            span = float(self.spans.get(q, 0.0))
            if values is not None and span > 0:
                scaled[q] = given[q] * (float(values.max()) - float(values.min())) / span
        return scaled if any(scaled.values()) else given  # all 0: nothing can be cut; keep the weights given

    def _rows(self, released: pd.DataFrame, facts: Mapping[str, Any]) -> pd.DataFrame:
        """``released`` as text (missing values null) under its keys with a null :data:`STATS`, then the statistics row.

        Built as whole columns one row longer than the release (no concatenation, no Python per record).
        """
        n = len(released)
        columns: dict[str, NDArray[np.object_]] = {k: _text(released[c], n + 1)
                                                    for k, c in zip(self.keys(), self.columns, strict=True)}
        stats = np.full(n + 1, None, dtype=object)
        stats[n] = json.dumps(facts)
        columns[STATS] = stats
        return pd.DataFrame(columns, index=pd.RangeIndex(n + 1), copy=False)


def _text(column: pd.Series, length: int) -> NDArray[np.object_]:
    """A column's values as Python strings, missing values None (Arrow's null text), padded with None to ``length``.

    A column of strings is passed as it is; any other is converted by ``str``
    value by value in numpy's C loop.
    """
    values = column.to_numpy(dtype=object)
    missing = pd.isna(values)
    if pd.api.types.infer_dtype(values, skipna=True) not in ("string", "empty"):
        values = values.astype(str).astype(object)
    out = np.full(length, None, dtype=object)
    out[:len(values)] = values
    out[:len(values)][missing] = None
    return out


def _input_sizes(data: Dataset) -> list[list[int]]:
    """How many of the fragment's input classes (records with identical quasi-identifiers) have each size.

    ``[[size, classes], ...]``.  The driver routes a record by its
    quasi-identifiers' values alone, so records with identical values share a
    fragment and the fragments' tables add up to the input's.
    """
    codes = (np.column_stack([data.encoded[q].row_codes() for q in data.quasi]) if data.quasi
             else np.zeros((data.n_rows, 0), dtype=np.int32))  # no quasi-identifier: one class of every record
    sizes, classes = np.unique(class_sizes_of_codes(codes), return_counts=True)
    return [[int(size), int(n)] for size, n in zip(sizes, classes, strict=True)]


def input_class_sizes(parts: Sequence[Mapping[str, Any]]) -> NDArray[np.int64]:
    """The input's class sizes on its quasi-identifiers, from the fragments' tables of sizes (:func:`_input_sizes`)."""
    table = np.array([pair for p in parts for pair in p["input_sizes"]], dtype=np.int64).reshape(-1, 2)
    return np.repeat(table[:, 0], table[:, 1])
