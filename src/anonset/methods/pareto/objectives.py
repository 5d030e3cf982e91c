"""Properties, quality indices and objective vectors of lattice nodes (Dewri et al., 2010).

A *property* maps a generalized table to one value per record; a *quality
index* turns the property vector into one number.  The objectives anonset
offers, each with its direction:

========  =========  ==========================================================
name      direction  quality index
========  =========  ==========================================================
``k``     maximize   worst case of P1 (size of the record's class): min → k
``l``     maximize   worst case of distinct l-diversity: the fewest distinct
                     sensitive values in a released class
``s_k``   maximize   spread of P1: Σ over released records of their class size
``s_l``   maximize   spread of P2 (count of the record's sensitive value in its
                     class): Σ over released records
``glm``   minimize   Iyengar's general loss metric (:class:`~anonset.metrics.GLM`)
``cm``    minimize   Iyengar's classification metric (as
                     :class:`~anonset.metrics.ClassificationMetric`)
========  =========  ==========================================================

Suppression budget η, exactly as the paper applies it: let E_i be the records
of the node's classes of size i; the classes E_1 .. E_j are suppressed, j the
smallest integer with |E_1 ∪ … ∪ E_{j+1}| > ⌊η·n⌋, so the node is
(j + 1)-anonymous (j + 1 is always the size of a class: the smallest one that
no longer fits the budget).  When the whole table fits the budget (η = 1) the
rule has no such j; the largest classes are then kept, so k is the largest
class size.  Suppressed records belong to no class: they are left out of every
privacy index (they add 0 to S_k and S_ℓ) and cost the maximum in the loss
indices (every cell 1 in GLM, a misclassified record in CM).

A node is evaluated from its class statistics alone (the engine's
``class_stats``), vectorized over its classes; the evaluator keeps one
objective vector and one suppressed count per node evaluated, never a copy of
the data.  Values are computed so that they do not depend on the order in
which the engine lists a node's classes (integer sums, and ``math.fsum`` for
GLM's suppressed cells), so a node's vector is bit-identical whichever search
evaluated it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset
from anonset.core.lattice import Lattice
from anonset.core.partition import HierarchyNodes
from anonset.core.stats import ClassStats, StatsRequest
from anonset.core.targets import the_target
from anonset.engine.base import Engine
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import ConfigError
from anonset.methods.full_domain.search import lattice_of
from anonset.metrics import GLM

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "OBJECTIVES",
    "FrontMember",
    "NodeEvaluator",
    "Objective",
    "ParetoResult",
    "budget_rows",
    "check_objectives",
    "suppression_threshold",
]


@dataclass(frozen=True)
class Objective:
    """One quality index: its name, direction and what the data must provide.

    Attributes
    ----------
    name : str
        Name used in configurations (``k``, ``l``, ``s_k``, ``s_l``, ``glm``, ``cm``).
    direction : {"max", "min"}
        Whether higher (privacy indices) or lower (loss indices) is better.
    needs : {"", "sensitive", "target"}
        A sensitive attribute (``l``, ``s_l``) or a target column (``cm``).
    integral : bool
        The index only takes integer values (counts).
    description : str
        One line for reports.
    """

    name: str
    direction: Literal["max", "min"]
    needs: Literal["", "sensitive", "target"]
    integral: bool
    description: str

    @property
    def maximize(self) -> bool:
        """True when higher values are better."""
        return self.direction == "max"


#: Objective name -> its definition.
OBJECTIVES: dict[str, Objective] = {
    o.name: o for o in (
        Objective("k", "max", "", True, "k of k-anonymity: the smallest released class"),
        Objective("l", "max", "sensitive", True, "distinct l: fewest distinct sensitive values in a released class"),
        Objective("s_k", "max", "", True, "S_k: sum over released records of their class size"),
        Objective("s_l", "max", "sensitive", True,
                  "S_l: sum over released records of the count of their sensitive value in their class"),
        Objective("glm", "min", "", False, "general loss metric (Iyengar), suppressed cells cost 1"),
        Objective("cm", "min", "target", False,
                  "classification metric (Iyengar): misclassified or suppressed share"),
    )
}


def check_objectives(objectives: Sequence[str]) -> tuple[str, ...]:
    """Validate a list of objective names.

    Parameters
    ----------
    objectives : sequence of str
        At least two distinct names of :data:`OBJECTIVES`.

    Returns
    -------
    tuple of str
        The names, in the given order.
    """
    if isinstance(objectives, str):
        objectives = [objectives]
    names = tuple(str(o) for o in objectives)
    unknown = [o for o in names if o not in OBJECTIVES]
    if unknown:
        raise ConfigError(f"unknown objective {unknown[0]!r}; use one of {' | '.join(OBJECTIVES)}")
    if len(names) < 2:
        raise ConfigError(
            f"a Pareto search needs at least two objectives, got {len(names)} ({', '.join(names) or 'none'});"
            " for a single objective use the optimal search instead"
        )
    twice = sorted({o for o in names if names.count(o) > 1})
    if twice:
        raise ConfigError(f"objective {twice[0]!r} is listed twice; list each objective once")
    return names


def budget_rows(eta: float, n_rows: int) -> int:
    """Records the budget η allows to suppress: ⌊η·n⌋ (η a fraction in [0, 1])."""
    if isinstance(eta, bool) or not isinstance(eta, (int, float, np.integer, np.floating)) \
            or not 0.0 <= float(eta) <= 1.0:
        raise ConfigError(f"the suppression budget eta must be a fraction in [0, 1] (0.01 for 1%); got {eta!r}")
    return math.floor(float(eta) * n_rows + 1e-9)


def suppression_threshold(sizes: NDArray[np.int64], budget: int) -> int:
    """The node's k under the paper's suppression rule.

    Parameters
    ----------
    sizes : numpy.ndarray
        Class sizes of the node (at least one class).
    budget : int
        Records that may be suppressed (⌊η·n⌋).

    Returns
    -------
    int
        j + 1 for the smallest j with |E_1 ∪ … ∪ E_{j+1}| > budget, E_i the
        records in classes of size i; classes smaller than it are suppressed.
        When every record fits the budget, the largest class size.

    Notes
    -----
    Only classes of at most ``budget`` records can be suppressed, so the
    records per class size are counted up to ``budget`` (a bincount, no sort):
    the answer is the first size whose running total exceeds the budget, else
    the smallest class larger than the budget, else (everything fits) the
    largest class.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    small = sizes[sizes <= budget]
    if len(small):
        records = np.cumsum(np.bincount(small, minlength=budget + 1) * np.arange(budget + 1))
        over = int(np.searchsorted(records, budget, side="right"))
        if over <= budget:
            return over
    large = sizes[sizes > budget]
    return int(large.min()) if len(large) else int(sizes.max())


@dataclass(frozen=True)
class FrontMember:
    """One generalization of a front.

    Attributes
    ----------
    levels : tuple of int
        Level per quasi-identifier.
    objectives : dict of str to float
        Quality index values by objective name.
    suppressed_rows : int
        Records the η rule suppresses at this node.
    """

    levels: tuple[int, ...]
    objectives: dict[str, float]
    suppressed_rows: int


@dataclass
class ParetoResult:
    """A front of minimal property based generalizations and how it was found.

    Attributes
    ----------
    objectives : tuple of str
        Objective names, in the order of the value columns.
    quasi : tuple of str
        Quasi-identifier names, in the order of ``levels``.
    front : list of FrontMember
        The members, sorted by the objectives in order (ascending), then levels.
    nodes_evaluated : int
        Distinct lattice nodes evaluated.
    lattice_size : int
        Nodes in the lattice.
    seconds : float
        Wall time of the search (engine construction included when it built one).
    eta : float
        The suppression budget (fraction of the records).
    epsilon : tuple of float or None
        The discretization vector, or None for plain dominance.
    evaluated_levels : numpy.ndarray
        (m, d) every node evaluated, in evaluation order.
    evaluated_values : numpy.ndarray
        (m, r) their objective values.
    evaluated_suppressed : numpy.ndarray
        (m,) their suppressed records.
    """

    objectives: tuple[str, ...]
    quasi: tuple[str, ...]
    front: list[FrontMember]
    nodes_evaluated: int
    lattice_size: int
    seconds: float
    eta: float
    epsilon: tuple[float, ...] | None
    evaluated_levels: NDArray[np.int64] = field(repr=False)
    evaluated_values: NDArray[np.float64] = field(repr=False)
    evaluated_suppressed: NDArray[np.int64] = field(repr=False)

    @property
    def values(self) -> NDArray[np.float64]:
        """(members, objectives) float64 matrix of the front's index values."""
        return np.array([[m.objectives[o] for o in self.objectives] for m in self.front],
                        dtype=np.float64).reshape(len(self.front), len(self.objectives))

    @property
    def levels(self) -> NDArray[np.int64]:
        """(members, quasi-identifiers) int64 matrix of the front's levels."""
        return np.array([m.levels for m in self.front], dtype=np.int64).reshape(len(self.front), len(self.quasi))

    @property
    def maximize(self) -> NDArray[np.bool_]:
        """Bool per objective: higher is better."""
        return np.array([OBJECTIVES[o].maximize for o in self.objectives], dtype=np.bool_)

    def to_frame(self) -> pd.DataFrame:
        """The front as a DataFrame: one level column per quasi-identifier, one column per objective, suppressed rows.

        Sorted by the first objective (ascending), then the others.
        """
        frame = pd.DataFrame(self.levels, columns=list(self.quasi))
        values = self.values
        for j, name in enumerate(self.objectives):
            frame[name] = values[:, j].astype(np.int64) if OBJECTIVES[name].integral else values[:, j]
        frame["suppressed_rows"] = np.array([m.suppressed_rows for m in self.front], dtype=np.int64)
        return frame.sort_values(list(self.objectives), kind="stable").reset_index(drop=True)


class NodeEvaluator:
    """Objective vectors of lattice nodes, each node evaluated once.

    Parameters
    ----------
    dataset : Dataset
        The data; every quasi-identifier needs a hierarchy.
    objectives : sequence of str
        At least two names of :data:`OBJECTIVES`.
    eta : float
        Suppression budget, a fraction of the records in [0, 1].
    engine : Engine, optional
        Computes class statistics; built (a :class:`~anonset.engine.NumpyEngine`
        carrying the sensitive histogram) when None.  A given engine must carry
        the histogram of the sensitive attribute when ``l`` or ``s_l`` is asked.
    sensitive : str, optional
        The sensitive attribute of ``l`` / ``s_l`` (default: the dataset's only one).
    target : str, optional
        The class label of ``cm`` (default: the dataset's only column with role target).
    """

    def __init__(self, dataset: Dataset, objectives: Sequence[str], *, eta: float,
                 engine: Engine | None = None, sensitive: str | None = None, target: str | None = None):
        self.objectives = check_objectives(objectives)
        self.dataset = dataset
        self.budget = budget_rows(eta, dataset.n_rows)
        self.eta = float(eta)
        needs = {OBJECTIVES[o].needs for o in self.objectives}
        self.sensitive = _sensitive_of(dataset, sensitive, self.objectives) if "sensitive" in needs else None
        self.lattice: Lattice = lattice_of(dataset)
        self.maximize = np.array([OBJECTIVES[o].maximize for o in self.objectives], dtype=np.bool_)
        self._target = _TargetTable(dataset, _target_of(dataset, target)) if "target" in needs else None
        if engine is None:
            request = StatsRequest(histograms=frozenset({self.sensitive})) if self.sensitive else StatsRequest()
            engine = NumpyEngine(dataset, request)
        self.engine = engine
        self._glm = GLM()
        self._glm_level_sums = [self._glm.level_sums(dataset, q) for q in dataset.quasi]
        self._glm_costs, self._glm_offsets = _cost_tables(self._glm, dataset)
        self._index: dict[tuple[int, ...], int] = {}
        d, r = len(dataset.quasi), len(self.objectives)
        self._levels = np.zeros((64, d), dtype=np.int64)
        self._values = np.zeros((64, r), dtype=np.float64)
        self._suppressed = np.zeros(64, dtype=np.int64)

    # ------------------------------------------------------------------ evaluated nodes
    @property
    def count(self) -> int:
        """Distinct nodes evaluated so far."""
        return len(self._index)

    @property
    def levels(self) -> NDArray[np.int64]:
        """(count, d) levels of the evaluated nodes, in evaluation order (a view)."""
        return self._levels[:self.count]

    @property
    def values(self) -> NDArray[np.float64]:
        """(count, r) objective values of the evaluated nodes (a view)."""
        return self._values[:self.count]

    @property
    def suppressed(self) -> NDArray[np.int64]:
        """(count,) suppressed records of the evaluated nodes (a view)."""
        return self._suppressed[:self.count]

    def evaluate(self, levels: Sequence[int] | NDArray[np.int64]) -> int:
        """Evaluate a node (once; later calls hit the cache) and return its row in :attr:`values`."""
        node = tuple(int(v) for v in levels)
        row = self._index.get(node)
        if row is not None:
            return row
        if len(node) != len(self.dataset.quasi) or not self.lattice.contains(node):
            raise ConfigError(f"levels {node} are not a node of the lattice (levels"
                              f" {tuple(int(m) for m in self.lattice.min_levels)} to"
                              f" {tuple(int(m) for m in self.lattice.max_levels)})")
        values, suppressed = self.node_values(node)
        row = self.count
        if row == len(self._suppressed):
            self._levels = np.concatenate([self._levels, np.zeros_like(self._levels)])
            self._values = np.concatenate([self._values, np.zeros_like(self._values)])
            self._suppressed = np.concatenate([self._suppressed, np.zeros_like(self._suppressed)])
        self._levels[row] = node
        self._values[row] = values
        self._suppressed[row] = suppressed
        self._index[node] = row
        return row

    def evaluate_many(self, nodes: NDArray[np.int64]) -> NDArray[np.int64]:
        """Rows in :attr:`values` of each node of an (m, d) level matrix."""
        return np.array([self.evaluate(node) for node in nodes], dtype=np.int64)

    # ------------------------------------------------------------------ one node
    def node_values(self, levels: tuple[int, ...]) -> tuple[NDArray[np.float64], int]:
        """Objective values and suppressed records of a node, computed from its class statistics."""
        stats = self.engine.class_stats(levels)
        k = suppression_threshold(stats.sizes, self.budget)
        kept = stats.sizes >= k
        suppressed = int(stats.sizes[~kept].sum())
        out = np.empty(len(self.objectives), dtype=np.float64)
        for j, name in enumerate(self.objectives):
            if name == "k":
                out[j] = k
            elif name == "s_k":
                sizes = stats.sizes[kept]
                out[j] = float(np.dot(sizes, sizes))
            elif name in ("l", "s_l"):
                hist = self._histogram(stats)[kept]
                out[j] = float((hist > 0).sum(axis=1).min()) if name == "l" else float(np.sum(hist * hist))
            elif name == "glm":
                out[j] = self._glm_value(stats, levels, ~kept, suppressed)
            else:
                assert self._target is not None
                out[j] = self._target.cm(stats, levels, kept)
        return out, suppressed

    def suppressed_mask(self, levels: Sequence[int]) -> NDArray[np.bool_]:
        """Bool per record: suppressed by the η rule at node ``levels`` (for releasing a front member)."""
        node = tuple(int(v) for v in levels)
        row_class, stats = self.engine.row_classes(node)
        k = suppression_threshold(stats.sizes, self.budget)
        return np.asarray(stats.sizes[row_class] < k)

    def _histogram(self, stats: ClassStats) -> NDArray[np.int64]:
        assert self.sensitive is not None
        hist = stats.histograms.get(self.sensitive)
        if hist is None:
            raise ConfigError(
                f"the engine was built without the value counts of {self.sensitive!r}, which objectives l and s_l"
                f" need; build it with StatsRequest(histograms=frozenset({{{self.sensitive!r}}})) or let the"
                " search build it (engine=None)"
            )
        return np.asarray(hist, dtype=np.int64)

    def _glm_value(self, stats: ClassStats, levels: tuple[int, ...], dropped: NDArray[np.bool_],
                   suppressed: int) -> float:
        """GLM by :class:`~anonset.metrics.GLM`'s own formula, without touching the released classes.

        Per attribute: the cost of generalizing every record (``GLM.level_sums``)
        less the generalization cost of the suppressed records, plus 1 per
        suppressed cell; then ``GLM.combine``.  The suppressed records' costs are
        summed in sorted order, so the value does not depend on the engine's
        class order.
        """
        sums = np.array([per_level[level] for per_level, level in zip(self._glm_level_sums, levels, strict=True)])
        if suppressed:
            offsets = np.array([self._glm_offsets[j][level] for j, level in enumerate(levels)], dtype=np.int64)
            costs = self._glm_costs[stats.keys[dropped].astype(np.int64) + offsets[None, :]]
            spent = np.sort(costs * stats.sizes[dropped, None], axis=0).sum(axis=0)
            sums += suppressed - spent
        return float(self._glm.combine(self.dataset, sums))


def _cost_tables(metric: GLM, dataset: Dataset) -> tuple[NDArray[np.float64], list[NDArray[np.int64]]]:
    """Every hierarchy node's per-cell cost (``metric.class_costs``) in one array, with offsets [attribute][level]."""
    chunks: list[NDArray[np.float64]] = []
    offsets: list[NDArray[np.int64]] = []
    position = 0
    for q in dataset.quasi:
        h = dataset.require_hierarchy(q)
        starts = np.zeros(h.n_levels, dtype=np.int64)
        for level in range(h.n_levels):
            codes = np.arange(h.size(level), dtype=np.int32)
            chunks.append(metric.class_costs(dataset, q, HierarchyNodes(np.full(len(codes), level, np.int16), codes)))
            starts[level] = position
            position += len(codes)
        offsets.append(starts)
    return np.concatenate(chunks).astype(np.float64), offsets


class _TargetTable:
    """Class-label counts of the most specific classes, rolled up to any node for CM.

    The target is not an encoded attribute, so engines do not carry its
    counts; one pass over the records groups them by leaf codes, and each node
    maps those groups onto its classes (matching generalized keys), so CM is
    computed from class tables only.
    """

    def __init__(self, dataset: Dataset, target: str):
        if not dataset.in_memory:
            raise ConfigError(f"objective 'cm' needs the records of {target!r} in memory; {dataset.source} is a"
                              " database table")
        self.dataset = dataset
        self.hierarchies = dataset.hierarchies
        labels, _ = pd.factorize(dataset.column(target).astype(str), sort=True)
        codes = dataset.qi_codes()
        if codes.shape[1]:
            keys, inverse = np.unique(codes, axis=0, return_inverse=True)
        else:
            keys, inverse = np.zeros((1, 0), dtype=np.int32), np.zeros(dataset.n_rows, dtype=np.int64)
        inverse = inverse.reshape(-1)
        self.n_labels = int(labels.max()) + 1
        self.keys = keys.astype(np.int64)
        flat = inverse * self.n_labels + labels
        self.counts = np.bincount(flat, minlength=len(keys) * self.n_labels).reshape(len(keys), self.n_labels)

    def cm(self, stats: ClassStats, levels: tuple[int, ...], kept: NDArray[np.bool_]) -> float:
        """(suppressed + records outside their class's majority label) / n."""
        cls = self._class_of_bottom(stats, levels)
        flat = (cls[:, None] * self.n_labels + np.arange(self.n_labels)[None, :]).ravel()
        per_class = np.bincount(flat, weights=self.counts.ravel(), minlength=stats.n_classes * self.n_labels)
        majority = per_class.reshape(stats.n_classes, self.n_labels).astype(np.int64).max(axis=1)
        correct = int(majority[kept].sum())
        return (self.dataset.n_rows - correct) / self.dataset.n_rows

    def _class_of_bottom(self, stats: ClassStats, levels: tuple[int, ...]) -> NDArray[np.int64]:
        """Index into ``stats``'s classes of each most specific class, by matching generalized codes."""
        d = len(levels)
        bottom = np.empty((len(self.keys), d), dtype=np.int64)
        for j, (h, level) in enumerate(zip(self.hierarchies, levels, strict=True)):
            bottom[:, j] = h.maps[level][self.keys[:, j]]
        classes = stats.keys.astype(np.int64).reshape(stats.n_classes, d)
        radix = [h.size(level) for h, level in zip(self.hierarchies, levels, strict=True)]
        if math.prod(radix) < 2**62:
            weights = np.array([math.prod(radix[j + 1:]) for j in range(d)], dtype=np.int64)
            class_key, bottom_key = classes @ weights, bottom @ weights
        else:
            _, inverse = np.unique(np.concatenate([classes, bottom]), axis=0, return_inverse=True)
            inverse = inverse.reshape(-1)
            class_key, bottom_key = inverse[:len(classes)], inverse[len(classes):]
        order = np.argsort(class_key, kind="stable")
        return order[np.searchsorted(class_key[order], bottom_key)]


def _sensitive_of(dataset: Dataset, name: str | None, objectives: tuple[str, ...]) -> str:
    asked = ", ".join(o for o in objectives if OBJECTIVES[o].needs == "sensitive")
    if name is not None:
        if name not in dataset.sensitive:
            role = dataset.specs[name].role.value if name in dataset.specs else "not a column"
            raise ConfigError(f"objective {asked} needs a sensitive attribute; {name!r} is {role}:"
                              " set `role: sensitive` on it")
        return name
    if len(dataset.sensitive) == 1:
        return dataset.sensitive[0]
    if not dataset.sensitive:
        raise ConfigError(f"objective {asked} needs a sensitive attribute and {dataset.source} has none;"
                          " set `role: sensitive` on one column")
    raise ConfigError(f"objective {asked} needs one sensitive attribute but {dataset.source} has"
                      f" {len(dataset.sensitive)} ({', '.join(dataset.sensitive)}); name the one to use")


def _target_of(dataset: Dataset, name: str | None) -> str:
    """The class label of ``cm``: ``name`` or the only target column (:func:`anonset.core.targets.the_target`)."""
    return the_target(dataset, name, "objective cm")
