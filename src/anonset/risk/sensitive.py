"""How a sensitive attribute looks inside the classes: the most frequent value's share, entropy, homogeneous classes.

A class can be large and still give its sensitive value away: if 90% of its
records share one diagnosis, whoever places a person in the class learns the
diagnosis with 90% confidence (the homogeneity attack that l-diversity and
t-closeness guard against).  From the counts of each (class, value) pair:

* ``highest_share`` — the largest share one value has in a class;
* ``mean_entropy`` — the entropy of the value distribution in a record's
  class, in bits, averaged over the records (0: every class holds one value);
* ``homogeneous`` — the classes where one value has at least ``threshold`` of
  the records (default 80%), with their records;
* ``listed`` — up to ``shown`` of those classes, most homogeneous first, with
  their quasi-identifier values, the value and its share; a class of fewer
  than ``floor`` records (max(k, 2) of the config) is never listed, only
  counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["HOMOGENEITY", "sensitive_view"]

#: The share of one value above which a class is called homogeneous.
HOMOGENEITY = 0.8


def sensitive_view(groups: pd.DataFrame, quasi: Sequence[str], attribute: str, floor: int,
                   threshold: float = HOMOGENEITY, shown: int = 10) -> dict[str, Any]:
    """The view of ``attribute`` from ``groups`` (one row per distinct (quasi-identifiers, value), count ``_n``).

    ``groups`` has a column per quasi-identifier (named as in ``quasi``), the
    column ``attribute`` and ``_n``; optionally ``_class``, each row's class
    numbered from 0 (rows with equal quasi-identifiers, equal numbers), which
    spares grouping the values again.
    """
    if groups.empty:
        return {"classes": 0, "highest_share": None, "mean_entropy": None,
                "homogeneous": {"threshold": threshold, "classes": 0, "records": 0}, "listed": [], "floor": floor}
    if "_class" in groups:  # numbered by the caller (from codes)
        class_id = groups["_class"].to_numpy()
    else:
        keys = groups[list(quasi)].astype(object).where(groups[list(quasi)].notna(), None)
        class_id = keys.astype(str).groupby(list(quasi), sort=False, dropna=False).ngroup().to_numpy()
    counts = groups["_n"].to_numpy(dtype=np.float64)
    sizes = np.bincount(class_id, weights=counts)
    share = counts / sizes[class_id]
    entropy = np.bincount(class_id, weights=-share * np.log2(share))
    top = np.zeros(len(sizes))
    np.maximum.at(top, class_id, share)
    homogeneous = top >= threshold
    records = float(sizes.sum())
    listed: list[dict[str, Any]] = []
    candidates = np.flatnonzero(homogeneous & (sizes >= floor))
    for c in candidates[np.lexsort((-sizes[candidates], -top[candidates]))][:shown]:
        row = int(np.flatnonzero((class_id == c) & (share == top[c]))[0])
        listed.append({"attributes": {q: _plain(groups.iloc[row][q]) for q in quasi},
                       "records": int(sizes[c]), "value": _plain(groups.iloc[row][attribute]),
                       "share": float(top[c])})
    return {"classes": len(sizes), "highest_share": float(top.max()),
            "mean_entropy": float(np.dot(entropy, sizes) / records),
            "homogeneous": {"threshold": threshold, "classes": int(homogeneous.sum()),
                            "records": int(sizes[homogeneous].sum())},
            "listed": listed, "floor": floor}


def _plain(value: Any) -> Any:
    """A value as JSON holds it (None for a missing one)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    return value.item() if isinstance(value, np.generic) else value
