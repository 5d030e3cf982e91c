"""The workbench's solution space of a full-domain run: the lattice as the search left it, and any node opened.

:class:`LatticeView` holds what a run of a full-domain method learned about
each node (:class:`~anonset.methods.full_domain.search.NodeRecord`: judged
feasible or not, known infeasible or feasible without a judgement, not
looked at) and answers for any node, looked at or not, what releasing it
would give: its verdict, the records it suppresses, its classes, the
run's metric, the prosecutor risk of its classes and how each sensitive
attribute sits in them.  A node's figures come from class statistics rolled
up from the input's most specific classes (the numpy engine's cache), so
opening a node costs milliseconds, not a run.

Two nodes are compared under the run's metric (the one the search
minimized), never under metrics of different definitions.  The small-class
rule of the report holds: classes of fewer than max(k, 2) records are
counted, never listed.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset
from anonset.core.partition import HierarchyNodes, Partition
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import ConfigError
from anonset.methods.full_domain.search import (
    FEASIBLE,
    INFEASIBLE,
    NOT_CHECKED,
    PRUNED,
    TAGGED,
    NodeRecord,
    lattice_of,
)
from anonset.metrics.base import Metric
from anonset.privacy.base import Requirements
from anonset.risk.sample import sample_risk
from anonset.risk.sensitive import sensitive_view

__all__ = ["STATES", "LatticeView", "class_listing", "front_listing", "hierarchy_preview"]

#: The words for each state of a node, as the page shows them.
STATES = {NOT_CHECKED: "not checked", FEASIBLE: "feasible", INFEASIBLE: "infeasible",
          PRUNED: "infeasible (inferred)", TAGGED: "feasible (inferred)"}
#: Above this many nodes the overview lists only the nodes the search judged (and the released node).
OVERVIEW_LIMIT = 20_000


class LatticeView:
    """A full-domain run's lattice, for the workbench: an overview of every node, and any node in detail.

    Parameters
    ----------
    dataset : Dataset
        The run's (in-memory) dataset.
    requirements : Requirements
        What the run had to meet.
    metric : Metric
        The metric the run's search minimized (prepared by the run).
    record : NodeRecord, optional
        What the search learned about each node (None for a search that
        keeps none, or a trade-off search: every node then shows as not
        checked until opened).
    optimum : tuple of int
        The node the search found best (a trade-off search's: the released member).
    released : tuple of int
        The released node.
    """

    def __init__(self, dataset: Dataset, requirements: Requirements, metric: Metric, record: NodeRecord | None,
                 optimum: Sequence[int], released: Sequence[int]):
        self.dataset = dataset
        self.requirements = requirements
        self.metric = metric
        self.lattice = lattice_of(dataset)
        self.released = tuple(int(v) for v in released)
        self.optimum = tuple(int(v) for v in optimum)
        if record is not None and record.state.shape[0] == self.lattice.size:
            self.state, self.objective = record.state.copy(), record.objective.copy()
        else:
            self.state = np.full(self.lattice.size, NOT_CHECKED, dtype=np.int8)
            self.objective = np.full(self.lattice.size, np.nan)
        self.engine = NumpyEngine(dataset, requirements.request)
        self.floor = max(requirements.k, 2)
        self._opened: dict[tuple[int, ...], dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._sensitive_codes = {name: pd.factorize(dataset.table[name].astype(str), sort=True)
                                 for name in dataset.sensitive} if dataset.table is not None else {}

    def close(self) -> None:
        """Release the engine's cache."""
        self.engine.close()

    # ------------------------------------------------------------------ overview
    def overview(self) -> dict[str, Any]:
        """Every node (or, beyond :data:`OVERVIEW_LIMIT`, those judged): levels, height, state and objective."""
        nodes = self.lattice.nodes
        shown = np.arange(self.lattice.size)
        if self.lattice.size > OVERVIEW_LIMIT:
            keep = np.isin(self.state, (FEASIBLE, INFEASIBLE))
            keep[self.lattice.index(self.released)] = True
            shown = np.flatnonzero(keep)
        return {
            "quasi": list(self.dataset.quasi),
            "max_levels": [h.max_level for h in self.dataset.hierarchies],
            "metric": self.metric.name,
            "size": self.lattice.size,
            "shown": int(len(shown)),
            "released": list(self.released),
            "optimum": list(self.optimum),
            "states": {str(code): words for code, words in STATES.items()},
            "nodes": [{"levels": nodes[i].tolist(), "height": int(nodes[i].sum()), "state": int(self.state[i]),
                       "objective": _number(self.objective[i])} for i in shown],
        }

    # ------------------------------------------------------------------ one node
    def node(self, levels: Sequence[int]) -> dict[str, Any]:
        """What releasing node ``levels`` gives; a node opened here is judged, and kept in the record.

        Requests are served from several threads: one node is computed at a time (the engine's cache is
        not shared safely).
        """
        node = self._checked(levels)
        with self._lock:
            if node not in self._opened:
                self._opened[node] = self._details(node)
            return self._opened[node]

    def _details(self, node: tuple[int, ...]) -> dict[str, Any]:
        stats = self.engine.class_stats(node)
        verdict = self.requirements.judge(stats, self.dataset.n_rows)
        row_class = None
        if self._sensitive_codes:
            row_class, stats = self.engine.row_classes(node)
        partition = Partition.from_node(self.dataset.quasi, stats, verdict.kept)
        objective = self.metric.objective(self.metric.score(partition, self.dataset))
        index = self.lattice.index(node)
        if self.state[index] in (NOT_CHECKED, PRUNED, TAGGED):
            self.state[index] = FEASIBLE if verdict.feasible else INFEASIBLE
        if verdict.feasible:
            self.objective[index] = objective
        sizes = stats.sizes[verdict.kept]
        kept_records = int(sizes.sum())
        details = {
            "levels": list(node),
            "attributes": [{"name": q, "level": level, "top": h.max_level,
                            "examples": self._examples(h, level, stats, verdict.kept, j)}
                           for j, (q, h, level) in enumerate(zip(self.dataset.quasi, self.dataset.hierarchies, node,
                                                                 strict=True))],
            "feasible": bool(verdict.feasible),
            "state": STATES[int(self.state[index])],
            "released": node == self.released,
            "optimum": node == self.optimum,
            "metric": self.metric.name,
            "objective": _number(objective),
            "suppressed_rows": int(verdict.suppressed_rows),
            "suppressed_share": verdict.suppressed_rows / max(self.dataset.n_rows, 1),
            "budget_rows": int(self.requirements.budget_rows(self.dataset.n_rows)),
            "classes": int(len(sizes)),
            "smallest_class": int(sizes.min()) if len(sizes) else 0,
            "risk": _prosecutor(sizes, kept_records),
            "sensitive": self._sensitive(node, partition, row_class, verdict.kept) if row_class is not None else {},
        }
        return details

    def _checked(self, levels: Sequence[int]) -> tuple[int, ...]:
        """``levels`` as a node of this lattice; a ConfigError naming what does not fit."""
        try:
            node = tuple(int(v) for v in levels)
        except (TypeError, ValueError):
            raise ConfigError("a node is one whole number (level) per quasi-identifier") from None
        tops = [h.max_level for h in self.dataset.hierarchies]
        if len(node) != len(tops) or any(not 0 <= v <= top for v, top in zip(node, tops, strict=False)):
            raise ConfigError(f"a node has {len(tops)} levels, each from 0 to its hierarchy's top"
                              f" ({', '.join(f'{q} {top}' for q, top in zip(self.dataset.quasi, tops, strict=True))})")
        return node

    def _examples(self, hierarchy: Any, level: int, stats: Any, kept: Any, j: int, shown: int = 3) -> list[str]:
        """Up to ``shown`` values of the attribute at ``level`` that classes of at least max(k, 2) records hold."""
        large = kept & (stats.sizes >= self.floor)
        codes = np.unique(stats.keys[large, j])[:shown]
        return [str(v) for v in hierarchy.label(level, codes)]

    def _sensitive(self, node: tuple[int, ...], partition: Partition, row_class: Any, kept: Any) -> dict[str, Any]:
        """Per sensitive attribute, :func:`~anonset.risk.sensitive.sensitive_view` of the node's kept classes."""
        new_id = np.full(len(kept), -1, dtype=np.int64)
        new_id[np.flatnonzero(kept)] = np.arange(int(kept.sum()))
        released_class = new_id[row_class]
        inside = released_class >= 0
        quasi = list(self.dataset.quasi)
        labels = {}
        for j, q in enumerate(quasi):
            values = partition.values[q]
            assert isinstance(values, HierarchyNodes)  # a full-domain node's classes are hierarchy nodes
            labels[q] = self.dataset.hierarchies[j].label(node[j], values.codes)
        out: dict[str, Any] = {}
        for name, (codes, uniques) in self._sensitive_codes.items():
            width = max(len(uniques), 1)
            pair = released_class[inside] * width + codes[inside]
            counts = np.bincount(pair, minlength=0)
            found = np.flatnonzero(counts)
            cls, value = found // width, found % width
            groups = pd.DataFrame({q: labels[q][cls] for q in quasi})
            groups[name] = np.asarray(uniques, dtype=object)[value]
            groups["_n"] = counts[found]
            view = sensitive_view(groups, quasi, name, self.floor, shown=5)
            out[name] = view
        return out


def _prosecutor(sizes: Any, records: int) -> dict[str, Any]:
    """The prosecutor risk of classes of ``sizes`` (:func:`~anonset.risk.sample.sample_risk`): highest, average and
    the share of records above 0.2; zeros when every record is suppressed."""
    if records == 0:
        return {"highest_risk": 0.0, "average_risk": 0.0, "records_above_0_2": 0.0}
    risk = sample_risk(sizes, thresholds=(0.2,))
    return {"highest_risk": risk.highest_risk, "average_risk": risk.average_risk,
            "records_above_0_2": risk.records_above[0.2]}


def _number(value: float) -> float | None:
    """A float for JSON: None for NaN."""
    return None if np.isnan(value) else float(value)


def front_listing(front: Any, released: Sequence[int]) -> dict[str, Any]:
    """A trade-off search's front (:class:`~anonset.methods.pareto.objectives.ParetoResult`): its members."""
    chosen = tuple(int(v) for v in released)
    return {"quasi": list(front.quasi), "objectives": list(front.objectives),
            "members": [{"levels": list(m.levels), "objectives": {k: _number(v) for k, v in m.objectives.items()},
                         "suppressed_rows": int(m.suppressed_rows), "released": tuple(m.levels) == chosen}
                        for m in front.front]}


def class_listing(table: pd.DataFrame, quasi: Sequence[str], sensitive: Sequence[str], suppressed: Any,
                  floor: int, shown: int = 200) -> dict[str, Any]:
    """The released classes (records alike on every quasi-identifier), smallest first: what a partitioning run made.

    Only classes of at least ``floor`` records are listed (the report's small-class rule); the others are
    counted.  Each class has its released values, its records and, per sensitive attribute, its most
    frequent value's share.  ``suppressed`` marks the records withheld (left out).
    """
    kept = table.loc[~np.asarray(suppressed, dtype=bool), [*quasi, *sensitive]].astype(str)
    if kept.empty:
        return {"quasi": list(quasi), "sensitive": list(sensitive), "classes": 0, "unlisted": 0, "floor": floor,
                "listed": []}
    class_id, keys = pd.MultiIndex.from_frame(kept[list(quasi)]).factorize()
    sizes = np.bincount(class_id)
    top: dict[str, Any] = {}
    for name in sensitive:
        value_id, _ = pd.factorize(kept[name])
        pair = class_id.astype(np.int64) * (int(value_id.max()) + 1) + value_id
        counts = np.bincount(pair)
        best = np.zeros(len(sizes))
        np.maximum.at(best, np.flatnonzero(counts) // (int(value_id.max()) + 1), counts[np.flatnonzero(counts)])
        top[name] = best / sizes
    large = np.flatnonzero(sizes >= floor)
    order = large[np.lexsort((large, sizes[large]))][:shown]
    listed = [{"values": [str(v) for v in keys[c]], "records": int(sizes[c]),
               "highest_share": {name: float(top[name][c]) for name in sensitive}} for c in order]
    return {"quasi": list(quasi), "sensitive": list(sensitive), "classes": int(len(sizes)),
            "unlisted": int(len(sizes) - len(large)), "floor": floor, "listed": listed}


def hierarchy_preview(hierarchy: Any, counts: Any, floor: int, shown: int = 8) -> dict[str, Any]:
    """A hierarchy level by level: its groups, and ``shown`` of its values (spread over them) at every level.

    What the custodian checks before a run: that the builder groups the values as meant (``34`` ->
    ``30-39`` -> ``20-39`` -> ``*``).  ``counts`` are the table's records per leaf: only values that
    at least ``floor`` records hold are shown (the report's small-class rule).
    """
    common = np.flatnonzero(np.asarray(counts) >= floor)
    picked = common[np.unique(np.linspace(0, len(common) - 1, num=min(shown, len(common))).round().astype(np.int64))] \
        if len(common) else np.zeros(0, dtype=np.int64)
    return {"attribute": hierarchy.name, "levels": hierarchy.max_level, "source": hierarchy.source,
            "groups": [int(hierarchy.size(level)) for level in range(hierarchy.max_level + 1)],
            "values": [[str(v) for v in hierarchy.label(level, hierarchy.generalize(picked, level))]
                       for level in range(hierarchy.max_level + 1)],
            "floor": floor}
