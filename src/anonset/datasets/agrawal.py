"""The synthetic classification data of Agrawal et al., as LeFevre et al. used it (KDD 2006, Figure 6).

Nine predictor attributes, every one a quasi-identifier, drawn independently
except ``commission`` (which depends on ``salary``) and ``hvalue`` (on
``zipcode``), exactly as the paper's Figure 6 table gives them:

=============  ================================================  ==============
attribute      distribution                                      generalized as
=============  ================================================  ==============
``salary``     uniform in [20,000, 150,000]                      continuous
``commission`` 0 if salary >= 75,000, else uniform in            continuous
               [10,000, 75,000]
``age``        uniform integer in [20, 80]                       continuous
``elevel``     uniform integer in [0, 4]                         hierarchy
``car``        uniform integer in [1, 20]                        hierarchy
``zipcode``    uniform integer in [0, 9]                         continuous
``hvalue``     zipcode · h · 100,000, h uniform in [0.5, 1.5]    continuous
``hyears``     uniform integer in [1, 30]                        continuous
``loan``       uniform in [0, 500,000]                           continuous
=============  ================================================  ==============

The continuous money amounts are rounded to whole units (so each value is an
integer string), and the label is computed from the rounded values, so the
table is consistent as written.  The label ``group`` is ``A`` or ``B``
(Agrawal et al.'s groups), deterministic (no noise, as in the paper):

- Function 2: ``age < 40 and 50K <= salary <= 100K``, or ``40 <= age < 60 and
  75K <= salary <= 125K``, or ``age >= 60 and 25K <= salary <= 75K``.
- Function 4: per age band as in function 2, the salary interval depends on
  ``elevel``: under 40, ``elevel in {0, 1}`` → [25K, 75K] else [50K, 100K];
  from 40 to 60, ``elevel in {1, 2, 3}`` → [50K, 100K] else [75K, 125K]; from
  60, ``elevel in {2, 3, 4}`` → [50K, 100K] else [25K, 75K].
- Function 6: function 2 on ``salary + commission``.
- Function 7: ``0.67 · (salary + commission) − 0.2 · loan − 20K > 0``.

LeFevre et al. also drew "the function constants independently at random over
the range of the attribute" for functions 2, 4 and 6 (Section 4.3), which is
what :func:`draw_constants` does: the two age cut points (40, 60) are two
independent uniform integers in [20, 80], sorted; the two ends of every
salary interval are two independent uniform whole numbers in the range of
the compared quantity, sorted — [20,000, 150,000] for ``salary`` (functions
2 and 4) and [30,000, 150,000] for ``salary + commission`` (function 6; its
smallest value is 20,000 + 10,000).  The elevel sets of function 4 and the
constants of function 7 stay fixed (the paper names no range for them).

Everything is vectorized: a million rows take about a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeSpec, AttributeType, Dataset, Role
from anonset.core.hierarchy_builders import ordered_grouping_hierarchy
from anonset.errors import ConfigError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "AGRAWAL_COLUMNS",
    "AGRAWAL_FUNCTIONS",
    "ELEVEL_TYPES",
    "AgrawalConstants",
    "agrawal",
    "agrawal_attributes",
    "agrawal_dataset",
    "agrawal_label",
    "default_constants",
    "draw_constants",
    "function2_predicates",
]

#: The predictor columns of :func:`agrawal`, in order (the label ``group`` follows them).
AGRAWAL_COLUMNS: tuple[str, ...] = ("salary", "commission", "age", "elevel", "car", "zipcode", "hvalue", "hyears",
                                    "loan")
#: The label functions available.
AGRAWAL_FUNCTIONS: tuple[int, ...] = (2, 4, 6, 7)
#: How :func:`agrawal_attributes` can declare ``elevel``: the paper's hierarchy first (the default).
ELEVEL_TYPES: tuple[str, ...] = ("hierarchy", "ordinal")

_SALARY = (20_000, 150_000)
_SALARY_PLUS_COMMISSION = (30_000, 150_000)
_AGE = (20, 80)
#: Elevel sets of function 4 per age band: inside the set the first interval applies, else the second.
_ELEVEL_SETS: tuple[frozenset[int], ...] = (frozenset({0, 1}), frozenset({1, 2, 3}), frozenset({2, 3, 4}))


@dataclass(frozen=True)
class AgrawalConstants:
    """The constants of a label function.

    Attributes
    ----------
    function : int
        2, 4, 6 or 7.
    age_cuts : tuple of int
        The age bands ``age < a0``, ``a0 <= age < a1``, ``age >= a1`` (functions 2, 4, 6).
    intervals : tuple of tuple of float
        Closed intervals of salary (functions 2, 4) or salary + commission
        (function 6): one per age band for functions 2 and 6; for function 4
        two per band, ``(inside the elevel set, outside)``, band by band (six).
        Empty for function 7.
    """

    function: int
    age_cuts: tuple[int, int] = (40, 60)
    intervals: tuple[tuple[float, float], ...] = ()


def default_constants(function: int) -> AgrawalConstants:
    """The constants of Figure 6 for ``function``."""
    _check_function(function)
    if function in (2, 6):
        return AgrawalConstants(function, (40, 60), ((50_000, 100_000), (75_000, 125_000), (25_000, 75_000)))
    if function == 4:
        return AgrawalConstants(function, (40, 60), ((25_000, 75_000), (50_000, 100_000), (50_000, 100_000),
                                                     (75_000, 125_000), (50_000, 100_000), (25_000, 75_000)))
    return AgrawalConstants(7)


def draw_constants(function: int, rng: np.random.Generator) -> AgrawalConstants:
    """Random constants for functions 2, 4 and 6 (the module docstring gives the ranges); function 7's are fixed."""
    _check_function(function)
    if function == 7:
        return default_constants(7)
    ages = np.sort(rng.integers(_AGE[0], _AGE[1], size=2, endpoint=True))
    low, high = _SALARY_PLUS_COMMISSION if function == 6 else _SALARY
    n_intervals = 6 if function == 4 else 3
    ends = np.sort(rng.integers(low, high, size=(n_intervals, 2), endpoint=True), axis=1)
    return AgrawalConstants(function, (int(ages[0]), int(ages[1])),
                            tuple((float(a), float(b)) for a, b in ends))


def _check_function(function: int) -> None:
    if function not in AGRAWAL_FUNCTIONS:
        raise ConfigError(f"Agrawal label function {function!r} is not available; use one of"
                          f" {', '.join(map(str, AGRAWAL_FUNCTIONS))}")


def agrawal_label(salary: NDArray[np.number[Any]], commission: NDArray[np.number[Any]], age: NDArray[np.number[Any]],
                  elevel: NDArray[np.number[Any]], loan: NDArray[np.number[Any]],
                  constants: AgrawalConstants) -> NDArray[np.bool_]:
    """Group A (True) or B (False) of each record under a label function.

    Parameters
    ----------
    salary, commission, age, elevel, loan : numpy.ndarray
        (n,) attribute values.
    constants : AgrawalConstants
        The function and its constants.

    Returns
    -------
    numpy.ndarray
        (n,) bool, True for group A.
    """
    salary = np.asarray(salary, dtype=np.float64)
    total = salary + np.asarray(commission, dtype=np.float64)
    if constants.function == 7:
        return 0.67 * total - 0.2 * np.asarray(loan, dtype=np.float64) - 20_000 > 0
    age = np.asarray(age)
    band = (age >= constants.age_cuts[0]).astype(np.int64) + (age >= constants.age_cuts[1])
    bounds = np.asarray(constants.intervals, dtype=np.float64)
    if constants.function == 4:
        sets = np.array([[e in s for e in range(5)] for s in _ELEVEL_SETS])
        outside = ~sets[band, np.asarray(elevel, dtype=np.int64)]
        row = 2 * band + outside
    else:
        row = band
    x = total if constants.function == 6 else salary
    return cast("NDArray[np.bool_]", (bounds[row, 0] <= x) & (x <= bounds[row, 1]))


def _strings(values: NDArray[np.number[Any]]) -> NDArray[np.object_]:
    """Non-negative whole numbers as an object array of str (small domains through a lookup table)."""
    values = np.asarray(values, dtype=np.int64)
    if len(values) and values.max() < 1_000:
        return cast("NDArray[np.object_]", np.arange(values.max() + 1).astype(np.str_).astype(object)[values])
    return values.astype(np.str_).astype(object)


def agrawal(n_rows: int, function: int = 2, *, seed: int = 0, random_constants: bool = False,
            constants: AgrawalConstants | None = None) -> pd.DataFrame:
    """A table of the Agrawal generator with the label of one function.

    Parameters
    ----------
    n_rows : int
        Number of records (``>= 0``).
    function : int
        Label function 2, 4, 6 or 7.
    seed : int
        Seed of :func:`numpy.random.default_rng`; the same arguments give an identical table.
    random_constants : bool
        Draw the constants of functions 2, 4 and 6 at random (:func:`draw_constants`,
        from the same generator, before the records).
    constants : AgrawalConstants, optional
        Explicit constants (for ``function``); excludes ``random_constants``.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`AGRAWAL_COLUMNS` and ``group`` (``A`` or ``B``), every
        value a ``str`` (object dtype).  ``attrs["constants"]`` holds the
        :class:`AgrawalConstants` used.

    Raises
    ------
    ConfigError
        A negative ``n_rows``, an unknown function, constants of another
        function, or both ``constants`` and ``random_constants``.
    """
    n_rows = int(n_rows)
    if n_rows < 0:
        raise ConfigError(f"n_rows must be >= 0; got {n_rows}")
    _check_function(function)
    rng = np.random.default_rng(seed)
    if constants is not None:
        if random_constants:
            raise ConfigError("give either constants or random_constants, not both")
        if constants.function != function:
            raise ConfigError(f"the constants are those of function {constants.function}, not {function}")
    else:
        constants = draw_constants(function, rng) if random_constants else default_constants(function)
    salary = np.rint(rng.uniform(_SALARY[0], _SALARY[1], n_rows))
    commission = np.where(salary >= 75_000, 0.0, np.rint(rng.uniform(10_000, 75_000, n_rows)))
    age = rng.integers(_AGE[0], _AGE[1], n_rows, dtype=np.int64, endpoint=True)
    elevel = rng.integers(0, 4, n_rows, dtype=np.int64, endpoint=True)
    car = rng.integers(1, 20, n_rows, dtype=np.int64, endpoint=True)
    zipcode = rng.integers(0, 9, n_rows, dtype=np.int64, endpoint=True)
    hvalue = np.rint(zipcode * rng.uniform(0.5, 1.5, n_rows) * 100_000)
    hyears = rng.integers(1, 30, n_rows, dtype=np.int64, endpoint=True)
    loan = np.rint(rng.uniform(0, 500_000, n_rows))
    group = agrawal_label(salary, commission, age, elevel, loan, constants)
    table = pd.DataFrame({
        "salary": _strings(salary), "commission": _strings(commission), "age": _strings(age),
        "elevel": _strings(elevel), "car": _strings(car), "zipcode": _strings(zipcode),
        "hvalue": _strings(hvalue), "hyears": _strings(hyears), "loan": _strings(loan),
        "group": np.where(group, "A", "B").astype(object),
    })
    table.attrs["constants"] = constants
    return table


def function2_predicates(constants: AgrawalConstants | None = None) -> list[dict[str, list[float]]]:
    """Function 2's group A as three rectangles over age and salary (LeFevre et al.'s Figure 11 selections).

    Ages are whole years, so ``age < a`` is the range ``[20, a − 1]``; a
    band that holds no age (equal random cut points) is left out.
    """
    constants = constants or default_constants(2)
    if constants.function != 2:
        raise ConfigError(f"function2_predicates needs the constants of function 2, not {constants.function}")
    a0, a1 = constants.age_cuts
    bands = ((_AGE[0], a0 - 1), (a0, a1 - 1), (a1, _AGE[1]))
    return [{"age": [float(lo), float(hi)], "salary": [float(s0), float(s1)]}
            for (lo, hi), (s0, s1) in zip(bands, constants.intervals, strict=True) if lo <= hi]


def agrawal_attributes(elevel: str = "hierarchy") -> dict[str, AttributeSpec]:
    """Attribute specs for a table of :func:`agrawal`: every predictor a quasi-identifier, ``group`` the target.

    The continuous attributes of Figure 6 (``salary``, ``commission``,
    ``age``, ``zipcode``, ``hvalue``, ``hyears``, ``loan``) are numeric and
    split by value.  ``elevel`` and ``car`` are generalized through a
    hierarchy, as Figure 6 says; the paper does not give the hierarchies, so
    here consecutive levels are grouped: ``elevel`` in pairs (``0..1``,
    ``2..3``, ``4``), ``car`` in fives (``1..5`` .. ``16..20``), then ``*``.

    Parameters
    ----------
    elevel : {"hierarchy", "ordinal"}
        ``"hierarchy"`` (default, the paper's Figure 6): ``elevel`` is
        categorical, so Mondrian splits it along the hierarchy above.
        ``"ordinal"``: ``elevel`` is declared ordinal (order 0 .. 4, same
        hierarchy), so Mondrian cuts it at any threshold like a number; this
        departs from the paper.

    Returns
    -------
    dict of str to AttributeSpec
        The specs of :data:`AGRAWAL_COLUMNS` and ``group`` (the hierarchies
        cover the whole domains, so they fit any table of :func:`agrawal`).

    Raises
    ------
    ConfigError
        An unknown ``elevel``.
    """
    if elevel not in ELEVEL_TYPES:
        raise ConfigError(f"elevel must be one of {', '.join(ELEVEL_TYPES)}; got {elevel!r}")
    specs = {name: AttributeSpec(role=Role.QUASI, type=AttributeType.NUMERIC)
             for name in ("salary", "commission", "age", "zipcode", "hvalue", "hyears", "loan")}
    levels = [str(e) for e in range(5)]
    hierarchy = ordered_grouping_hierarchy("elevel", levels, fanouts=[2])
    specs["elevel"] = (AttributeSpec(role=Role.QUASI, type=AttributeType.ORDINAL, order=tuple(levels),
                                     hierarchy=hierarchy)
                       if elevel == "ordinal" else AttributeSpec(role=Role.QUASI, hierarchy=hierarchy))
    specs["car"] = AttributeSpec(role=Role.QUASI, hierarchy=ordered_grouping_hierarchy(
        "car", [str(c) for c in range(1, 21)], fanouts=[5]))
    specs["group"] = AttributeSpec(role=Role.TARGET)
    return {name: specs[name] for name in (*AGRAWAL_COLUMNS, "group")}


def agrawal_dataset(n_rows: int, function: int = 2, *, seed: int = 0, random_constants: bool = False,
                    elevel: str = "hierarchy") -> Dataset:
    """:func:`agrawal` with :func:`agrawal_attributes` (``elevel`` passed on) as a Dataset."""
    table = agrawal(n_rows, function, seed=seed, random_constants=random_constants)
    return Dataset(table, agrawal_attributes(elevel),
                   source=f"agrawal(n_rows={n_rows}, function={function}, seed={seed},"
                          f" random_constants={random_constants}, elevel={elevel!r})")
