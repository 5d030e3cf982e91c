"""How much each combination of quasi-identifiers singles records out: distinction and separation (ARX's view).

For a set of attributes, the records grouped by their values on it:

* **distinction** — distinct value combinations / records (1: every record
  is told apart by the set alone);
* **separation** — the share of the pairs of records the set tells apart
  (records in different groups): ``1 − Σ_g n_g (n_g − 1) / (n (n − 1))``.

These are the measures of ARX's quasi-identifier risk analysis (Motwani and
Xu, "Efficient algorithms for masking and finding quasi-identifiers").  Every
non-empty combination is measured while there are at most ``limit`` of
them; with more quasi-identifiers, the combinations of each size from one
up are measured while the total stays within ``limit``, and the whole set is
always measured.  Records may be given as distinct keys with counts (as a
database groups them); a missing value is a value of its own here.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.risk.survey import combination_keys

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["LIMIT", "quasi_identifier_risks"]

#: The most combinations measured (all of 12 quasi-identifiers).
LIMIT = 2**12 - 1


def _combinations(m: int, limit: int) -> tuple[list[tuple[int, ...]], bool]:
    """The combinations to measure, and whether some were left out."""
    if 2**m - 1 <= limit:
        return [c for size in range(1, m + 1) for c in itertools.combinations(range(m), size)], False
    chosen: list[tuple[int, ...]] = []
    for size in range(1, m):
        batch = list(itertools.combinations(range(m), size))
        if len(chosen) + len(batch) + 1 > limit:
            break
        chosen += batch
    return [*chosen, tuple(range(m))], True


def quasi_identifier_risks(codes: NDArray[np.int64], names: Sequence[str], counts: NDArray[np.int64] | None = None,
                           limit: int = LIMIT) -> tuple[list[dict[str, Any]], bool]:
    """Distinction and separation of the combinations of the columns of ``codes`` (see the module docstring).

    Returns the list of ``{"attributes": [...], "distinction": d, "separation": s}``,
    the most distinguishing first (distinction, then separation, then fewer
    attributes), and whether combinations were left out for ``limit``.
    """
    records = np.asarray(codes, dtype=np.int64) + 1  # a missing value (-1) is a value of its own
    weights = np.ones(len(records)) if counts is None else np.asarray(counts, dtype=np.float64)
    # every combination groups the distinct keys (with their records), not every record
    key_of, _ = pd.factorize(combination_keys(records))
    first = np.full(int(key_of.max()) + 1 if len(key_of) else 0, -1, dtype=np.int64)
    first[key_of[::-1]] = np.arange(len(key_of) - 1, -1, -1)
    rows = np.bincount(key_of, weights=weights).astype(np.float64)
    codes = records[first]
    n = float(rows.sum())
    pairs = n * (n - 1)
    combinations, truncated = _combinations(codes.shape[1], limit)
    out: list[dict[str, Any]] = []
    for columns in combinations:
        group, _ = pd.factorize(combination_keys(codes, columns))  # a hash per key: no sort
        sizes = np.bincount(group, weights=rows)
        sizes = sizes[sizes > 0]
        separation = 1.0 - float(np.sum(sizes * (sizes - 1))) / pairs if pairs > 0 else 0.0
        out.append({"attributes": [names[j] for j in columns], "distinction": len(sizes) / n,
                    "separation": separation})
    out.sort(key=lambda r: (-float(r["distinction"]), -float(r["separation"]), len(list(r["attributes"]))))
    return out, truncated
