"""The small synthetic tables the checks run on, drawn from anonset's own generators (no file, no download).

Every table is a slice of the synthetic patient register
(:func:`anonset.datasets.patient_register`) with the attribute specs of
:func:`anonset.datasets.patient_register_attributes`: numeric ages with
interval hierarchies, ZIP codes masked digit by digit, marital status and
education with their own hierarchies, a categorical sensitive ``diagnosis``
and a numeric ``length_of_stay``.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeSpec, AttributeType, Role
from anonset.datasets import patient_register, patient_register_attributes

__all__ = ["BUILDER_CHILDREN", "builder_case", "engine_case", "method_case"]

#: The quasi-identifiers of a method's table: numeric, flat and masked hierarchies (a lattice of 60 nodes).
METHOD_QUASI = ("age", "sex", "zip")
#: Where the engine cases draw their quasi-identifiers from (each case takes two to four of them).
ENGINE_QUASI = ("zip", "marital_status", "education", "age", "sex", "race")


def method_case(seed: int, rows: int = 120, *, numeric_sensitive: bool = False
                ) -> tuple[pd.DataFrame, dict[str, AttributeSpec]]:
    """A register of ``rows`` records: age, sex and zip quasi-identifying, diagnosis sensitive.

    ``length_of_stay`` is insensitive, or a numeric sensitive attribute with
    ``numeric_sensitive`` (for squared-error diversity).
    """
    table, attributes = _method_case(seed, rows, numeric_sensitive)
    return table.copy(), dict(attributes)


@functools.lru_cache(maxsize=32)
def _method_case(seed: int, rows: int, numeric_sensitive: bool) -> tuple[pd.DataFrame, dict[str, AttributeSpec]]:
    """:func:`method_case`, drawn once per process (the checks copy what they get)."""
    columns = [*METHOD_QUASI, "diagnosis", "length_of_stay"]
    register = patient_register(rows, seed=seed)
    specs = patient_register_attributes(register)
    table = register[columns].reset_index(drop=True)
    attributes = {c: specs[c] for c in columns}
    if numeric_sensitive:
        attributes["length_of_stay"] = dataclasses.replace(attributes["length_of_stay"], role=Role.SENSITIVE)
    return table, attributes


def engine_case(seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A register of 150 to 400 records with two to four quasi-identifiers, a sensitive ``s`` and a numeric ``x``.

    ``s`` is the diagnosis and ``x`` the length of stay, both sensitive.
    Odd seeds leave about a tenth of the first categorical quasi-identifier
    and a twentieth of ``s`` missing (``None``: NULL in a database, the
    missing marker in a dataset); seeds divisible by 3 make ``x``
    non-integer, so that sums added in another order differ in their last bits.
    """
    table, attributes = _engine_case(seed)
    return table.copy(), dict(attributes)


@functools.lru_cache(maxsize=16)
def _engine_case(seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """:func:`engine_case`, drawn once per process (the checks copy what they get)."""
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(150, 400))
    quasi = [ENGINE_QUASI[i] for i in sorted(rng.choice(len(ENGINE_QUASI), int(rng.integers(2, 5)), replace=False))]
    register = patient_register(rows, seed=seed)
    specs = patient_register_attributes(register)
    table = register[quasi].copy()
    table["s"] = register["diagnosis"]
    table["x"] = register["length_of_stay"]
    table = table.astype(object).reset_index(drop=True)
    if seed % 2:
        categorical = [q for q in quasi if specs[q].type is not AttributeType.NUMERIC]
        table.loc[rng.random(rows) < 0.1, (categorical or quasi)[0]] = None
        table.loc[rng.random(rows) < 0.05, "s"] = None
    if seed % 3 == 0:
        table["x"] = np.round(rng.normal(50.0, 20.0, rows), 3).astype(str).astype(object)
    attributes: dict[str, Any] = {q: specs[q] for q in quasi}
    attributes["s"] = AttributeSpec(role=Role.SENSITIVE)
    attributes["x"] = AttributeSpec(role=Role.SENSITIVE, type=AttributeType.NUMERIC)
    return table, attributes


#: The ordinal values of :func:`builder_case`'s ``children``, in their order.
BUILDER_CHILDREN = ("Zero", "One", "Two", "Three", "Four", "Five")


def builder_case(seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Every hierarchy builder, given in its configuration form; the first rows are not in sorted order.

    Ages, diagnoses and lengths of stay come from the register; the other columns are drawn
    so that each builder meets what it must get right (values whose first
    appearance is not their order, an ordinal order, dates).
    """
    rng = np.random.default_rng(seed)
    n = 300
    register = patient_register(n, seed=seed)
    days = pd.Timestamp("2019-11-20") + pd.to_timedelta(rng.integers(0, 120, n), unit="D")
    table = pd.DataFrame({
        "edu": rng.choice(["1", "2", "3", "4"], n),
        "children": rng.choice(list(BUILDER_CHILDREN), n),
        "age": register["age"].to_numpy(),
        "zip": rng.choice(["47906", "47907", "47911", "48000", "48012"], n),
        "day": days.strftime("%Y-%m-%d"),
        "colour": rng.choice(["red", "green", "blue"], n),
        "s": register["diagnosis"].to_numpy(),
        "x": register["length_of_stay"].to_numpy(),
    }, dtype=object)
    table.loc[:3, "edu"] = ["3", "4", "2", "1"]  # as in the cmc file: first appearance is not the order
    table.loc[:5, "children"] = ["Two", "Zero", "Five", "One", "Four", "Three"]
    if seed % 2:
        table.loc[rng.random(n) < 0.1, "age"] = None
    attributes: dict[str, Any] = {
        "edu": {"role": "quasi", "hierarchy": {"builder": "ordered", "fanouts": [2, 2]}},
        "children": {"role": "quasi", "type": "ordinal", "order": list(BUILDER_CHILDREN),
                     "hierarchy": {"builder": "ordered", "fanouts": [3]}},
        "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [10, 20]}},
        "zip": {"role": "quasi", "hierarchy": {"builder": "masking", "levels": 3}},
        "day": {"role": "quasi", "type": "date", "hierarchy": {"builder": "dates", "levels": ["month", "year"]}},
        "colour": {"role": "quasi", "hierarchy": {"builder": "flat"}},
        "s": {"role": "sensitive"},
        "x": {"role": "sensitive", "type": "numeric"},
    }
    return table, attributes
