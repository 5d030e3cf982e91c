"""``Release``: the anonymized table with its partition, metrics and provenance.

Metrics import nothing from here; the anonymizer computes metric values and
hands them to the release.  :func:`render_full_domain` turns a full-domain node
into the released table: quasi-identifiers replaced by their generalized
labels (``30-39``, ``Europe``, ``4791*``), suppressed records' quasi-identifiers
replaced by ``*`` (or the records dropped on request), identifiers removed,
every other column passed through untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonset.dataset import Dataset, Role
from anonset.partition import Partition

__all__ = ["SUPPRESSED", "Release", "render_full_domain"]

#: The value written in every quasi-identifier of a suppressed record.
SUPPRESSED = "*"


@dataclass(eq=False)
class Release:
    """An anonymized table and everything needed to judge and reproduce it.

    Attributes
    ----------
    table : pandas.DataFrame
        The released records.
    partition : Partition
        Records -> classes and each class's generalized values.
    method : str
        The method that produced it.
    levels : dict of str to int, or None
        The full-domain node (generalization level per quasi-identifier).
    metrics : dict of str to float
        Utility metrics of the release.
    suppressed_rows : int
        Records whose quasi-identifiers were suppressed (or that were dropped).
    verified : bool
        True once the release passed the independent re-check.
    requirements : str
        The privacy requirements in words.
    provenance : dict
        Configuration, seed, versions.
    search : dict
        Method-specific facts (nodes checked, lattice size, ...).
    seconds : float
        Wall time of the method and the re-check.
    """

    table: pd.DataFrame
    partition: Partition
    method: str
    levels: dict[str, int] | None
    metrics: dict[str, float]
    suppressed_rows: int
    verified: bool
    requirements: str
    provenance: dict[str, Any] = field(default_factory=dict)
    search: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def n_classes(self) -> int:
        """Released equivalence classes."""
        return self.partition.n_classes

    @property
    def min_class_size(self) -> int:
        """Size of the smallest released class (0 when every record is suppressed)."""
        return int(self.partition.sizes.min()) if self.partition.n_classes else 0

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "method": self.method,
            "levels": self.levels,
            "classes": self.n_classes,
            "min_class_size": self.min_class_size,
            "suppressed_rows": self.suppressed_rows,
            "rows": int(self.partition.n_rows),
            "metrics": {k: _json_number(v) for k, v in self.metrics.items()},
            "verified": self.verified,
            "requirements": self.requirements,
            "seconds": round(self.seconds, 4),
            "search": self.search,
            "provenance": self.provenance,
        }


def _json_number(v: float) -> float | None:
    return None if v is None or not np.isfinite(v) else float(v)


def render_full_domain(dataset: Dataset, levels: tuple[int, ...], suppressed_rows: np.ndarray,
                       drop_suppressed: bool = False) -> pd.DataFrame:
    """The released table of a full-domain node.

    Parameters
    ----------
    dataset : Dataset
        The input.
    levels : tuple of int
        Level per quasi-identifier.
    suppressed_rows : numpy.ndarray
        Boolean per record: suppressed.
    drop_suppressed : bool
        Drop suppressed records instead of writing ``*`` in their quasi-identifiers.
    """
    if dataset.table is None:
        raise ValueError("render_full_domain needs the rows in memory; a database table is rendered in SQL")
    columns: dict[str, Any] = {}
    for name in dataset.table.columns:
        spec = dataset.specs[name]
        if spec.role is Role.IDENTIFIER:
            continue
        if spec.role is Role.QUASI:
            j = dataset.quasi.index(name)
            h = dataset.require_hierarchy(name)
            labels = h.labels[levels[j]].astype(object)
            out = labels[h.maps[levels[j]][dataset.encoded[name].row_codes()]]
            out[suppressed_rows] = SUPPRESSED
            columns[name] = out
        else:
            columns[name] = dataset.table[name].to_numpy()
    table = pd.DataFrame(columns, index=dataset.table.index)
    if drop_suppressed:
        table = table.loc[~suppressed_rows]
    return table.reset_index(drop=True)
