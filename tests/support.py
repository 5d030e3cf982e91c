"""Helpers shared by the tests: reference data paths, random tables and hierarchies."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonset.hierarchy import Hierarchy

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ADULT = SHARED / "data" / "adult"


def require_adult() -> Path:
    """Path of the Adult reference data; skip loudly when it is absent."""
    if not (ADULT / "adult.csv").exists():
        pytest.skip(f"reference data not found at {ADULT} (tests read ../shared/data/adult)")
    return ADULT


def random_hierarchy(rng: np.random.Generator, name: str, n_leaves: int, depth: int) -> Hierarchy:
    """A random equal-depth hierarchy: each level groups the level below into fewer nodes, then a root."""
    rows = [[f"{name}{i}"] for i in range(n_leaves)]
    current = np.arange(n_leaves)
    for level in range(1, depth - 1):
        n_prev = int(current.max()) + 1
        n_next = max(1, int(np.ceil(n_prev / rng.integers(2, 4))))
        parent_of = np.concatenate([np.arange(n_next), rng.integers(0, n_next, n_prev - n_next)])
        rng.shuffle(parent_of)
        current = parent_of[current]
        for i, row in enumerate(rows):
            row.append(f"{name}L{level}g{current[i]}")
    for row in rows:
        row.append("*")
    return Hierarchy.from_rows(name, rows, source="random")


def random_table(rng: np.random.Generator, n_rows: int, n_quasi: int, n_sensitive_values: int = 5):
    """A random table with quasi-identifiers q0.., a categorical sensitive `s` and a numeric `x`."""
    hierarchies = {}
    data = {}
    for j in range(n_quasi):
        name = f"q{j}"
        h = random_hierarchy(rng, name, int(rng.integers(2, 7)), int(rng.integers(2, 5)))
        hierarchies[name] = h
        weights = rng.dirichlet(np.ones(h.n_leaves))
        data[name] = np.array(h.leaves, dtype=object)[rng.choice(h.n_leaves, n_rows, p=weights)]
    data["s"] = np.array([f"s{v}" for v in rng.integers(0, n_sensitive_values, n_rows)], dtype=object)
    data["x"] = rng.integers(0, 50, n_rows).astype(str).astype(object)
    return pd.DataFrame(data), hierarchies
