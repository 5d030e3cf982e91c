"""Models judged against a population table: exact k-map and δ-presence.

Both take the population the input was drawn from as a table with the
input's quasi-identifiers (ARX 3.9.2 takes it as the data and the input as a
research subset of it; here the input is the table anonymized and the
population is given beside it).  For a released class, its *population
count* is the number of population records whose quasi-identifiers
generalize to the class's values:

- :class:`PopulationKMap` (k-map, Sweeney; ARX's ``KMap`` without an
  estimator): every class's population count is at least ``k``.  A record's
  population count only grows when classes merge, so the model is monotone
  with and without a suppression budget.
- :class:`DeltaPresence` (Nergiz, Atzori and Clifton; ARX's ``DPresence``):
  every class's share of its population records that are in the input,
  ``size / population count``, lies within ``[min, max]``: an attacker who
  knows someone is in the population learns little about whether they are
  in the release.  Monotone without suppression when ``min`` is 0 (a merged
  class's share lies between its parts', and population records that no
  released class held, joining a class as it grows, only lower it); with
  ``min`` above 0 those records can push a merged class below it, so it is
  not (ARX declares it monotone under generalization in both cases).

The population is encoded with the input's hierarchies, so both models judge
full-domain nodes only (a class is then a tuple of generalized codes at the
node's levels); methods that form classes otherwise do not enforce them.
When anonset encodes the input itself (a configuration's run, ``fit`` on
a table), it builds the hierarchies given as builders, or not given, from
the population's values, which hold the input's
(:meth:`PopulationModel.attributes_for`), so that every population record
finds its place; a hierarchy file must list them.  The input must be a sample of the
population: a combination of quasi-identifier values the input holds more
often than the population is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeAlias, Union

import numpy as np

from anonset.core.specs import Role, attribute_spec
from anonset.core.stats import ClassStats
from anonset.errors import ConfigError, HierarchyError
from anonset.privacy.base import PrivacyModel, require_int, require_number

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset

__all__ = ["DeltaPresence", "PopulationKMap", "PopulationModel", "PopulationTable"]

#: The population: a table in memory, or a reader of one named by where it is (``population: PATH``).
#: (Named as strings: pandas and Arrow are imported only when a table is at hand.)
PopulationTable: TypeAlias = Union["pd.DataFrame", "pa.Table", Callable[[], Union["pd.DataFrame", "pa.Table"]]]


class PopulationModel(PrivacyModel):
    """A model judging each class by its population count (see the module).

    Parameters
    ----------
    population : pandas.DataFrame, pyarrow.Table or callable
        The population's records, with at least the input's
        quasi-identifiers (other columns are ignored), or a function reading
        them (called once, when the model is validated).
    name : str, optional
        How messages and the summary name the population (a file's path).
    """

    def __init__(self, population: PopulationTable, name: str | None = None):
        if not _is_table(population) and not callable(population):
            raise ConfigError(f"{self.owner}: the population must be a table (a DataFrame or an Arrow table) or, in"
                              f" a configuration, a file path; got {type(population).__name__}")
        self._source = population
        self.population_name = name or "the population table"
        self._table: pd.DataFrame | pa.Table | None = None
        self._encoded: Dataset | None = None  # the population encoded by attributes_for
        self._cells: NDArray[np.int32] | None = None  # distinct leaf tuples of the population
        self._held: NDArray[np.int64] | None = None  # population records holding each
        self._maps: list[list[NDArray[np.int32]]] = []  # per quasi-identifier, its leaf-to-level maps
        self._sizes: list[NDArray[np.int64]] = []  # per quasi-identifier, its values per level

    @property
    def owner(self) -> str:
        """The model in user words, as messages name it."""
        raise NotImplementedError

    @property
    def population(self) -> pd.DataFrame | pa.Table:
        """The population's records (read on first use)."""
        if self._table is None:
            source = self._source
            table = source if _is_table(source) else source()
            if not _is_table(table):
                raise ConfigError(f"{self.owner}: reading {self.population_name} gave no table")
            self._table = table
        return self._table

    @property
    def population_records(self) -> int:
        """How many records the population holds."""
        table = self.population
        return int(table.num_rows) if _is_arrow(table) else len(table)

    @property
    def population_key(self) -> str:
        """What names this population in the ``population`` counts of class statistics.

        The table given: two models given the same table share their counts.
        """
        return f"{self.population_name} ({id(self._source):x})"

    @property
    def source(self) -> PopulationTable:
        """The population as given: a table, or the function that reads it."""
        return self._source

    def attributes_for(self, attributes: Mapping[str, Any]) -> dict[str, Any]:
        """``attributes`` with the quasi-identifiers' hierarchies built from the population (which holds the input).

        A hierarchy given as a builder (or none, for a categorical column)
        is built from the values of the table it is built on; built from the
        input, it would lack the population's other values.
        """
        from anonset.core.dataset import Dataset

        quasi = {name: attribute_spec(name, spec) for name, spec in attributes.items()}
        quasi = {name: spec for name, spec in quasi.items() if spec.role is Role.QUASI}
        if not quasi:
            return dict(attributes)
        population = Dataset(self._columns(tuple(quasi)), quasi, source=self.population_name)
        self._encoded = population  # validate reuses it when the input is encoded with these hierarchies
        return {**attributes, **{name: population.resolved_specs()[name] for name in quasi}}

    def _columns(self, quasi: tuple[str, ...]) -> pd.DataFrame | pa.Table:
        """The population's quasi-identifier columns; a ConfigError naming a missing one."""
        table = self.population
        columns = table.column_names if _is_arrow(table) else [str(c) for c in table.columns]
        missing = [q for q in quasi if q not in columns]
        if missing:
            raise ConfigError(f"{self.owner}: {self.population_name} has no column {missing[0]!r}; the population"
                              " needs every quasi-identifier of the input, with the same names")
        return table.select(list(quasi)) if _is_arrow(table) else table[list(quasi)]

    def validate(self, dataset: Dataset) -> None:
        """Encode the population with the input's hierarchies; refuse an input that is not a sample of it."""
        from anonset.core.dataset import Dataset

        if not dataset.in_memory:
            raise ConfigError(f"{self.owner}: the input must be read into memory (engine: numpy) to be compared"
                              f" with {self.population_name}")
        if not dataset.quasi:
            raise ConfigError(f"{self.owner}: no attribute has role quasi; the population is compared on them")
        hierarchies = [dataset.require_hierarchy(q) for q in dataset.quasi]
        specs = {q: replace(dataset.resolved_specs()[q], role=Role.QUASI) for q in dataset.quasi}
        encoded = self._encoded
        try:
            if encoded is None or encoded.quasi != dataset.quasi or any(
                    encoded.hierarchy(q) is not dataset.hierarchy(q) for q in dataset.quasi):
                encoded = Dataset(self._columns(dataset.quasi), specs, source=self.population_name)
        except HierarchyError as exc:
            raise ConfigError(f"{self.owner}: {exc}; the hierarchies must cover the population: give hierarchies that"
                              " list its values, or give the table (not a Dataset) to fit so that anonset builds"
                              " them from the population") from exc
        cells, held = _distinct_rows(encoded.qi_codes())
        sample, sample_held = _distinct_rows(dataset.qi_codes())
        found = _lookup(sample, cells)
        in_population = np.where(found >= 0, held[np.maximum(found, 0)], 0)
        over = np.flatnonzero(sample_held > in_population)
        if len(over):
            row = sample[over[0]]
            values = ", ".join(f"{q} {h.labels[0][row[j]]!r}" for j, (q, h) in enumerate(
                zip(dataset.quasi, hierarchies, strict=True)))
            held_here = int(sample_held[over[0]])
            raise ConfigError(f"{self.owner}: {dataset.source} holds {held_here} record{'s' * (held_here != 1)} with"
                              f" ({values}) but {self.population_name} only {int(in_population[over[0]])}; the"
                              " input must be a sample of the population (give the population it was drawn from)")
        self._cells, self._held = cells, held
        self._maps = [list(h.maps) for h in hierarchies]
        self._sizes = [np.array([h.size(level) for level in range(h.n_levels)], dtype=np.int64) for h in hierarchies]

    def floor_cells(self, bottom: ClassStats) -> ClassStats:
        """The bottom classes (population 0) and the population's tuples (no records; their people), for floors."""
        if self._cells is None or self._held is None or bottom.keys.shape[1] != self._cells.shape[1]:
            return bottom
        n = len(self._cells)
        return ClassStats(
            np.concatenate([bottom.sizes, np.zeros(n, dtype=np.int64)]),
            np.concatenate([bottom.keys, self._cells]).astype(np.int32),
            histograms={a: np.concatenate([h, np.zeros((n, h.shape[1]), dtype=h.dtype)])
                        for a, h in bottom.histograms.items()},
            population={**{name: np.concatenate([c, np.zeros(n, dtype=np.int64)])
                           for name, c in bottom.population.items()},
                        self.population_key: np.concatenate([np.zeros(bottom.n_classes, dtype=np.int64),
                                                             self._held])})

    def population_counts(self, stats: ClassStats) -> NDArray[np.int64]:
        """(c,) each class's population count: the population records generalizing to its values.

        Counted already when ``stats`` carries them (the re-check counts
        them from the released values), else from the classes' generalized
        codes at the node's levels.
        """
        counted = stats.population.get(self.population_key)
        if counted is not None:
            return counted
        if self._cells is None or self._held is None:
            raise RuntimeError(f"{type(self).__name__}.validate(dataset) must be called before judging classes")
        if stats.levels is None or stats.keys.shape[1] != len(self._maps):
            raise ConfigError(f"{self.owner}: judges the classes of full-domain generalization only (a level per"
                              " quasi-identifier); choose optimal, exhaustive or another full-domain method")
        levels = stats.levels
        radix = np.array([self._sizes[j][level] for j, level in enumerate(levels)], dtype=np.int64)
        maps = [self._maps[j][level] for j, level in enumerate(levels)]
        if float(np.prod(radix.astype(np.float64))) < 2.0 ** 62:
            from anonset.privacy.population_kernels import population_counts_at  # here: numba when judging

            offsets = np.cumsum([0, *(len(m) for m in maps[:-1])]).astype(np.int64)
            return population_counts_at(self._cells, self._held, np.concatenate(maps).astype(np.int32), offsets,
                                        radix, np.ascontiguousarray(stats.keys, dtype=np.int32))
        generalized = np.column_stack([m[self._cells[:, j]] for j, m in enumerate(maps)])
        found = _lookup(generalized, stats.keys, radix)
        return np.bincount(found[found >= 0], weights=self._held[found >= 0],
                           minlength=stats.n_classes).astype(np.int64)

    def summary(self) -> dict[str, object]:
        """Parameters and the population's name and size."""
        out = {k: v for k, v in vars(self).items() if not k.startswith("_") and k != "population_name"}
        return {"model": type(self).__name__, **out, "population": self.population_name,
                "population_records": self.population_records}


class PopulationKMap(PopulationModel):
    """k-map against a population table: every class matches at least ``k`` population records (see the module).

    Parameters
    ----------
    k : int
        The fewest population records a class may match, >= 2.
    population, name
        As for :class:`PopulationModel`.
    """

    monotonic = True

    def __init__(self, k: int, population: PopulationTable, name: str | None = None):
        self.k = require_int("k-map", "k", k, 2)
        super().__init__(population, name)

    @property
    def owner(self) -> str:
        """``k-map``."""
        return "k-map"

    @property
    def monotonic_with_suppression(self) -> bool:
        """True: a record's population count never falls when its class merges with others."""
        return True

    @property
    def gives_violation_floor(self) -> bool:
        """True: a group matching fewer than k people."""
        return True

    def violation_floor(self, stats: ClassStats) -> NDArray[np.int64]:
        """A group matching fewer than k people: all its records (no part of it matches more); else 0.

        Groups whose people were not counted (:meth:`floor_cells`) get 0.
        """
        counted = stats.population.get(self.population_key)
        if counted is None:
            return np.zeros(stats.n_classes, dtype=np.int64)
        return np.where(counted < self.k, stats.sizes, 0).astype(np.int64)

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """Population count >= k."""
        return np.asarray(self.population_counts(stats) >= self.k, dtype=np.bool_)

    def describe(self) -> str:
        """E.g. ``5-map in population.csv``."""
        return f"{self.k}-map in {self.population_name}"


class DeltaPresence(PopulationModel):
    """δ-presence: every class's share ``size / population count`` lies in ``[min, max]`` (see the module).

    Parameters
    ----------
    min, max : float
        The bounds, ``0 <= min <= max <= 1`` (ARX's δ_min and δ_max).
    population, name
        As for :class:`PopulationModel`.
    """

    def __init__(self, min: float, max: float, population: PopulationTable,
                 name: str | None = None):
        self.min = require_number("δ-presence", "min", min, 0.0, 1.0)
        self.max = require_number("δ-presence", "max", max, 0.0, 1.0)
        if self.min > self.max:
            raise ConfigError(f"δ-presence: min = {min!r} is above max = {max!r}; give min <= max")
        super().__init__(population, name)

    @property
    def owner(self) -> str:
        """``δ-presence``."""
        return "δ-presence"

    @property
    def monotonic(self) -> bool:  # type: ignore[override]  # a property where the base has a class attribute
        """True when ``min`` is 0 (see the module)."""
        return self.min == 0.0

    @property
    def protects(self) -> bool:
        """False for ``[0, 1]``: every share lies there."""
        return self.min > 0.0 or self.max < 1.0

    def shares(self, stats: ClassStats) -> NDArray[np.float64]:
        """(c,) each class's share of its population records that are in the input."""
        return np.asarray(stats.sizes / np.maximum(self.population_counts(stats), 1), dtype=np.float64)

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """``min <= size / population count <= max``."""
        share = self.shares(stats)
        return np.asarray((share >= self.min) & (share <= self.max), dtype=np.bool_)

    def describe(self) -> str:
        """E.g. ``(0.05, 0.5)-presence in population.csv``."""
        return f"({self.min:g}, {self.max:g})-presence in {self.population_name}"


def _is_arrow(table: object) -> bool:
    """Whether ``table`` is an Arrow table (without importing Arrow)."""
    return type(table).__module__.startswith("pyarrow") and hasattr(table, "column_names")


def _is_table(table: object) -> bool:
    """Whether ``table`` is a pandas DataFrame or an Arrow table (without importing either)."""
    return _is_arrow(table) or (type(table).__module__.startswith("pandas") and hasattr(table, "columns"))


def _distinct_rows(codes: NDArray[np.int32]) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
    """The distinct rows of a code matrix and how many rows hold each (one int64 per row where they fit)."""
    radix = codes.max(axis=0, initial=0).astype(np.int64) + 1
    combined = _codes(codes, radix)
    if combined is None:
        rows, held = np.unique(codes, axis=0, return_counts=True)
        return rows.astype(np.int32), held.astype(np.int64)
    _, first, held = np.unique(combined, return_index=True, return_counts=True)
    return codes[first].astype(np.int32), held.astype(np.int64)


def _codes(rows: NDArray[np.integer[Any]], radix: list[np.int64] | NDArray[np.int64]) -> NDArray[np.int64] | None:
    """One int64 per row: the row's codes as digits of a mixed-radix number; None when that overflows int64."""
    if float(np.prod([float(b) for b in radix])) >= 2.0 ** 62:
        return None
    out = np.zeros(len(rows), dtype=np.int64)
    for j, base in enumerate(radix):
        out *= int(base)
        out += rows[:, j]
    return out


def _lookup(table: NDArray[np.integer[Any]], wanted: NDArray[np.integer[Any]],
            radix: list[np.int64] | NDArray[np.int64] | None = None) -> NDArray[np.int64]:
    """For each row of ``table``, the index of the equal row of ``wanted`` (whose rows are distinct), or -1.

    ``radix``: each column's number of codes (default: from the data).
    """
    if radix is None:
        radix = np.maximum(table.max(axis=0, initial=0), wanted.max(axis=0, initial=0)).astype(np.int64) + 1
    left, right = _codes(table, radix), _codes(wanted, radix)
    if left is None or right is None:  # too many combinations for one int64: number the distinct rows instead
        _, ids = np.unique(np.vstack([wanted, table]), axis=0, return_inverse=True)
        ids = ids.ravel()
        left, right = ids[len(wanted):].astype(np.int64), ids[:len(wanted)].astype(np.int64)
    if len(right) == 0:
        return np.full(len(left), -1, dtype=np.int64)
    order = np.argsort(right, kind="stable")
    position = np.minimum(np.searchsorted(right[order], left), len(right) - 1)
    return np.where(right[order][position] == left, order[position], -1).astype(np.int64)
