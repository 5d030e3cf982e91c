"""Population counts of released classes, from the released values and the hierarchies alone.

A model judged against a population table (k-map, δ-presence) needs, for
every released class, how many population records match it.  The re-check
counts them without the model's encoding: a population record matches a
class when, for every quasi-identifier, the class's released label is its
value or one of its value's generalizations in the hierarchy (``*`` matches
every value).  Counted over the population's distinct value combinations:
keyed by the labels they fall under when each value falls under one label
besides ``*`` (a full-domain release), else a block of classes at a time.
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
    columns = []  # per quasi-identifier: (each class's label index, which labels match each combination's value)
    for j, q in enumerate(quasi):
        values = combos.index.get_level_values(j).to_numpy(dtype=object)  # one level per column, one column too
        distinct, which = np.unique(values.astype(str), return_inverse=True)
        names, label_of = np.unique(np.asarray(labels[q], dtype=object).astype(str), return_inverse=True)
        columns.append((label_of.astype(np.int64), _matching(names, distinct, hierarchies.get(q)),
                        which.astype(np.int64), names == SUPPRESSED))
    by_label = _by_label(columns, held, n_classes)
    if by_label is not None:
        return by_label
    out = np.zeros(n_classes, dtype=np.int64)
    for start in range(0, n_classes, _BLOCK):
        stop = min(start + _BLOCK, n_classes)
        hit = np.ones((stop - start, len(held)), dtype=np.bool_)
        for label_of, matrix, which, _ in columns:
            hit &= matrix[label_of[start:stop]][:, which]
        out[start:stop] = hit.astype(np.int64) @ held
    return out


def _by_label(columns: list[tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64], NDArray[np.bool_]]],
              held: NDArray[np.int64], n_classes: int) -> NDArray[np.int64] | None:
    """The counts when every value falls under at most one released label besides ``*`` (a full-domain release).

    Each population combination is then keyed by its labels, and each class,
    grouped with the classes ``*`` in the same quasi-identifiers, looks its
    labels up among them: one pass, no (classes x combinations) matrix.  None
    when some value falls under two labels (the caller compares every class
    with every combination instead).
    """
    under = []  # per quasi-identifier: each combination's label besides '*' (-1: none)
    for _, matrix, which, star in columns:
        plain = matrix[~star]
        if (plain.sum(axis=0) > 1).any():
            return None
        index = np.flatnonzero(~star)
        label = np.where(plain.any(axis=0), index[plain.argmax(axis=0)] if len(index) else -1, -1)
        under.append(label[which])
    starred = np.column_stack([star[label_of] for label_of, _, _, star in columns]) if columns else \
        np.zeros((n_classes, 0), dtype=np.bool_)
    out = np.zeros(n_classes, dtype=np.int64)
    patterns, pattern_of = np.unique(starred, axis=0, return_inverse=True)
    for p, pattern in enumerate(patterns):
        members = np.flatnonzero(pattern_of.ravel() == p)
        kept = [j for j in range(len(columns)) if not pattern[j]]
        if not kept:
            out[members] = held.sum()
            continue
        combo = pd.DataFrame({j: under[j] for j in kept})
        valid = (combo >= 0).all(axis=1).to_numpy()
        sums = pd.Series(held[valid]).groupby([combo[j][valid].to_numpy() for j in kept]).sum()
        if len(kept) == 1:
            wanted: pd.Index = pd.Index(columns[kept[0]][0][members])
        else:
            wanted = pd.MultiIndex.from_arrays([columns[j][0][members] for j in kept])
        out[members] = sums.reindex(wanted, fill_value=0).to_numpy(dtype=np.int64)
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
