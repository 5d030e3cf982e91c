"""Typed, immutable facts of a release: how each family of methods found it, and its provenance.

A :class:`~anonset.release.release.Release` carries one of four kinds of
method facts in ``search``:

* :class:`SearchFacts`: a full-domain search (``optimal``, ``exhaustive``,
  ``rv-*``): nodes checked, lattice size, the metric optimized, which entry
  was picked, and for the research-value searches the success list;
* :class:`GroupingFacts`: a partitioning method (``k-member``, ``xu-*``,
  ``mondrian``): its classes, the largest one, whether ranges may overlap;
* :class:`FrontFacts`: a trade-off search (``pareto-*``): the front, the
  member released and how it was chosen (pick or floor), the floors, η, ε;
* :class:`TransformFacts`: a learned recoding applied to new records.

and a :class:`Provenance` (versions, seed, configuration, for a release
written inside a database also the database and table), which every release
gets from :func:`provenance` (the Anonymizer's and distributed Mondrian's
alike).  Each writes its
part of the release summary (``to_json``); the summary keeps a search's long
lists (a success list, a front) at its top level (``lists_json``).
:func:`front_summary` is the summary of a front looked at before any member
is released.
Collections are tuples and read-only mappings.
"""

from __future__ import annotations

import platform
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from anonset.version import __version__

if TYPE_CHECKING:
    from anonset.methods.full_domain.search import SearchResult
    from anonset.methods.pareto.objectives import ParetoResult
    from anonset.metrics.base import Metric
    from anonset.privacy.base import Requirements

__all__ = [
    "FrontEntry",
    "FrontFacts",
    "GroupingFacts",
    "MethodFacts",
    "Provenance",
    "SearchFacts",
    "SuccessListEntry",
    "TransformFacts",
    "front_entries",
    "front_summary",
    "frozen",
    "provenance",
    "thawed",
]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def frozen(value: Any) -> Any:
    """``value`` with every dict turned into a read-only mapping and every list into a tuple (recursively)."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: frozen(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    return value


def thawed(value: Any) -> Any:
    """JSON-ready ``value``: read-only mappings become dicts and tuples lists (recursively)."""
    if isinstance(value, Mapping):
        return {k: thawed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thawed(v) for v in value]
    return value


@dataclass(frozen=True)
class SuccessListEntry:
    """A string of a research-value search's success list: its levels, research value and roots."""

    levels: Mapping[str, int]
    research_value: float
    roots: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "levels", frozen(self.levels))

    def to_json(self) -> dict[str, Any]:
        return {"levels": dict(self.levels), "research_value": self.research_value, "roots": self.roots}


@dataclass(frozen=True)
class SearchFacts:
    """How a full-domain search found its node.

    Attributes
    ----------
    nodes_checked : int
        Nodes the search judged (for a research-value search: frequency sets).
    lattice_size : int
        Nodes in the lattice.
    nodes_computed : int
        Class tables the engine computed.
    search_seconds : float
        Wall time of the search.
    optimized : str
        The metric the search optimized.
    picked : int
        The entry of the success list released (0 for the other searches).
    strategy : str or None
        How the search went (``bound-ordered``, ``rv-global``, ...).
    frequency_sets : int or None
        Frequency sets computed (research-value searches).
    complete : bool or None
        Whether a research-value search ran to its end (False: it stopped at
        ``max_frequency_sets`` and its result is not proven optimal).
    success_list : tuple of SuccessListEntry, or None
        A research-value search's successful strings, best first.
    details : mapping
        Other facts the method reports (``prefiltered``, ``subsets``, ...), in its order.
    suppressed_cells : mapping of str to int, optional
        Values blanked per quasi-identifier instead of suppressing records
        (``suppression: cells``), written to the summary's top level as
        ``suppressed_cells``.
    """

    nodes_checked: int
    lattice_size: int
    nodes_computed: int
    search_seconds: float
    optimized: str
    picked: int = 0
    strategy: str | None = None
    frequency_sets: int | None = None
    complete: bool | None = None
    success_list: tuple[SuccessListEntry, ...] | None = None
    details: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    suppressed_cells: Mapping[str, int] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "details", frozen(self.details))
        if self.suppressed_cells is not None:
            object.__setattr__(self, "suppressed_cells", frozen(self.suppressed_cells))
        if self.success_list is not None:
            object.__setattr__(self, "success_list", tuple(self.success_list))

    @classmethod
    def of(cls, result: SearchResult, *, nodes_computed: int, optimized: str, picked: int) -> SearchFacts:
        """The facts of a search's result (its ``details`` sorted into the typed fields)."""
        details: dict[str, Any] = dict(result.details)
        strategy = details.pop("strategy", None)
        frequency_sets = details.pop("frequency_sets", None)
        complete = details.pop("complete", None)
        entries = details.pop("success_list", None)
        success_list = None
        if entries is not None:
            success_list = tuple(SuccessListEntry(levels=e["levels"], research_value=e["research_value"],
                                                  roots=e["roots"]) for e in entries)
        return cls(nodes_checked=result.checks, lattice_size=result.lattice_size, nodes_computed=nodes_computed,
                   search_seconds=result.seconds, optimized=optimized, picked=picked,
                   strategy=None if strategy is None else str(strategy),
                   frequency_sets=None if frequency_sets is None else int(frequency_sets),
                   complete=None if complete is None else bool(complete), success_list=success_list,
                   details=details)

    def to_json(self) -> dict[str, Any]:
        """The summary's ``search`` section (the success list is at the summary's top level)."""
        out: dict[str, Any] = {
            "nodes_checked": self.nodes_checked, "lattice_size": self.lattice_size,
            "nodes_computed": self.nodes_computed, "search_seconds": round(self.search_seconds, 4),
            "optimized": self.optimized, "picked": self.picked,
        }
        if self.strategy is not None:
            out["strategy"] = self.strategy
        if self.frequency_sets is not None:
            out["frequency_sets"] = self.frequency_sets
        if self.complete is not None:
            out["complete"] = self.complete
        out.update(thawed(self.details))
        return out

    def lists_json(self) -> dict[str, Any]:
        """What the summary keeps at its top level: ``success_list`` and ``frequency_sets`` (when there is a list),
        ``suppressed_cells`` (when values were blanked instead of records suppressed)."""
        out: dict[str, Any] = {}
        if self.success_list is not None:
            out.update(success_list=[e.to_json() for e in self.success_list], frequency_sets=self.frequency_sets)
        if self.suppressed_cells is not None:
            out["suppressed_cells"] = dict(self.suppressed_cells)
        return out


@dataclass(frozen=True)
class GroupingFacts:
    """How a partitioning method grouped the records.

    Attributes
    ----------
    method_seconds : float
        Wall time of the method.
    classes : int
        Classes the method formed.
    largest_class : int
        Records in its largest class.
    ranges_may_overlap : bool
        Whether ranges of different classes may overlap (local recoding;
        strict partitioning's regions never share a value).
    suppressed_cells : mapping of str to int, optional
        Values blanked per quasi-identifier (local suppression), written to
        the summary's top level as ``suppressed_cells``.
    microaggregation : mapping, optional
        How numbers were aggregated (algorithm, statistic, attributes,
        groups and sdcMicro's ``dUtility`` figures), written to the
        summary's top level as ``microaggregation``.
    """

    method_seconds: float
    classes: int
    largest_class: int
    ranges_may_overlap: bool
    suppressed_cells: Mapping[str, int] | None = None
    microaggregation: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"method_seconds": round(self.method_seconds, 4), "classes": self.classes,
                "largest_class": self.largest_class, "ranges_may_overlap": self.ranges_may_overlap}

    def lists_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.suppressed_cells is not None:
            out["suppressed_cells"] = dict(self.suppressed_cells)
        if self.microaggregation is not None:
            out["microaggregation"] = dict(self.microaggregation)
        return out


@dataclass(frozen=True)
class FrontEntry:
    """A member of a trade-off front: its levels, objective values and suppressed records."""

    levels: Mapping[str, int]
    objectives: Mapping[str, float]
    suppressed_rows: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "levels", frozen(self.levels))
        object.__setattr__(self, "objectives", frozen(self.objectives))

    def to_json(self) -> dict[str, Any]:
        return {"levels": dict(self.levels), "objectives": dict(self.objectives),
                "suppressed_rows": self.suppressed_rows}


def front_entries(result: ParetoResult) -> tuple[FrontEntry, ...]:
    """The members of a front, in the order ``pick`` counts (sorted by the first objective)."""
    return tuple(FrontEntry(levels=dict(zip(result.quasi, m.levels, strict=True)), objectives=dict(m.objectives),
                            suppressed_rows=m.suppressed_rows) for m in result.front)


@dataclass(frozen=True)
class FrontFacts:
    """How a trade-off search found its front and which member it released.

    Attributes
    ----------
    nodes_evaluated : int
        Distinct lattice nodes evaluated.
    lattice_size : int
        Nodes in the lattice.
    search_seconds : float
        Wall time of the search.
    objectives : tuple of str
        The objectives, in the order of the members' values.
    eta : float
        The suppression budget (fraction of the records).
    epsilon : tuple of float, or None
        The discretization vector (None: plain dominance).
    picked : int
        The member released.
    chosen_by : {"pick", "floor"}
        Whether it was picked, or is the least-loss member meeting the floors.
    floors : mapping of str to float
        The floors the requirements state (``k``, ``l``).
    front : tuple of FrontEntry
        The members, in the order ``pick`` counts.
    """

    nodes_evaluated: int
    lattice_size: int
    search_seconds: float
    objectives: tuple[str, ...]
    eta: float
    epsilon: tuple[float, ...] | None
    picked: int
    chosen_by: str
    floors: Mapping[str, float]
    front: tuple[FrontEntry, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "objectives", tuple(self.objectives))
        if self.epsilon is not None:
            object.__setattr__(self, "epsilon", tuple(self.epsilon))
        object.__setattr__(self, "floors", frozen(self.floors))
        object.__setattr__(self, "front", tuple(self.front))

    @classmethod
    def of(cls, result: ParetoResult, *, picked: int, chosen_by: str, floors: Mapping[str, float],
           eta: float | None = None) -> FrontFacts:
        """The facts of a front search's result and the member released (``eta``: as the requirements state it)."""
        return cls(nodes_evaluated=result.nodes_evaluated, lattice_size=result.lattice_size,
                   search_seconds=result.seconds, objectives=result.objectives,
                   eta=result.eta if eta is None else eta,
                   epsilon=result.epsilon, picked=picked, chosen_by=chosen_by, floors=floors,
                   front=front_entries(result))

    def to_json(self) -> dict[str, Any]:
        """The summary's ``search`` section (the front is at the summary's top level)."""
        return {"nodes_evaluated": self.nodes_evaluated, "lattice_size": self.lattice_size,
                "search_seconds": round(self.search_seconds, 4), "objectives": list(self.objectives),
                "eta": self.eta, "epsilon": None if self.epsilon is None else list(self.epsilon),
                "picked": self.picked, "chosen_by": self.chosen_by, "floors": dict(self.floors)}

    def lists_json(self) -> dict[str, Any]:
        """What the summary keeps at its top level: ``front`` and ``nodes_evaluated``."""
        return {"front": [e.to_json() for e in self.front], "nodes_evaluated": self.nodes_evaluated}


def front_summary(method: str, result: ParetoResult) -> dict[str, Any]:
    """The JSON summary of a front looked at without releasing a member (``released`` is false)."""
    return {
        "method": method, "released": False, "objectives": list(result.objectives),
        "nodes_evaluated": result.nodes_evaluated, "lattice_size": result.lattice_size, "eta": result.eta,
        "epsilon": None if result.epsilon is None else list(result.epsilon), "seconds": round(result.seconds, 4),
        "front": [e.to_json() for e in front_entries(result)],
    }


@dataclass(frozen=True)
class TransformFacts:
    """A learned recoding applied to new records (``classes``: a partitioning method's grown classes)."""

    classes: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"transform": True}
        if self.classes is not None:
            out["classes"] = self.classes
        return out

    def lists_json(self) -> dict[str, Any]:
        return {}


#: The facts a release carries about the method that produced it.
MethodFacts = SearchFacts | GroupingFacts | FrontFacts | TransformFacts


@dataclass(frozen=True)
class Provenance:
    """What produced a release: versions, seed, method and options, source, requirements.

    ``engine``, ``database`` and ``output_table`` are set for a release
    written inside a database (``output_table`` is None once the records
    were copied from a scratch table to a file).
    """

    anonset: str
    python: str
    numpy: str
    pandas: str
    seed: int
    method: str
    metric: str | None
    method_options: Mapping[str, Any]
    source: str
    requirements: tuple[Mapping[str, Any], ...]
    max_suppression: float
    engine: str | None = None
    database: str | None = None
    output_table: str | None = None
    perturbation: tuple[Mapping[str, Any], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "method_options", frozen(self.method_options))
        object.__setattr__(self, "requirements", frozen(self.requirements))
        object.__setattr__(self, "perturbation", frozen(self.perturbation))

    def to_json(self, config: str | None = None) -> dict[str, Any]:
        """The summary's ``provenance`` section; ``config``: the configuration file of the run, when there is one."""
        out: dict[str, Any] = {
            "anonset": self.anonset, "python": self.python, "numpy": self.numpy, "pandas": self.pandas,
            "seed": self.seed, "method": self.method, "metric": self.metric,
            "method_options": thawed(self.method_options), "source": self.source,
            "requirements": thawed(self.requirements), "max_suppression": self.max_suppression,
        }
        if self.engine is not None:
            out["engine"] = self.engine
        if self.database is not None:
            out["database"] = self.database
        if self.output_table is not None:
            out["output_table"] = self.output_table
        if self.perturbation:
            out["perturbation"] = thawed(self.perturbation)
        if config is not None:
            out["config"] = config
        return out


def provenance(*, method: str, method_options: Mapping[str, Any] | None, metric: str | Metric | None, seed: int,
               source: str, requirements: Requirements, engine: str | None = None, database: str | None = None,
               output_table: str | None = None,
               perturbation: tuple[Mapping[str, Any], ...] = ()) -> Provenance:
    """The provenance of a release made now: this process's versions, and the run's configuration.

    Parameters
    ----------
    method, method_options, metric, seed
        As configured (``method_options`` as given; a metric object is named by its ``name``).
    source : str
        How the input is named.
    requirements : Requirements
        The privacy models and the suppression budget.
    engine, database, output_table : str, optional
        For a release written by an engine (a database, Spark): see :class:`Provenance`.
    perturbation : tuple of mapping
        The perturbations applied after the method, each ``{kind, attributes, parameters}``.
    """
    import numpy as np
    import pandas as pd

    return Provenance(
        anonset=__version__, python=platform.python_version(), numpy=np.__version__, pandas=pd.__version__,
        seed=seed, method=method, metric=metric if isinstance(metric, str) or metric is None else metric.name,
        method_options=dict(method_options or {}), source=source,
        requirements=tuple(m.summary() for m in requirements.models), max_suppression=requirements.max_suppression,
        engine=engine, database=database, output_table=output_table, perturbation=perturbation,
    )
