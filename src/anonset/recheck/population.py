"""Population counts of released classes, from the released values and the hierarchies alone.

A model judged against a population table (k-map, δ-presence) needs, for
every released class, how many population records match it.  The re-check
counts them without the model's encoding: a population record matches a
class when, for every quasi-identifier, the class's released label is its
value or one of its value's generalizations in the hierarchy (``*`` matches
every value).  Counted over the population's distinct value combinations,
a block of classes at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

from anonset.recheck.columns import SUPPRESSED

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset
    from anonset.core.hierarchy import Hierarchy

__all__ = ["population_counts_of_labels"]

#: Classes compared with every population combination at once (bounds the boolean matrices' size).
_BLOCK = 256


def population_counts_of_labels(labels: Mapping[str, NDArray[np.object_]], population: pd.DataFrame | pa.Table,
                                dataset: Dataset, hierarchies: Mapping[str, Hierarchy | None]) -> NDArray[np.int64]:
    """(c,) population records matching each class, the classes given by their released labels.

    Parameters
    ----------
    labels : mapping of str to numpy.ndarray
        Per quasi-identifier of ``dataset``, each class's released label (text).
    population : pandas.DataFrame or pyarrow.Table
        The population's records (at least the quasi-identifier columns).
    dataset : Dataset
        The input: its quasi-identifiers and their missing markers.
    hierarchies : mapping of str to Hierarchy
        Per quasi-identifier, the hierarchy whose labels a population value
        generalizes to (None: a label covers only the value itself, and ``*``).
    """
    quasi = list(dataset.quasi)
    frame = population.select(quasi).to_pandas() if isinstance(population, pa.Table) else population[quasi]
    text = pd.DataFrame({q: _texts(frame[q], dataset.specs[q].missing[0] if dataset.specs[q].missing else "")
                         for q in quasi})
    combos = text.value_counts(sort=False, dropna=False)
    held = combos.to_numpy(dtype=np.int64)
    n_classes = len(next(iter(labels.values()))) if labels else 0
    matches: list[tuple[NDArray[np.bool_], NDArray[np.int64]]] = []
    for j, q in enumerate(quasi):
        values = combos.index.get_level_values(j).to_numpy(dtype=object) if len(quasi) > 1 else \
            combos.index.to_numpy(dtype=object)
        distinct, which = np.unique(values.astype(str), return_inverse=True)
        matches.append((_matching(np.asarray(labels[q], dtype=object).astype(str), distinct, hierarchies.get(q)),
                        which.astype(np.int64)))
    out = np.zeros(n_classes, dtype=np.int64)
    for start in range(0, n_classes, _BLOCK):
        stop = min(start + _BLOCK, n_classes)
        hit = np.ones((stop - start, len(held)), dtype=np.bool_)
        for matrix, which in matches:
            hit &= matrix[start:stop][:, which]
        out[start:stop] = hit.astype(np.int64) @ held
    return out


def _texts(column: pd.Series, marker: str) -> pd.Series:
    """A population column as text, a missing value as the column's first missing marker."""
    return column.astype(object).where(column.notna(), marker).astype(str)


def _matching(class_labels: NDArray[np.str_], values: NDArray[np.str_], h: Hierarchy | None) -> NDArray[np.bool_]:
    """(classes, values): is the class's label the value or a generalization of it in ``h`` (or ``*``)?"""
    labels = class_labels[:, None]
    out: NDArray[np.bool_] = np.asarray((labels == SUPPRESSED) | (labels == values[None, :]))
    if h is None:
        return out
    leaf = {str(label): i for i, label in enumerate(h.labels[0])}
    position = np.array([leaf.get(str(v), -1) for v in values], dtype=np.int64)
    known = position >= 0
    for level in range(1, h.n_levels):
        above = np.asarray(h.labels[level], dtype=object).astype(str)[h.maps[level][np.maximum(position, 0)]]
        out |= (labels == above[None, :]) & known[None, :]
    return out
