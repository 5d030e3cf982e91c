"""A seeded synthetic hospital patient register: anonset's built-in demo and test table.

:func:`patient_register` draws a person-level table of hospital admissions
whose columns are correlated the way real registers are, so that
anonymizing it is not trivial:

* ``zip`` comes from a fixed pool of 335 five-digit ZIP codes in twelve
  3-digit regions (New England and New York City; many codes have a leading
  zero, such as ``02139``), with regional and within-region popularity;
* ``age`` follows a hospital case mix (a neonatal spike, a childbirth bump,
  most admissions between 60 and 85) tilted older or younger by region;
* ``sex`` leans female in the childbearing years and at very old age;
* ``race`` depends on the ZIP region;
* ``marital_status`` depends on age and sex (widowhood rises steeply with
  age and is more common among women);
* ``education`` (eight ordered levels) depends on age (capped by what a
  child can have attained, lower in older cohorts) and region;
* ``diagnosis`` (sixteen ICD-10-chapter-like groups, the sensitive
  attribute) depends on age and sex: ``Pregnancy`` only for women aged
  15-50, ``Perinatal`` only for newborns, circulatory disease and neoplasms
  rising with age, injuries peaking in young men;
* ``length_of_stay`` (whole days, 0 for a same-day case) depends on
  diagnosis and age.

Every value is a ``str`` exactly as it would be read back from a CSV file, so
a table round-trips through CSV unchanged.  Generation is fully vectorized:
a million rows take about a second.

:func:`patient_register_attributes` gives the matching attribute specs
(roles, types and generalization hierarchies), and
:func:`patient_register_dataset` puts both into a
:class:`~anonset.core.dataset.Dataset`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeSpec, AttributeType, Dataset, Role
from anonset.core.hierarchy import Hierarchy
from anonset.core.hierarchy_builders import (
    flat_hierarchy,
    interval_hierarchy,
    masking_hierarchy,
    ordered_grouping_hierarchy,
)
from anonset.errors import ConfigError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "COLUMNS",
    "DIAGNOSES",
    "EDUCATION_LEVELS",
    "MARITAL_STATUSES",
    "RACES",
    "SEXES",
    "patient_register",
    "patient_register_attributes",
    "patient_register_dataset",
]

#: Column names of :func:`patient_register`, in order.
COLUMNS: tuple[str, ...] = (
    "patient_id",
    "age",
    "sex",
    "zip",
    "race",
    "marital_status",
    "education",
    "diagnosis",
    "length_of_stay",
)

#: Values of ``sex``.
SEXES: tuple[str, ...] = ("F", "M")

#: Values of ``race``.
RACES: tuple[str, ...] = ("White", "Black", "Hispanic", "Asian", "Native American", "Other")

#: Values of ``marital_status``.
MARITAL_STATUSES: tuple[str, ...] = ("Never-married", "Married", "Separated", "Divorced", "Widowed")

#: Values of ``education``, lowest to highest.
EDUCATION_LEVELS: tuple[str, ...] = (
    "Preschool",
    "Primary",
    "Lower secondary",
    "Upper secondary",
    "Post-secondary",
    "Bachelor",
    "Master",
    "Doctorate",
)

#: Values of ``diagnosis`` (ICD-10-chapter-like groups).
DIAGNOSES: tuple[str, ...] = (
    "Infectious",
    "Neoplasms",
    "Endocrine",
    "Mental",
    "Nervous",
    "Circulatory",
    "Respiratory",
    "Digestive",
    "Skin",
    "Musculoskeletal",
    "Genitourinary",
    "Pregnancy",
    "Perinatal",
    "Congenital",
    "Injury",
    "Symptoms",
)

# diagnosis -> chapter group (level 1 of the diagnosis hierarchy)
_DIAGNOSIS_GROUPS: dict[str, str] = {
    "Infectious": "Acute and ill-defined",
    "Injury": "Acute and ill-defined",
    "Symptoms": "Acute and ill-defined",
    "Neoplasms": "Cancer and cardiometabolic",
    "Endocrine": "Cancer and cardiometabolic",
    "Circulatory": "Cancer and cardiometabolic",
    "Mental": "Mental and neurological",
    "Nervous": "Mental and neurological",
    "Respiratory": "Organ systems",
    "Digestive": "Organ systems",
    "Skin": "Organ systems",
    "Musculoskeletal": "Organ systems",
    "Genitourinary": "Organ systems",
    "Pregnancy": "Maternal and child",
    "Perinatal": "Maternal and child",
    "Congenital": "Maternal and child",
}

# marital status -> group (level 1 of the marital-status hierarchy)
_MARITAL_GROUPS: dict[str, str] = {
    "Never-married": "Never married",
    "Married": "Currently married",
    "Separated": "Currently married",
    "Divorced": "Formerly married",
    "Widowed": "Formerly married",
}

#: Youngest and oldest age at which ``Pregnancy`` occurs.
PREGNANCY_AGES: tuple[int, int] = (15, 50)

_MAX_AGE = 99
_AGES = np.arange(_MAX_AGE + 1, dtype=np.float64)
_MAX_STAY = 365

# ZIP regions: 3-digit prefix, share of patients, number of ZIP codes, age tilt
# (> 0: older population), education tilt (> 0: more degrees), and race mix in
# the order of RACES.
_REGIONS: tuple[tuple[str, float, int, float, float, tuple[float, ...]], ...] = (
    ("021", 0.15, 40, -0.3, 0.6, (0.58, 0.16, 0.12, 0.10, 0.01, 0.03)),
    ("024", 0.10, 35, 0.2, 0.8, (0.82, 0.03, 0.05, 0.08, 0.005, 0.015)),
    ("016", 0.07, 25, 0.1, 0.0, (0.72, 0.07, 0.13, 0.05, 0.005, 0.025)),
    ("010", 0.06, 25, 0.2, -0.3, (0.62, 0.07, 0.25, 0.03, 0.01, 0.02)),
    ("028", 0.08, 30, 0.1, -0.1, (0.66, 0.07, 0.18, 0.04, 0.01, 0.04)),
    ("060", 0.07, 25, 0.1, 0.1, (0.60, 0.14, 0.19, 0.04, 0.005, 0.025)),
    ("064", 0.05, 20, 0.0, 0.3, (0.62, 0.17, 0.14, 0.05, 0.005, 0.015)),
    ("038", 0.04, 20, 0.5, -0.1, (0.91, 0.02, 0.03, 0.02, 0.01, 0.01)),
    ("048", 0.02, 15, 0.6, -0.2, (0.91, 0.02, 0.02, 0.01, 0.03, 0.01)),
    ("100", 0.14, 40, -0.1, 1.0, (0.52, 0.13, 0.20, 0.12, 0.005, 0.025)),
    ("112", 0.13, 35, -0.2, 0.1, (0.40, 0.30, 0.18, 0.09, 0.005, 0.025)),
    ("104", 0.09, 25, -0.4, -0.6, (0.10, 0.30, 0.54, 0.04, 0.01, 0.01)),
)
_POOL_SEED = 20_160_501  # fixes the ZIP pool; independent of the caller's seed


# ---------------------------------------------------------------------------- helpers
def _sigmoid(x: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(1.0 / (1.0 + np.exp(-x)), dtype=np.float64)


def _bump(center: float, width: float) -> NDArray[np.float64]:
    """Gaussian bump over ages 0..99."""
    return np.asarray(np.exp(-(((_AGES - center) / width) ** 2)), dtype=np.float64)


def _normalize(table: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rows of ``table`` scaled to sum to one."""
    return cast("NDArray[np.float64]", table / table.sum(axis=-1, keepdims=True))


def _draw(rng: np.random.Generator, probs: NDArray[np.float64], cond: NDArray[np.integer[Any]]) -> NDArray[np.int64]:
    """One category per row from the conditional distribution ``probs[cond[i]]``.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness (one uniform number per row is used).
    probs : numpy.ndarray
        ``(n_conditions, n_categories)`` table whose rows sum to one.
    cond : numpy.ndarray
        Condition index of every row.

    Returns
    -------
    numpy.ndarray
        Category index (int64) of every row.

    Notes
    -----
    The cumulative distributions of all conditions are laid end to end,
    condition ``c`` occupying ``(c, c + 1]``, so one ``searchsorted`` of
    ``c + u`` draws every row at once without an ``(n_rows, n_categories)``
    intermediate.  A category of probability zero is never drawn.
    """
    n_cond, k = probs.shape
    cum = np.cumsum(probs, axis=1)
    cum[:, -1] = 1.0
    flat = (cum + np.arange(n_cond, dtype=np.float64)[:, None]).ravel()
    cond = np.asarray(cond, dtype=np.int64)
    u = rng.random(len(cond))
    idx = np.searchsorted(flat, cond + u, side="right")
    return np.minimum(idx - cond * k, k - 1)


def _labels(values: tuple[str, ...] | list[str]) -> NDArray[np.object_]:
    """Object array of labels, for turning codes into strings by fancy indexing."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


# ---------------------------------------------------------------------------- distributions
@lru_cache(maxsize=1)
def _zip_pool() -> tuple[NDArray[np.object_], NDArray[np.int64], NDArray[np.float64]]:
    """The fixed ZIP pool: (codes as str, region index, probability) of every ZIP."""
    pool_rng = np.random.default_rng(_POOL_SEED)
    zips: list[str] = []
    region: list[int] = []
    prob: list[float] = []
    for r, (prefix, share, n_zips, *_rest) in enumerate(_REGIONS):
        suffixes = np.sort(pool_rng.choice(100, size=n_zips, replace=False))
        popularity = 1.0 / (1.0 + pool_rng.permutation(n_zips)) ** 0.9
        popularity = share * popularity / popularity.sum()
        zips.extend(f"{prefix}{s:02d}" for s in suffixes)
        region.extend([r] * n_zips)
        prob.extend(popularity.tolist())
    p = np.asarray(prob)
    return _labels(zips), np.asarray(region, dtype=np.int64), p / p.sum()


def _age_table() -> NDArray[np.float64]:
    """P(age | region): ``(n_regions, 100)``."""
    base = 0.30 + 0.45 * _bump(30, 7) + 2.2 * _bump(76, 12) + 0.6 * _bump(58, 12)
    base[0] += 3.0  # births
    base[1:5] += 0.25  # young children
    base[90:] *= np.linspace(0.9, 0.15, _MAX_AGE + 1 - 90)
    tilt = np.array([reg[3] for reg in _REGIONS])
    return _normalize(base[None, :] * np.exp(tilt[:, None] * (_AGES[None, :] - 50.0) / 50.0))


def _female_share() -> NDArray[np.float64]:
    """P(F | age): ``(100,)``."""
    p = np.full(_MAX_AGE + 1, 0.48)
    p[15:] = 0.50 + 0.15 * _bump(29, 8)[15:] + 0.14 * np.clip((_AGES[15:] - 70.0) / 25.0, 0.0, 1.0)
    return p


def _marital_table() -> NDArray[np.float64]:
    """P(marital status | age, sex): ``(200, 5)``, condition ``age * 2 + sex``."""
    ever = 0.87 * _sigmoid((_AGES - 29.0) / 4.5)
    ever[:16] = 0.0
    out = np.zeros((_MAX_AGE + 1, 2, len(MARITAL_STATUSES)))
    for s, widow_scale in enumerate((1.0, 0.45)):  # F, M
        widowed = ever * _sigmoid((_AGES - 76.0) / 7.0) * widow_scale
        still = ever - widowed
        divorced = still * (0.04 + 0.20 * _bump(55, 16))
        separated = still * 0.03 * _bump(40, 15)
        married = still - divorced - separated
        out[:, s, :] = np.column_stack([1.0 - ever, married, separated, divorced, widowed])
    return _normalize(out.reshape(-1, len(MARITAL_STATUSES)))


def _education_table() -> NDArray[np.float64]:
    """P(education | age, region): ``(100 * n_regions, 8)``.

    The condition of a row is ``age * n_regions + region``.
    """
    young = np.array([0.002, 0.02, 0.06, 0.30, 0.18, 0.26, 0.13, 0.028])
    old = np.array([0.03, 0.16, 0.20, 0.33, 0.10, 0.12, 0.05, 0.01])
    w = np.clip((_AGES - 30.0) / 60.0, 0.0, 1.0)[:, None]
    adult = (1.0 - w) * young[None, :] + w * old[None, :]
    levels = np.arange(len(EDUCATION_LEVELS), dtype=np.float64)
    tilt = np.array([reg[4] for reg in _REGIONS])
    table = adult[:, None, :] * np.exp(tilt[None, :, None] * 0.35 * (levels - 3.5)[None, None, :])
    table = _normalize(table)
    # the highest level an age can have attained; a child is still in the top one
    max_level = np.searchsorted(np.array([6, 12, 16, 19, 22, 24, 27]), _AGES, side="right")
    over = levels[None, :] > max_level[:, None]
    capped = np.where(over[:, None, :], 0.0, table)
    rows = np.arange(_MAX_AGE + 1)
    capped[rows, :, max_level] += (table * over[:, None, :]).sum(axis=2)
    return _normalize(capped.reshape(-1, len(EDUCATION_LEVELS)))


def _diagnosis_table() -> NDArray[np.float64]:
    """P(diagnosis | age, sex): ``(200, 16)``, condition ``age * 2 + sex``."""
    a = _AGES
    child = (a < 5).astype(np.float64)
    weights = {
        "Infectious": 0.04 + 0.10 * child + 0.04 * _sigmoid((a - 75.0) / 6.0),
        "Neoplasms": 0.01 + 0.15 * _sigmoid((a - 55.0) / 8.0),
        "Endocrine": 0.015 + 0.04 * _sigmoid((a - 50.0) / 10.0),
        "Mental": 0.015 + 0.08 * _bump(32, 14),
        "Nervous": 0.025 + 0.04 * _sigmoid((a - 70.0) / 8.0),
        "Circulatory": 0.008 + 0.26 * _sigmoid((a - 62.0) / 9.0),
        "Respiratory": 0.05 + 0.12 * child + 0.08 * _sigmoid((a - 72.0) / 8.0),
        "Digestive": 0.08 + 0.02 * _bump(50, 20),
        "Skin": 0.02 + 0.0 * a,
        "Musculoskeletal": 0.015 + 0.07 * _bump(62, 14),
        "Genitourinary": 0.035 + 0.03 * _sigmoid((a - 65.0) / 10.0),
        "Pregnancy": 0.55 * _bump(29, 7),
        "Perinatal": np.where(a == 0, 1.2, 0.0),
        "Congenital": np.where(a < 5, 0.07, np.where(a < 18, 0.025, 0.003)),
        "Injury": 0.04 + 0.08 * _bump(20, 9) + 0.06 * _sigmoid((a - 82.0) / 5.0),
        "Symptoms": 0.06 + 0.0 * a,
    }
    base = np.column_stack([weights[d] for d in DIAGNOSES])
    female = base.copy()
    male = base.copy()
    lo, hi = PREGNANCY_AGES
    outside = (a < lo) | (a > hi)
    female[outside, DIAGNOSES.index("Pregnancy")] = 0.0
    male[:, DIAGNOSES.index("Pregnancy")] = 0.0
    female[:, DIAGNOSES.index("Genitourinary")] *= 1.3
    male[:, DIAGNOSES.index("Circulatory")] *= 1.3
    male[:, DIAGNOSES.index("Injury")] *= 1.0 + 0.8 * _bump(24, 14)
    male[:, DIAGNOSES.index("Mental")] *= 1.2
    return _normalize(np.stack([female, male], axis=1).reshape(-1, len(DIAGNOSES)))


# mean length of stay (days) by diagnosis at middle age
_MEAN_STAY: dict[str, float] = {
    "Infectious": 5.0,
    "Neoplasms": 7.5,
    "Endocrine": 4.5,
    "Mental": 11.0,
    "Nervous": 6.0,
    "Circulatory": 5.5,
    "Respiratory": 5.0,
    "Digestive": 4.0,
    "Skin": 3.5,
    "Musculoskeletal": 4.0,
    "Genitourinary": 3.5,
    "Pregnancy": 2.5,
    "Perinatal": 5.0,
    "Congenital": 6.0,
    "Injury": 5.0,
    "Symptoms": 2.0,
}


# ---------------------------------------------------------------------------- public API
def patient_register(n_rows: int, seed: int = 0) -> pd.DataFrame:
    """A synthetic hospital patient register.

    Parameters
    ----------
    n_rows : int
        Number of records (admissions), ``>= 0``.
    seed : int
        Seed of :func:`numpy.random.default_rng`; the same ``n_rows`` and
        ``seed`` give an identical table.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`, every value a ``str`` (object dtype):

        ``patient_id``
            ``P0000001``, ``P0000002``, ... (direct identifier).
        ``age``
            Whole years ``0``-``99``, skewed older.
        ``sex``
            ``F`` or ``M``.
        ``zip``
            Five-digit ZIP code from a fixed pool (leading zeros kept).
        ``race``
            One of :data:`RACES`, depending on the ZIP region.
        ``marital_status``
            One of :data:`MARITAL_STATUSES`, depending on age and sex.
        ``education``
            One of :data:`EDUCATION_LEVELS`, depending on age and region.
        ``diagnosis``
            One of :data:`DIAGNOSES`, depending on age and sex.
        ``length_of_stay``
            Whole days ``>= 0``, depending on diagnosis and age.

    Raises
    ------
    ConfigError
        When ``n_rows`` is negative.
    """
    n_rows = int(n_rows)
    if n_rows < 0:
        raise ConfigError(f"n_rows must be >= 0; got {n_rows}")
    rng = np.random.default_rng(seed)
    n_regions = len(_REGIONS)

    zip_labels, zip_region, zip_prob = _zip_pool()
    zip_code = rng.choice(len(zip_labels), size=n_rows, p=zip_prob)
    region = zip_region[zip_code]

    age = _draw(rng, _age_table(), region)
    sex = (rng.random(n_rows) >= _female_share()[age]).astype(np.int64)  # 0 = F, 1 = M

    race_table = _normalize(np.array([reg[5] for reg in _REGIONS]))
    race = _draw(rng, race_table, region)
    marital = _draw(rng, _marital_table(), age * 2 + sex)
    education = _draw(rng, _education_table(), age * n_regions + region)
    diagnosis = _draw(rng, _diagnosis_table(), age * 2 + sex)

    mean_stay = np.array([_MEAN_STAY[d] for d in DIAGNOSES])[diagnosis]
    mean_stay = mean_stay * (1.0 + 0.02 * np.maximum(age - 45, 0))
    sigma = 0.75
    stay = mean_stay * np.exp(sigma * rng.standard_normal(n_rows) - sigma**2 / 2.0)
    stay = np.minimum(np.floor(stay), _MAX_STAY).astype(np.int64)

    width = max(7, len(str(n_rows)))
    ids = np.strings.add("P", np.strings.zfill(np.arange(1, n_rows + 1).astype(np.str_), width))
    numbers = _labels([str(i) for i in range(max(_MAX_AGE, _MAX_STAY) + 1)])
    data = {
        "patient_id": ids.astype(object),
        "age": numbers[age],
        "sex": _labels(SEXES)[sex],
        "zip": zip_labels[zip_code],
        "race": _labels(RACES)[race],
        "marital_status": _labels(MARITAL_STATUSES)[marital],
        "education": _labels(EDUCATION_LEVELS)[education],
        "diagnosis": _labels(DIAGNOSES)[diagnosis],
        "length_of_stay": numbers[stay],
    }
    return pd.DataFrame(data, columns=list(COLUMNS))


def _domain(table: pd.DataFrame, column: str, known: tuple[str, ...]) -> list[str]:
    """``known`` values in order, then any other value of ``column`` (sorted)."""
    present = {str(v) for v in pd.unique(table[column])}
    return list(known) + sorted(present - set(known))


def _distinct(table: pd.DataFrame, column: str) -> list[str]:
    return sorted({str(v) for v in pd.unique(table[column])})


def patient_register_attributes(table: pd.DataFrame) -> dict[str, AttributeSpec]:
    """Attribute specs for a table made by :func:`patient_register`.

    Parameters
    ----------
    table : pandas.DataFrame
        A patient register (or a subset of its rows); hierarchies built from
        data values use this table's distinct values.

    Returns
    -------
    dict of str to AttributeSpec
        ``patient_id``
            Identifier.
        ``age``
            Quasi-identifier, numeric; intervals of 5, 10, 20 and 50 years,
            then ``*``.
        ``sex``
            Quasi-identifier, categorical; flat (``F``/``M`` -> ``*``).
        ``zip``
            Quasi-identifier, categorical; masking one digit at a time from
            the right, up to three (``02139`` -> ``0213*`` -> ``021**`` ->
            ``02***``), then ``*``.
        ``race``
            Quasi-identifier, categorical; flat.
        ``marital_status``
            Quasi-identifier, categorical; never / currently / formerly
            married, then ``*``.
        ``education``
            Quasi-identifier, ordinal; adjacent levels merged in pairs
            (``Preschool..Primary``), then pairs of pairs, then ``*``.
        ``diagnosis``
            Sensitive, categorical; six chapter groups, then ``*`` (for
            hierarchical t-closeness).
        ``length_of_stay``
            Insensitive, numeric.

    Values outside the generator's domains (in an edited table) are appended
    to the hierarchies as branches of their own, so the specs always cover
    the table.
    """
    age_values = _distinct(table, "age")
    zip_values = _distinct(table, "zip")
    sex_values = _domain(table, "sex", SEXES)
    race_values = _domain(table, "race", RACES)
    education_values = _domain(table, "education", EDUCATION_LEVELS)

    marital_rows = [
        [v, _MARITAL_GROUPS.get(v, v), "*"]
        for v in _domain(table, "marital_status", MARITAL_STATUSES)
    ]
    diagnosis_rows = [
        [v, _DIAGNOSIS_GROUPS.get(v, v), "*"] for v in _domain(table, "diagnosis", DIAGNOSES)
    ]

    return {
        "patient_id": AttributeSpec(role=Role.IDENTIFIER),
        "age": AttributeSpec(
            role=Role.QUASI,
            type=AttributeType.NUMERIC,
            hierarchy=interval_hierarchy(
                "age", age_values, widths=[5, 10, 20, 40], start=0, top=100
            ),
        ),
        "sex": AttributeSpec(role=Role.QUASI, hierarchy=flat_hierarchy("sex", sex_values)),
        "zip": AttributeSpec(
            role=Role.QUASI, hierarchy=masking_hierarchy("zip", zip_values, levels=3)
        ),
        "race": AttributeSpec(role=Role.QUASI, hierarchy=flat_hierarchy("race", race_values)),
        "marital_status": AttributeSpec(
            role=Role.QUASI,
            hierarchy=Hierarchy.from_rows(
                "marital_status", marital_rows, source="patient_register"
            ),
        ),
        "education": AttributeSpec(
            role=Role.QUASI,
            type=AttributeType.ORDINAL,
            hierarchy=ordered_grouping_hierarchy("education", education_values, fanouts=[2, 2]),
            order=tuple(education_values),
        ),
        "diagnosis": AttributeSpec(
            role=Role.SENSITIVE,
            hierarchy=Hierarchy.from_rows("diagnosis", diagnosis_rows, source="patient_register"),
        ),
        "length_of_stay": AttributeSpec(role=Role.INSENSITIVE, type=AttributeType.NUMERIC),
    }


def patient_register_dataset(n_rows: int = 10_000, seed: int = 0) -> Dataset:
    """A :class:`~anonset.core.dataset.Dataset` of a synthetic patient register with its specs.

    Parameters
    ----------
    n_rows : int
        Number of records (``>= 1``).
    seed : int
        Seed of the generator.

    Returns
    -------
    Dataset
        :func:`patient_register` with :func:`patient_register_attributes`.
    """
    table = patient_register(n_rows, seed)
    return Dataset(
        table,
        patient_register_attributes(table),
        source=f"patient_register(n_rows={n_rows}, seed={seed})",
    )
