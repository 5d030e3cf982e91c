"""Exact full-domain generalization: the exhaustive sweep and the pruned optimal search.

Both return the feasible node with the best metric; ties are broken by fewer
suppressed records, then the lower sum of levels, then the lexicographically
smaller levels, so the two searches agree node for node.

The optimal search is exact for every privacy model and metric, with no
"practical monotonicity" assumption:

* Nodes are visited in ascending order of a lower bound of the objective
  computed from the levels alone (for per-cell metrics: the cost of the
  generalization without suppression, which never decreases upwards and
  never exceeds the true cost since a suppressed cell costs the maximum).
  The search stops at the first node whose bound exceeds the best objective
  found: no later node can beat it.
* Infeasible nodes are skipped without computing their classes where that is
  sound: (1) a necessary condition from single attributes, pairs and (when
  the models are not monotone, so every check costs more) triples of
  attributes — the records of a value combination occurring fewer than k
  times at those attributes' levels are suppressed in every node using those
  levels, so if they exceed the budget the node is infeasible; models that
  judge sensitive values add their own floors of one- and two-attribute
  groups (β-likeness, δ-disclosure and t-closeness with the equal distance:
  a group holding too much of a value, or of a set of values, leaves some of
  its records violating however it is divided; l-diversity: a group with too
  few values; k-map against a population: a group matching fewer than k
  people) (:mod:`~anonset.methods.full_domain.bounds`);
  (2) the violation floor of a checked node's classes
  (:meth:`~anonset.privacy.base.Requirements.violation_floor`: the records
  in classes smaller than k, plus what those models' floors add) never grows
  when classes merge and never shrinks when they split, so when it exceeds
  the budget every node below is infeasible, and when it does not, every
  node above needs no such check; the same holds for any combination of
  monotone models when nothing may be suppressed.

l-diversity, t-closeness, β-likeness and δ-disclosure with a suppression
budget are not monotone, so the search never infers their feasibility from
other nodes; a node whose floor exceeds the budget is not judged by them at
all (it cannot be released).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.lattice import Lattice
from anonset.core.partition import Partition
from anonset.core.stats import ClassStats
from anonset.engine.base import Engine
from anonset.errors import InfeasibleError
from anonset.methods.full_domain.bounds import (
    floor_suppression,
    single_attribute_suppression,
    subset_suppression,
    suppression_lower_bound,
)
from anonset.metrics.base import Metric
from anonset.privacy.base import Requirements, Verdict
from anonset.progress import task as progress_task

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["FEASIBLE", "INFEASIBLE", "NOT_CHECKED", "PRUNED", "TAGGED", "LevelFloors", "NodeRecord", "SearchResult",
           "exhaustive_search", "fixed_node", "lattice_of", "level_floors", "optimal_search"]

_REL_TOL = 1e-12


#: The states of a node in a search's record (:class:`NodeRecord`): not looked at (the search stopped before it,
#: its bound could not beat the optimum); judged in full, feasible or not; known infeasible without being judged
#: (its records' lower bound exceeds the budget, or it lies below a node whose monotone part failed); known
#: feasible without being judged (above a feasible node, when every model is monotone).
NOT_CHECKED, FEASIBLE, INFEASIBLE, PRUNED, TAGGED = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class NodeRecord:
    """What a search learned about each node of its lattice: what the workbench's lattice view shows.

    Attributes
    ----------
    nodes : (size, d) int64 array
        The lattice's nodes (levels per quasi-identifier), in the lattice's order.
    state : (size,) int8 array
        Each node's state (:data:`NOT_CHECKED` .. :data:`TAGGED`).
    objective : (size,) float64 array
        The metric's objective of a node judged feasible; NaN elsewhere.
    """

    nodes: NDArray[np.int64]
    state: NDArray[np.int8]
    objective: NDArray[np.float64]


@dataclass
class SearchResult:
    """Outcome of a full-domain search (``record``: what it learned about each node, where it keeps one)."""

    levels: tuple[int, ...]
    stats: ClassStats
    verdict: Verdict
    score: float
    objective: float
    checks: int
    lattice_size: int
    seconds: float
    feasible_found: int = 0
    details: dict[str, object] = field(default_factory=dict)
    record: NodeRecord | None = None


def lattice_of(dataset: Dataset, max_levels: list[int] | None = None) -> Lattice:
    """The lattice of a dataset's quasi-identifier hierarchies, from each one's ``min_level`` (its floor) up.

    ``max_levels``: lower tops (a part of the lattice, e.g. one attribute
    kept at or below a level; each at least its floor).
    """
    tops = [h.max_level for h in dataset.hierarchies] if max_levels is None else max_levels
    return Lattice(tops, dataset.quasi, [dataset.specs[q].min_level for q in dataset.quasi])


def _key(objective: float, suppressed: int, levels: tuple[int, ...]) -> tuple[float, int, int, tuple[int, ...]]:
    return (objective, suppressed, sum(levels), levels)


def _better(a: tuple[float, int, int, tuple[int, ...]], b: tuple[float, int, int, tuple[int, ...]] | None) -> bool:
    """Is candidate ``a`` better than ``b`` (objectives equal within a relative tolerance tie)?"""
    if b is None:
        return True
    tol = _REL_TOL * max(1.0, abs(a[0]), abs(b[0]))
    if a[0] < b[0] - tol:
        return True
    if a[0] > b[0] + tol:
        return False
    return a[1:] < b[1:]


class _Evaluator:
    """Evaluates nodes: class stats, verdict, score; keeps the best and the closest miss."""

    def __init__(self, dataset: Dataset, engine: Engine, requirements: Requirements, metric: Metric):
        self.dataset = dataset
        self.engine = engine
        self.requirements = requirements
        self.metric = metric
        self.checks = 0
        self.feasible = 0
        self.best: tuple[float, int, int, tuple[int, ...]] | None = None
        self.best_payload: tuple[ClassStats, Verdict, float] | None = None
        self.closest: tuple[int, tuple[int, ...]] | None = None
        #: every node judged in full: its objective when feasible, else NaN
        self.judged: dict[tuple[int, ...], float] = {}

    def evaluate(self, levels: tuple[int, ...], counted: bool = False) -> tuple[ClassStats, Verdict]:
        """Judge the node in full; ``counted``: its classes were computed (and counted as a check) already."""
        stats = self.engine.class_stats(levels)
        verdict = self.requirements.judge(stats, self.dataset.n_rows)
        self.checks += 0 if counted else 1
        if not verdict.feasible:
            if self.closest is None or verdict.suppressed_rows < self.closest[0]:
                self.closest = (verdict.suppressed_rows, levels)
            self.judged[levels] = np.nan
            return stats, verdict
        self.feasible += 1
        partition = Partition.from_node(self.dataset.quasi, stats, verdict.kept)
        score = self.metric.score(partition, self.dataset)
        self.judged[levels] = self.metric.objective(score)
        key = _key(self.metric.objective(score), verdict.suppressed_rows, levels)
        if _better(key, self.best):
            self.best = key
            self.best_payload = (stats, verdict, score)
        return stats, verdict

    def floor_at(self, levels: tuple[int, ...]) -> int:
        """How many records the violation floor suppresses at ``levels`` (the caller compares it with the budget).

        The floor (:meth:`Requirements.violation_floor`, e.g. the records in
        classes smaller than k) suppresses at least as many records at every
        more specific node and at most as many at every more general one, so
        its verdict carries down (when it fails) and up (when it holds).  The
        node is not judged in full here: a node failing the floor cannot be
        released, and one passing it is judged when the search reaches it.
        """
        self.checks += 1
        return self.floor(self.engine.class_stats(levels))

    def floor(self, stats: ClassStats) -> int:
        """The records the violation floor counts over the classes ``stats`` (0 when no model gives one)."""
        floor = self.requirements.violation_floor(stats)
        return 0 if floor is None else int(floor.sum())

    def closest_miss(self, candidates: list[tuple[int, tuple[int, ...]]]) -> None:
        """Judge the nodes not judged in full that could be the closest miss of the error message.

        ``candidates`` pairs each with a lower bound of the records it
        suppresses; they are judged from the lowest bound on, until the bound
        reaches the fewest suppressed records seen.
        """
        for least, levels in sorted(candidates):
            if self.closest is not None and least >= self.closest[0]:
                break
            verdict = self.requirements.judge(self.engine.class_stats(levels), self.dataset.n_rows)
            if self.closest is None or verdict.suppressed_rows < self.closest[0]:
                self.closest = (verdict.suppressed_rows, levels)

    def record(self, lattice: Lattice, pruned: NDArray[np.bool_] | None = None,
               tagged: NDArray[np.bool_] | None = None) -> NodeRecord:
        """The record of the nodes judged here, and of those ``pruned`` (known infeasible) or ``tagged`` (feasible)."""
        state = np.full(lattice.size, NOT_CHECKED, dtype=np.int8)
        if pruned is not None:
            state[pruned] = PRUNED
        if tagged is not None:
            state[tagged & ~(pruned if pruned is not None else False)] = TAGGED
        objective = np.full(lattice.size, np.nan)
        for levels, value in self.judged.items():
            i = lattice.index(levels)
            state[i] = INFEASIBLE if np.isnan(value) else FEASIBLE
            objective[i] = value
        return NodeRecord(lattice.nodes, state, objective)

    def result(self, lattice: Lattice, started: float, record: NodeRecord | None = None) -> SearchResult:
        if self.best is None or self.best_payload is None:
            raise _infeasible(self.requirements, self.closest, self.dataset)
        stats, verdict, score = self.best_payload
        return SearchResult(
            levels=self.best[3], stats=stats, verdict=verdict, score=score, objective=self.best[0],
            checks=self.checks, lattice_size=lattice.size, seconds=time.perf_counter() - started,
            feasible_found=self.feasible, record=record if record is not None else self.record(lattice),
        )


def _infeasible(requirements: Requirements, closest: tuple[int, tuple[int, ...]] | None,
                dataset: Dataset) -> InfeasibleError:
    budget = requirements.budget_rows(dataset.n_rows)
    if closest is None:
        return InfeasibleError(f"no node satisfies {requirements.describe()}")
    levels = dict(zip(dataset.quasi, closest[1], strict=True))
    return InfeasibleError(
        f"no generalization satisfies {requirements.describe()}: the best node {levels} would suppress"
        f" {closest[0]} records but the budget allows {budget}; raise max_suppression, relax the models,"
        " or add hierarchy levels"
    )


def exhaustive_search(dataset: Dataset, engine: Engine, requirements: Requirements, metric: Metric,
                      lattice: Lattice | None = None) -> SearchResult:
    """Evaluate every node of the lattice; the reference every other search is tested against.

    ``lattice``: search a part of the dataset's lattice (lower maxima), default all of it.
    """
    started = time.perf_counter()
    lattice = lattice or lattice_of(dataset)
    ev = _Evaluator(dataset, engine, requirements, metric)
    order = np.lexsort(lattice.nodes.T[::-1])
    order = order[np.argsort(lattice.nodes[order].sum(axis=1), kind="stable")]
    with progress_task("exhaustive: judging nodes", total=lattice.size, unit="nodes") as bar:
        for idx in order:
            ev.evaluate(tuple(int(v) for v in lattice.nodes[idx]))
            bar.advance()
    return ev.result(lattice, started)


def fixed_node(dataset: Dataset, engine: Engine, requirements: Requirements, metric: Metric,
               levels: tuple[int, ...]) -> SearchResult:
    """The one node the requirements fixed before seeing the data (differential privacy), judged: no search."""
    started = time.perf_counter()
    ev = _Evaluator(dataset, engine, requirements, metric)
    ev.evaluate(levels)
    result = ev.result(lattice_of(dataset), started)
    result.details["strategy"] = "fixed before seeing the data (no search)"
    return result


def optimal_search(dataset: Dataset, engine: Engine, requirements: Requirements, metric: Metric,
                   assume_practical_monotonicity: bool = False, lattice: Lattice | None = None,
                   floors: LevelFloors | None = None) -> SearchResult:
    """Exact optimum with bound-ordered traversal and sound feasibility pruning (see module docstring).

    ``assume_practical_monotonicity`` treats every model combination as
    monotone even with a suppression budget (ARX's optional assumption): fewer
    checks, but the result may miss the optimum or report infeasibility where
    a feasible node exists.  It exists to measure what the assumption costs;
    the default never makes it.  ``lattice``: search a part of the dataset's
    lattice (lower maxima, e.g. one attribute kept below its top level),
    default all of it.  ``floors``: the prefilter's tables of this table and
    these requirements (:func:`level_floors`), when searches of several parts
    of the lattice share them; computed here otherwise.
    """
    started = time.perf_counter()
    lattice = lattice or lattice_of(dataset)
    nodes = lattice.nodes
    bounds = metric.node_bounds(dataset, nodes)
    if bounds is None:
        result = exhaustive_search(dataset, engine, requirements, metric, lattice)
        result.details["strategy"] = "exhaustive (metric has no level bound)"
        return result
    budget = requirements.budget_rows(dataset.n_rows)
    infeasible = np.zeros(lattice.size, dtype=np.bool_)
    # a lower bound of the records each node suppresses: the prefilter's, raised by the floors carried down
    least = np.zeros(lattice.size, dtype=np.int64)
    monotone = requirements.monotonic or assume_practical_monotonicity
    if floors is None or floors.monotone != monotone:
        floors = level_floors(dataset, engine, requirements, monotone)
    if floors.single is not None:
        least = suppression_lower_bound(nodes, floors.single, floors.subsets)
        infeasible |= least > budget
    prefiltered = int(infeasible.sum())
    order = np.lexsort((nodes.sum(axis=1), bounds))
    ev = _Evaluator(dataset, engine, requirements, metric)
    # a part of the requirements whose verdict carries along the lattice: all of them when monotone, else the
    # violation floor (k-anonymity's small classes, the floors of the models that give one) within the budget
    carried = monotone or requirements.floors_groups
    # nodes known to satisfy the monotone part
    known_ok = np.zeros(lattice.size, dtype=np.bool_)
    evaluated = np.zeros(lattice.size, dtype=np.bool_)
    floored = np.zeros(lattice.size, dtype=np.bool_)  # nodes whose floor was checked (not judged in full)

    def monotone_part_ok(i: int) -> bool:
        """Check node i's monotone part (all of it when monotone, else the floor); tag the lattice accordingly."""
        levels = tuple(int(v) for v in nodes[i])
        if monotone:
            evaluated[i] = True
            stats, verdict = ev.evaluate(levels)
            ok = verdict.feasible
            if ok:
                floor = 0
            elif all(m.monotonic_with_suppression for m in requirements.models):
                floor = verdict.suppressed_rows  # a record violating here violates at every node below
            else:
                floor = ev.floor(stats) if requirements.floors_groups else 0
        else:
            floored[i] = True
            floor = ev.floor_at(levels)
            ok = floor <= budget
        if ok:
            lattice.mark_above(known_ok, levels)
        else:
            lattice.mark_below(infeasible, levels)
            below = lattice.below(least, levels)
            np.maximum(below, floor, out=below)  # every node below suppresses at least the floor's records
        return ok

    sorted_bounds = bounds[order]
    steps = _cheapest_steps(lattice, bounds) if carried else np.empty(0, dtype=np.int64)
    pos = 0
    visit = order.tolist()
    # progress: the position in bound order (every node before it is judged, pruned or below a judged bound);
    # when the search stops at the bound, every later node is settled too
    with progress_task("optimal: searching", total=lattice.size, unit="nodes") as bar:
        while pos < len(visit):
            idx = visit[pos]
            pos += 1
            if infeasible[idx] or evaluated[idx]:
                continue
            if ev.best is not None:
                tol = _REL_TOL * max(1.0, abs(ev.best[0]), abs(sorted_bounds[pos - 1]))
                if sorted_bounds[pos - 1] > ev.best[0] + tol:
                    break
            bar.update(completed=pos - 1)
            if carried and not known_ok[idx]:
                chain = _chain(steps, idx)
                lo, hi = 0, len(chain) - 1
                while lo < hi:
                    mid = (lo + hi) // 2
                    c = chain[mid]
                    if infeasible[c]:
                        lo = mid + 1
                    elif known_ok[c] or monotone_part_ok(c):
                        hi = mid
                    else:
                        lo = mid + 1
                if infeasible[idx] or evaluated[idx]:
                    continue
            if monotone:
                monotone_part_ok(idx)
                continue
            if carried and not known_ok[idx] and not monotone_part_ok(idx):
                continue
            ev.evaluate(tuple(int(v) for v in nodes[idx]), counted=bool(floored[idx]))
            evaluated[idx] = True
        bar.update(completed=lattice.size)
    if ev.best is None and requirements.floors_groups:
        # nothing is feasible: the closest miss among the nodes not judged in full, by their lower bounds
        ev.closest_miss([(int(least[i]), tuple(int(v) for v in nodes[i])) for i in np.flatnonzero(~evaluated)])
    # feasible without a judgement only where every model is monotone: otherwise known_ok holds the floor alone
    result = ev.result(lattice, started, ev.record(lattice, infeasible, known_ok if monotone else None))
    result.details.update(strategy="bound-ordered", prefiltered=prefiltered)
    if assume_practical_monotonicity and not requirements.monotonic:
        result.details["assumed_practical_monotonicity"] = True
    return result


@dataclass(frozen=True)
class LevelFloors:
    """The prefilter's tables: the fewest records each level of one attribute, and of two (or three), suppresses.

    They depend on the table and the requirements only, not on the part of the lattice searched, so the
    searches of several parts (the report's alternatives, a warning's cheapest release that keeps an
    attribute) count them once.  ``single`` is None when the search needs no prefilter (k = 1 and
    monotone requirements without floors); ``monotone``: whether they were counted for a search that
    treats the requirements as monotone.
    """

    monotone: bool
    single: list[NDArray[np.int64]] | None
    subsets: dict[tuple[int, ...], NDArray[np.int64]]


def level_floors(dataset: Dataset, engine: Engine, requirements: Requirements, monotone: bool) -> LevelFloors:
    """The prefilter's tables of ``dataset`` under ``requirements`` (see :class:`LevelFloors`)."""
    k = requirements.k
    if not (k > 1 or not monotone or requirements.floors_beyond_sizes):
        return LevelFloors(monotone, None, {})
    # triples cost more to count than they save when every check is a cheap k-anonymity roll-up
    bottom = _most_specific_classes(dataset, engine)
    subsets = subset_suppression(dataset.hierarchies, bottom.keys, bottom.sizes, k, 2)
    single = single_attribute_suppression(dataset, k)
    floors = _model_floors(dataset, bottom, requirements, single, subsets)
    if not monotone:
        subsets.update(floors or subset_suppression(dataset.hierarchies, bottom.keys, bottom.sizes, k, 3))
    else:
        subsets.update(floors)
    return LevelFloors(monotone, single, subsets)


def _most_specific_classes(dataset: Dataset, engine: Engine) -> ClassStats:
    """The bottom node's classes (leaf codes as keys) for the set bounds; none for a table in a database, nor from
    an engine that counted its classes at a minimum generalization (the bounds count from the leaves).

    Fetching the bottom node from a database could mean every record; in
    memory the engine holds it already.
    """
    if not dataset.in_memory or any(engine.bottom_levels):
        return ClassStats(np.zeros(0, dtype=np.int64), np.zeros((0, len(dataset.quasi)), dtype=np.int32))
    return engine.class_stats(tuple(0 for _ in dataset.quasi))


def _model_floors(dataset: Dataset, bottom: ClassStats, requirements: Requirements,
                  single: list[NDArray[np.int64]],
                  k_pairs: dict[tuple[int, ...], NDArray[np.int64]]) -> dict[tuple[int, ...], NDArray[np.int64]]:
    """The floors of one- and two-attribute groups, when the models beyond class sizes give floors that bind.

    They bind when a single attribute's floor exceeds its class-size bound
    somewhere (β-likeness, δ-disclosure: a value over-represented at some
    level); then pairs are counted too, and rule out more, carried down from
    every node checked, than triples of attributes would for less.  When they
    do not (the usual case for l-diversity), nothing is returned and the
    triples of class sizes are counted instead.
    """
    if not requirements.floors_beyond_sizes or not dataset.in_memory:
        return {}
    for model in requirements.models:
        bottom = model.floor_cells(bottom)
    singles = floor_suppression(dataset.hierarchies, bottom, requirements.violation_floor, 1)
    if not any((table > single[j[0]]).any() for j, table in singles.items()):
        return {}
    pairs = floor_suppression(dataset.hierarchies, bottom, requirements.violation_floor, 2)
    return {**singles, **{s: np.maximum(t, k_pairs[s]) if s in k_pairs else t for s, t in pairs.items()}}


def _cheapest_steps(lattice: Lattice, bounds: NDArray[np.float64]) -> NDArray[np.int64]:
    """For every node, the index of its parent with the lowest bound (−1 at the top)."""
    best_bound = np.full(lattice.size, np.inf)
    best_next = np.full(lattice.size, -1, dtype=np.int64)
    index = np.arange(lattice.size, dtype=np.int64)
    for j, top in enumerate(lattice.max_levels):
        can = lattice.nodes[:, j] < top
        parent = index[can] + lattice.strides[j]
        better = bounds[parent] < best_bound[can]
        rows = index[can][better]
        best_bound[rows] = bounds[parent[better]]
        best_next[rows] = parent[better]
    return best_next


def _chain(steps: NDArray[np.int64], start: int) -> list[int]:
    """Follow the cheapest steps from ``start`` to the top."""
    chain = [start]
    nxt = int(steps[start])
    while nxt >= 0:
        chain.append(nxt)
        nxt = int(steps[nxt])
    return chain
