"""A wide synthetic survey table: many categorical quasi-identifiers, for scaling runs.

``wide_survey(n_rows, n_attributes, seed)`` draws each record's latent
profile (one of a few dozen) and, per attribute, a value whose distribution
depends on that profile, so attributes are correlated and combinations are
far from uniform — the regime (24 or more quasi-identifiers) where Morton et
al. needed their distributed search.  Attribute ``a{j}`` has 4, 6 or 8
values ``v0``.. and a three-level hierarchy (value, pair ``g0``.., ``*``).
Fully vectorized and deterministic for a seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeSpec, Dataset, Role
from anonset.core.hierarchy import Hierarchy
from anonset.errors import ConfigError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["wide_survey", "wide_survey_dataset"]

_PROFILES = 24
#: Dirichlet concentration of each profile's value distribution: small = values follow the profile closely.
_CONCENTRATION = 0.08


def _sizes(n_attributes: int) -> list[int]:
    return [(4, 6, 8)[j % 3] for j in range(n_attributes)]


def wide_survey(n_rows: int, n_attributes: int = 24, seed: int = 0) -> pd.DataFrame:
    """A table of ``n_rows`` records and ``n_attributes`` categorical columns ``a0``.. (strings)."""
    if n_rows < 1 or n_attributes < 1:
        raise ConfigError(f"wide_survey needs n_rows >= 1 and n_attributes >= 1; got {n_rows}, {n_attributes}")
    rng = np.random.default_rng(seed)
    profile = rng.choice(_PROFILES, size=n_rows, p=rng.dirichlet(np.full(_PROFILES, 2.0)))
    columns: dict[str, NDArray[np.object_]] = {}
    for j, size in enumerate(_sizes(n_attributes)):
        # per profile a skewed distribution over the attribute's values
        probabilities = rng.dirichlet(np.full(size, _CONCENTRATION), size=_PROFILES)
        cumulative = np.cumsum(probabilities, axis=1)[profile]
        draw = rng.random(n_rows)[:, None]
        value = np.minimum((draw > cumulative).sum(axis=1), size - 1)
        columns[f"a{j}"] = np.array([f"v{v}" for v in range(size)], dtype=object)[value]
    return pd.DataFrame(columns)


def _hierarchy(name: str, size: int) -> Hierarchy:
    return Hierarchy.from_rows(name, [[f"v{v}", f"g{v // 2}", "*"] for v in range(size)], source="wide_survey")


def wide_survey_dataset(n_rows: int, n_attributes: int = 24, seed: int = 0) -> Dataset:
    """The wide survey with every column a quasi-identifier and its three-level hierarchy."""
    table = wide_survey(n_rows, n_attributes, seed)
    attrs = {f"a{j}": AttributeSpec(role=Role.QUASI, hierarchy=_hierarchy(f"a{j}", size))
             for j, size in enumerate(_sizes(n_attributes))}
    return Dataset(table, attrs, source=f"wide_survey(n_rows={n_rows}, n_attributes={n_attributes}, seed={seed})")
