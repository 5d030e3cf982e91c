"""Morton et al.'s research-value searches: global, local, hybrid and partitioned.

All four look for the full-domain node (a "generalization string") with the
highest research value that satisfies the privacy requirements, computing as
few frequency sets (class tables) as they can; each returns the list of
successful strings it found, best first (highest RV, then fewest attributes
at their root level), and releases the first unless the custodian picks
another.  A success satisfies the requirements within the suppression budget
and keeps at least one record: a string inside a large budget only because it
suppresses everything is no release (the paper has no budget; with one, this
keeps the exact searches equal to the exhaustive sweep, which scores such a
string as all roots).

* Pre-pruning: an attribute level whose values alone leave more records in
  groups smaller than k than the budget allows is infeasible in every string,
  as is every more specific level (subset and generalization properties).
* Global: binary search over the remaining strings sorted by RV.  The probe is
  the middle string; on success every string with lower RV and every string
  more general than it is dropped; on failure every string more specific than
  it is dropped (only when infeasibility is monotone: k-anonymity with a
  budget, or monotone models without one); the probe is always dropped.
  This is exact: what it drops cannot beat what it keeps.
* Local: one binary-search pointer per attribute over its levels, moved in
  lockstep (success: every pointer halfway towards specific; failure: halfway
  towards general) until no pointer moves.  Fast and not exact; the paper's
  local search found nothing on Adult.
* Hybrid: the local probes prune the global list with the global rules, then
  the global search runs on what is left.
* Partitioned (the paper's "distributed" version, for string lists too large
  for memory): the attributes are split into subsets; for each subset every
  string whose projection satisfies the monotone part of the requirements is
  found (a full string can only be feasible if each projection is); the
  combinations are then visited in descending total RV, skipping any more
  specific than a failed one, and tested until the best successes are found.
  Exact, with memory bounded by the subsets' lists.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.lattice import MAX_NODES
from anonset.core.stats import ClassStats
from anonset.engine.base import Engine
from anonset.errors import ConfigError, InfeasibleError
from anonset.methods.full_domain.bounds import single_attribute_suppression
from anonset.methods.full_domain.search import SearchResult
from anonset.metrics.research_value import ResearchValue
from anonset.privacy.base import Requirements, Verdict
from anonset.progress import NULL_TASK, Task
from anonset.progress import task as progress_task

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["SuccessEntry", "pre_prune", "rv_global", "rv_hybrid", "rv_local", "rv_partitioned"]


@dataclass(frozen=True)
class SuccessEntry:
    """A successful generalization string."""

    levels: tuple[int, ...]
    research_value: float
    roots: int

    def as_dict(self, quasi: tuple[str, ...]) -> dict[str, Any]:
        """JSON-ready form ``{levels: {attribute: level}, research_value, roots}``."""
        return {"levels": dict(zip(quasi, self.levels, strict=True)), "research_value": self.research_value,
                "roots": self.roots}


class _BudgetSpent(Exception):
    """The search reached its frequency-set budget."""


class _Prober:
    """Computes frequency sets through the engine, once per string, and judges them."""

    def __init__(self, dataset: Dataset, engine: Engine, requirements: Requirements, metric: ResearchValue,
                 budget: int | None = None):
        self.dataset = dataset
        self.engine = engine
        self.requirements = requirements
        self.metric = metric
        self.top = np.array([h.max_level for h in dataset.hierarchies], dtype=np.int64)
        self.k = requirements.k
        self.budget = requirements.budget_rows(dataset.n_rows)
        self.monotone = requirements.monotonic
        # class-size floors alone (k-anonymity): a probe needs only the records in small classes, not the class table
        self.k_only = requirements.size_only
        self.results: dict[tuple[int, ...], tuple[bool, bool]] = {}
        self.successes: dict[tuple[int, ...], SuccessEntry] = {}
        self.frequency_sets = 0
        self.max_frequency_sets = budget
        #: strings within the budget only because they suppress every record (not successes)
        self.empty = 0
        #: advanced once per frequency set (the searches that count frequency sets set it)
        self.bar: Task = NULL_TASK

    def probe(self, levels: tuple[int, ...]) -> tuple[bool, bool]:
        """(feasible, monotone part fails) of a string; a failing monotone part prunes its down-set."""
        hit = self.results.get(levels)
        if hit is not None:
            return hit
        if self.max_frequency_sets is not None and self.frequency_sets >= self.max_frequency_sets:
            raise _BudgetSpent
        self.frequency_sets += 1
        self.bar.advance()
        n = self.dataset.n_rows
        prunes = False
        if self.k_only:
            suppressed = self.engine.small_class_rows(levels, self.k)
            feasible = suppressed <= self.budget
        else:
            stats = self.engine.class_stats(levels)
            verdict = self.requirements.judge(stats, n)
            feasible, suppressed = verdict.feasible, verdict.suppressed_rows
            if not self.monotone:
                prunes = self.k > 1 and int(stats.sizes[stats.sizes < self.k].sum()) > self.budget
        if feasible and suppressed >= n > 0:
            # a release with no record left is no release (the metric would score it as all roots); when
            # the requirements are monotone, keeping a record is too (a kept class stays kept when merged)
            feasible = False
            self.empty += 1
        if self.monotone:
            prunes = not feasible
        self.results[levels] = (feasible, prunes)
        if feasible:
            rv = float(self.metric.node_values(self.dataset, np.array([levels]))[0])
            self.successes[levels] = SuccessEntry(levels, rv, int((np.array(levels) == self.top).sum()))
        return feasible, prunes

    def monotone_part(self, levels: tuple[int, ...]) -> bool:
        """Does the string satisfy the monotone part (everything when monotone, else k within the budget)?"""
        feasible, prunes = self.probe(levels)
        return feasible if self.monotone else not prunes

    def ranked(self) -> list[SuccessEntry]:
        """Successes best first: highest RV, fewest roots, lowest level sum, lexicographic levels."""
        return sorted(self.successes.values(),
                      key=lambda e: (-round(e.research_value, 12), e.roots, sum(e.levels), e.levels))


def pre_prune(dataset: Dataset, requirements: Requirements) -> NDArray[np.int64]:
    """Lowest level of each attribute that can appear in a feasible string (k pre-pruning), never below its
    ``min_level`` (a minimum generalization)."""
    k = requirements.k
    floor = np.array([dataset.specs[q].min_level for q in dataset.quasi], dtype=np.int64)
    lowest = floor.copy()
    if k <= 1:
        return lowest
    budget = requirements.budget_rows(dataset.n_rows)
    for j, small in enumerate(single_attribute_suppression(dataset, k)):
        ok = np.flatnonzero(small <= budget)
        if len(ok) == 0:
            raise InfeasibleError(
                f"attribute {dataset.quasi[j]!r} alone is not {k}-anonymous even at its root level; remove it"
                " from the quasi-identifiers or lower k"
            )
        lowest[j] = max(int(ok[0]), int(floor[j]))
    return lowest


def _grid(low: NDArray[np.int64], high: NDArray[np.int64]) -> NDArray[np.int64]:
    """All strings with ``low <= levels <= high`` (an (N, d) int matrix)."""
    shape = tuple(int(h - lo + 1) for lo, h in zip(low, high, strict=True))
    size = 1
    for s in shape:
        size *= s
    if size > MAX_NODES:
        raise ConfigError(
            f"after pre-pruning there are {size:,} generalization strings, more than {MAX_NODES:,} fit in"
            " memory; use method rv-partitioned"
        )
    return np.indices(shape, dtype=np.int64).reshape(len(shape), size).T + low


@dataclass
class _Candidates:
    nodes: NDArray[np.int64]
    rv: NDArray[np.float64]
    alive: NDArray[np.bool_]

    def index(self, levels: NDArray[np.int64]) -> int:
        return int(np.flatnonzero(np.all(self.nodes == levels, axis=1))[0])

    def after_probe(self, i: int, feasible: bool, prunes: bool) -> None:
        """Apply the global search's pruning rules for probe ``i``."""
        node = self.nodes[i]
        if feasible:
            self.alive &= self.rv >= self.rv[i]
            self.alive &= ~(np.all(self.nodes >= node, axis=1) & np.any(self.nodes > node, axis=1))
        elif prunes:
            self.alive &= ~np.all(self.nodes <= node, axis=1)
        self.alive[i] = False


def _candidates(dataset: Dataset, requirements: Requirements, metric: ResearchValue) -> _Candidates:
    low = pre_prune(dataset, requirements)
    high = np.array([h.max_level for h in dataset.hierarchies], dtype=np.int64)
    nodes = _grid(low, high)
    rv = metric.node_values(dataset, nodes)
    return _Candidates(nodes, rv, np.ones(len(nodes), dtype=np.bool_))


def _global_loop(prober: _Prober, cand: _Candidates, bar: Task = NULL_TASK) -> None:
    """The global binary search; ``bar`` follows the candidates decided (probed or pruned)."""
    order = np.lexsort((-cand.nodes.sum(axis=1), cand.rv))
    while True:
        alive_in_order = order[cand.alive[order]]
        bar.update(completed=len(order) - len(alive_in_order))
        if len(alive_in_order) == 0:
            return
        i = int(alive_in_order[len(alive_in_order) // 2])
        feasible, prunes = prober.probe(tuple(int(v) for v in cand.nodes[i]))
        cand.after_probe(i, feasible, prunes)


def _local_loop(prober: _Prober, low: NDArray[np.int64], high: NDArray[np.int64],
                on_probe: Callable[[NDArray[np.int64], bool, bool], None] | None = None) -> int:
    lo, hi = low.copy(), high.copy()
    mid = (lo + hi) // 2
    steps = 0
    for _ in range(int((high - low).sum()) + len(low) + 2):
        feasible, prunes = prober.probe(tuple(int(v) for v in mid))
        steps += 1
        if on_probe is not None:
            on_probe(mid, feasible, prunes)
        if feasible:
            hi = mid.copy()
            new = (lo + hi) // 2
        else:
            lo = mid.copy()
            new = (lo + hi + 1) // 2
        if np.array_equal(new, mid):
            break
        mid = new
    return steps


def _run(prober: _Prober, search: Callable[[], None]) -> bool:
    """Run a search body; False when it stopped at the frequency-set budget."""
    try:
        search()
    except _BudgetSpent:
        return False
    return True


def _result(prober: _Prober, dataset: Dataset, started: float, strategy: str, space: int,
            extra: dict[str, Any] | None = None, complete: bool = True) -> SearchResult:
    ranked = prober.ranked()
    if not ranked and not complete:
        raise InfeasibleError(
            f"the {strategy} search spent its budget of {prober.frequency_sets} frequency sets without finding a"
            " string that satisfies the requirements; raise max_frequency_sets or relax the requirements"
        )
    if not ranked and prober.empty:
        raise InfeasibleError(
            f"every string the {strategy} search found within {prober.requirements.describe()} suppresses every"
            " record; lower k or relax the other models"
        )
    if not ranked and strategy == "rv-local":
        raise InfeasibleError(
            f"the rv-local search computed {prober.frequency_sets} frequency sets and found no string satisfying"
            f" {prober.requirements.describe()}; try rv-global or rv-hybrid (exact), or relax the requirements"
        )
    if not ranked:
        raise InfeasibleError(f"no generalization string satisfies {prober.requirements.describe()}; relax the"
                              " requirements or add hierarchy levels")
    best = ranked[0]
    stats: ClassStats = prober.engine.class_stats(best.levels)
    verdict: Verdict = prober.requirements.judge(stats, dataset.n_rows)
    details: dict[str, Any] = {
        "strategy": strategy,
        "frequency_sets": prober.frequency_sets,
        "complete": complete,
        "success_list": [e.as_dict(dataset.quasi) for e in ranked],
    }
    details.update(extra or {})
    return SearchResult(levels=best.levels, stats=stats, verdict=verdict, score=best.research_value,
                        objective=-best.research_value, checks=prober.frequency_sets, lattice_size=space,
                        seconds=time.perf_counter() - started, feasible_found=len(ranked), details=details)


def _lattice_size(dataset: Dataset) -> int:
    """The strings of the lattice, from each attribute's ``min_level`` up."""
    size = 1
    for q, h in zip(dataset.quasi, dataset.hierarchies, strict=True):
        size *= h.n_levels - dataset.specs[q].min_level
    return size


def _setup(dataset: Dataset, engine: Engine, requirements: Requirements, metric: Any,
           max_frequency_sets: int | None) -> tuple[ResearchValue, _Prober]:
    rv = metric if isinstance(metric, ResearchValue) else ResearchValue()
    rv.tables(dataset, engine)
    if max_frequency_sets is not None and max_frequency_sets < 1:
        raise ConfigError(f"max_frequency_sets must be >= 1; got {max_frequency_sets}")
    return rv, _Prober(dataset, engine, requirements, rv, max_frequency_sets)


def rv_global(dataset: Dataset, engine: Engine, requirements: Requirements, metric: Any = None,
              max_frequency_sets: int | None = None) -> SearchResult:
    """Morton's global search (exact unless stopped by ``max_frequency_sets``)."""
    started = time.perf_counter()
    rv, prober = _setup(dataset, engine, requirements, metric, max_frequency_sets)
    cand = _candidates(dataset, requirements, rv)
    with progress_task("rv-global: strings", total=len(cand.nodes), unit="strings") as bar:
        complete = _run(prober, lambda: _global_loop(prober, cand, bar))
        bar.update(completed=len(cand.nodes))
    return _result(prober, dataset, started, "rv-global", _lattice_size(dataset),
                   {"strings_after_pre_pruning": len(cand.nodes)}, complete)


def rv_local(dataset: Dataset, engine: Engine, requirements: Requirements, metric: Any = None) -> SearchResult:
    """Morton's local search (lockstep per-attribute binary search; not exact)."""
    started = time.perf_counter()
    _, prober = _setup(dataset, engine, requirements, metric, None)
    low = pre_prune(dataset, requirements)
    high = np.array([h.max_level for h in dataset.hierarchies], dtype=np.int64)
    with progress_task("rv-local: probing", unit="frequency sets") as bar:
        prober.bar = bar
        _local_loop(prober, low, high)
    return _result(prober, dataset, started, "rv-local", _lattice_size(dataset))


def rv_hybrid(dataset: Dataset, engine: Engine, requirements: Requirements, metric: Any = None,
              max_frequency_sets: int | None = None) -> SearchResult:
    """Local probes prune the global list, then the global search finishes (exact unless stopped by budget)."""
    started = time.perf_counter()
    rv, prober = _setup(dataset, engine, requirements, metric, max_frequency_sets)
    cand = _candidates(dataset, requirements, rv)

    total = len(cand.nodes)

    def prune(levels: NDArray[np.int64], feasible: bool, prunes: bool) -> None:
        cand.after_probe(cand.index(levels), feasible, prunes)
        bar.update(completed=total - int(cand.alive.sum()))

    low = cand.nodes.min(axis=0)
    high = cand.nodes.max(axis=0)

    def body() -> None:
        _local_loop(prober, low, high, prune)
        _global_loop(prober, cand, bar)

    with progress_task("rv-hybrid: strings", total=total, unit="strings") as bar:
        complete = _run(prober, body)
        bar.update(completed=total)
    return _result(prober, dataset, started, "rv-hybrid", _lattice_size(dataset),
                   {"strings_after_pre_pruning": len(cand.nodes)}, complete)


def rv_partitioned(dataset: Dataset, engine: Engine, requirements: Requirements, metric: Any = None,
                   subset_size: int = 8, success_limit: int = 20, max_frequency_sets: int | None = None
                   ) -> SearchResult:
    """The partitioned ("distributed") search (exact): subsets' feasible projections, then their combinations.

    Parameters
    ----------
    subset_size : int
        Attributes per subset.
    success_limit : int
        How many successful strings to collect (the best ``success_limit`` by RV).
    max_frequency_sets : int, optional
        Stop after this many frequency sets and return the best strings found
        (``details["complete"]`` is then False: not proven optimal).
    """
    started = time.perf_counter()
    rv, prober = _setup(dataset, engine, requirements, metric, max_frequency_sets)
    if subset_size < 1 or success_limit < 1:
        raise ConfigError("rv-partitioned needs subset_size >= 1 and success_limit >= 1")
    low = pre_prune(dataset, requirements)
    top = prober.top
    d = len(dataset.quasi)
    subsets = [list(range(s, min(s + subset_size, d))) for s in range(0, d, subset_size)]
    tables = rv.tables(dataset, engine)
    lists: list[tuple[NDArray[np.int64], NDArray[np.float64]]] = []
    largest = 0

    def body() -> None:
        nonlocal largest
        for subset in subsets:
            sub_nodes = _grid(low[subset], top[subset])
            largest = max(largest, len(sub_nodes))
            feasible = _feasible_projections(prober, subset, sub_nodes, top)
            nodes = sub_nodes[feasible]
            values = np.zeros(len(nodes))
            for col, j in enumerate(subset):
                values += tables[j][nodes[:, col]]
            order = np.argsort(-values, kind="stable")
            lists.append((nodes[order], values[order]))
        if all(len(nodes) > 0 for nodes, _ in lists):  # else no string can succeed: _result says why
            _combine(prober, subsets, lists, d, success_limit, tables)

    with progress_task("rv-partitioned: probing", total=max_frequency_sets, unit="frequency sets") as bar:
        prober.bar = bar
        complete = _run(prober, body)
    return _result(prober, dataset, started, "rv-partitioned", _lattice_size(dataset), {
        "subsets": [[dataset.quasi[j] for j in s] for s in subsets],
        "largest_subset_list": largest,
        "feasible_projections": [len(nodes) for nodes, _ in lists],
    }, complete)


def _feasible_projections(prober: _Prober, subset: list[int], sub_nodes: NDArray[np.int64],
                          top: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Which strings of a subset keep the monotone part when every other attribute is at its root.

    Binary probes along chains to the subset's top tag whole up-sets feasible
    and down-sets infeasible, so few frequency sets are computed.
    """
    n = len(sub_nodes)
    known = np.zeros(n, dtype=np.int8)  # 1 feasible, -1 infeasible, 0 unknown
    full = np.tile(top, (1, 1))[0]

    def test(i: int) -> bool:
        levels = full.copy()
        levels[subset] = sub_nodes[i]
        ok = prober.monotone_part(tuple(int(v) for v in levels))
        if ok:
            known[np.all(sub_nodes >= sub_nodes[i], axis=1)] = 1
        else:
            known[np.all(sub_nodes <= sub_nodes[i], axis=1)] = -1
        return ok

    order = np.argsort(sub_nodes.sum(axis=1), kind="stable")
    for i in order:
        if known[i] != 0:
            continue
        chain = [int(i)]
        node = sub_nodes[i].copy()
        high = sub_nodes.max(axis=0)
        while (node < high).any():
            j = int(np.flatnonzero(node < high)[0])
            node[j] += 1
            chain.append(int(np.flatnonzero(np.all(sub_nodes == node, axis=1))[0]))
        lo, hi = 0, len(chain) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            c = chain[mid]
            if known[c] == -1 or (known[c] == 0 and not test(c)):
                lo = mid + 1
            else:
                hi = mid
        if known[i] == 0:
            test(int(i))
    return cast("NDArray[np.bool_]", known == 1)


def _combine(prober: _Prober, subsets: list[list[int]], lists: list[tuple[NDArray[np.int64], NDArray[np.float64]]],
             d: int, success_limit: int, tables: list[NDArray[np.float64]]) -> None:
    """Combine the subsets' feasible strings, best RV first, by depth-first branch and bound.

    Depth s fixes the string of subset s; the subsets not yet fixed stay at
    their root, so a partial combination is a projection of all its
    completions: when its monotone part fails, no completion can succeed.
    Each list is sorted by RV, so once ``partial RV + the best RV of every
    later subset`` falls below the ``success_limit``-th best success found,
    the rest of the list is cut.  Failures are remembered as the highest
    failing string on a cheapest-RV chain, and anything below one is skipped
    without a frequency set.
    """
    n_subsets = len(lists)
    best_rest = np.zeros(n_subsets + 1)
    for s in range(n_subsets - 1, -1, -1):
        best_rest[s] = best_rest[s + 1] + lists[s][1][0]
    top_values: list[float] = []  # min-heap of the best success RVs found
    failed = np.empty((0, d), dtype=np.int64)

    def threshold() -> float:
        return top_values[0] if len(top_values) >= success_limit else -np.inf

    def dominated(levels: NDArray[np.int64]) -> bool:
        return bool(len(failed)) and bool(np.any(np.all(failed >= levels, axis=1)))

    def visit(depth: int, levels: NDArray[np.int64], value: float) -> None:
        nonlocal failed
        nodes, values = lists[depth]
        for i in range(len(nodes)):
            total = value + values[i]
            if total + best_rest[depth + 1] < threshold() - 1e-12:
                return
            candidate = levels.copy()
            candidate[subsets[depth]] = nodes[i]
            if dominated(candidate):
                continue
            highest_failure = _probe_chain(prober, candidate, tables)
            if highest_failure is not None:
                failed = np.vstack([failed, highest_failure])
                continue
            if depth + 1 < n_subsets:
                visit(depth + 1, candidate, total)
            elif prober.probe(tuple(int(v) for v in candidate))[0]:
                heapq.heappush(top_values, total)
                if len(top_values) > success_limit:
                    heapq.heappop(top_values)

    visit(0, prober.top.copy(), 0.0)


def _probe_chain(prober: _Prober, levels: NDArray[np.int64],
                 tables: list[NDArray[np.float64]]) -> NDArray[np.int64] | None:
    """The highest string on a cheapest-RV chain from ``levels`` whose monotone part fails, or None.

    None means ``levels`` itself keeps the monotone part (then it is probed in full by the caller).
    """
    chain = [levels.copy()]
    node = levels.copy()
    top = prober.top
    while (node < top).any():
        open_attrs = np.flatnonzero(node < top)
        losses = [tables[j][node[j]] - tables[j][node[j] + 1] for j in open_attrs]
        j = int(open_attrs[int(np.argmin(losses))])
        node = node.copy()
        node[j] += 1
        chain.append(node)
    if prober.monotone_part(tuple(int(v) for v in chain[0])):
        return None
    lo, hi = 0, len(chain) - 1  # chain[lo] fails; find the last failing position
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if prober.monotone_part(tuple(int(v) for v in chain[mid])):
            hi = mid - 1
        else:
            lo = mid
    return chain[lo]
