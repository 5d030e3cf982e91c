"""Research value (Morton et al.): a custodian-defined utility of full-domain generalizations.

Per quasi-identifier ``x`` and level ``k`` (the reading fixed by the paper's
worked example: at the most specific level the RV equals ``w_x`` and it
decreases as the attribute is generalized):

- numeric: ``RV_k = w_x · Σ_groups@0 N_i·R_i / Σ_groups@k N_i·R_i · ΣDR_k / ΣDR_0``,
  where a group is one generalized value at that level, ``N_i`` the records in
  it and ``R_i`` the width of its range, taken as the number of hierarchy
  leaves under the group (for an integer attribute: hi − lo + 1; 1 for a
  single value);
- categorical: ``RV_k = w_x · |A_k| / |A_0| · ΣDR_k / ΣDR_0``, with ``|A_k|``
  the number of distinct generalized values present at level k;
- ``ΣDR_k`` sums the importances of the data-constraint rules still satisfied
  at level k (all are at level 0): a categorical "do not mix" rule holds while
  its values generalize to pairwise different nodes, a numeric "keep the
  boundary at v" rule holds while no group spans across v (some leaf < v and
  some leaf >= v under one node).

- the root level (every value generalized to one) has research value zero,
  as in the paper's data preparation ("the most general level with a zero
  research value"); the formulas above would give it ``w_x / |A_0|``
  (categorical) or ``w_x`` divided by the number of leaves (numeric).

A node's research value is the sum over attributes; higher is better.  A
custodian may instead give the RV of every level directly (the paper's Table 3),
root included.
Weights are given per attribute, or ``auto``: ``1 − mean bias-corrected
Cramér's V`` of the attribute with every other quasi-identifier (leaf-level
contingency tables, Bergsma's correction), normalized to sum 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from anonset.core.dataset import AttributeType, Dataset
from anonset.core.partition import HierarchyNodes, Partition
from anonset.errors import ConfigError
from anonset.metrics.base import Metric

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.engine.base import Engine

__all__ = ["DoNotMix", "KeepBoundary", "ResearchValue", "cramers_v_weights"]


@dataclass(frozen=True)
class DoNotMix:
    """Categorical rule: the listed values must stay in pairwise different groups."""

    values: tuple[str, ...]
    importance: float

    def satisfied(self, dataset: Dataset, attribute: str, level: int) -> bool:
        """True while the values generalize to pairwise different nodes at ``level``."""
        h = dataset.require_hierarchy(attribute)
        nodes = [int(h.maps[level][h.leaf_code(v)]) for v in self.values]
        return len(set(nodes)) == len(nodes)

    def validate(self, dataset: Dataset, attribute: str) -> None:
        """Every value must be a value of the attribute."""
        h = dataset.require_hierarchy(attribute)
        if len(self.values) < 2:
            raise ConfigError(f"research_value rule on {attribute!r}: do_not_mix needs at least two values")
        for v in self.values:
            if h.leaf_code(v) is None:
                known = ", ".join(repr(x) for x in h.leaves[:8])
                raise ConfigError(
                    f"research_value rule on {attribute!r}: value {v!r} is not a value of the attribute"
                    f" (values include {known}); fix the rule"
                )


@dataclass(frozen=True)
class KeepBoundary:
    """Numeric rule: no group may span across ``at`` (``at`` stays a group edge)."""

    at: float
    importance: float

    def satisfied(self, dataset: Dataset, attribute: str, level: int) -> bool:
        """True while no node at ``level`` has leaves on both sides of the boundary."""
        h = dataset.require_hierarchy(attribute)
        numbers = dataset.encoded[attribute].numbers
        assert numbers is not None
        valid = ~np.isnan(numbers)
        nodes = h.maps[level][valid]
        below = np.zeros(h.size(level), dtype=np.bool_)
        above = np.zeros(h.size(level), dtype=np.bool_)
        below[nodes[numbers[valid] < self.at]] = True
        above[nodes[numbers[valid] >= self.at]] = True
        return not bool((below & above).any())

    def validate(self, dataset: Dataset, attribute: str) -> None:
        """The attribute must be numeric and the boundary strictly inside its range."""
        col = dataset.encoded[attribute]
        if dataset.specs[attribute].type is not AttributeType.NUMERIC or col.numbers is None:
            raise ConfigError(f"research_value rule on {attribute!r}: keep_boundary needs a numeric attribute")
        present = col.numbers[(col.counts() > 0) & ~np.isnan(col.numbers)]
        low, high = float(present.min()), float(present.max())
        if not low < self.at <= high:
            raise ConfigError(
                f"research_value rule on {attribute!r}: boundary {self.at:g} is outside the attribute's range"
                f" ({low:g} to {high:g}); choose a value inside it"
            )


Rule = DoNotMix | KeepBoundary


@dataclass
class ResearchValue(Metric):
    """Morton et al.'s research value of full-domain generalizations (a value metric).

    Parameters
    ----------
    weights : "auto" or mapping of str to float
        Per-attribute weight ``w_x`` (must cover every quasi-identifier), or
        ``auto`` (see the module docstring).
    rules : mapping of str to sequence of Rule
        Data-constraint rules per attribute.
    levels : mapping of str to sequence of float
        RV of every level given directly (overrides the formula for that attribute);
        must not increase with generalization.
    """

    weights: str | Mapping[str, float] = "auto"
    rules: Mapping[str, Sequence[Rule]] = field(default_factory=dict)
    levels: Mapping[str, Sequence[float]] = field(default_factory=dict)
    name: str = "research_value"
    direction: str = "value"

    def content_key(self) -> tuple[object, ...]:
        """What the RV tables depend on besides the dataset: weights, rules and direct levels."""
        weights = self.weights if isinstance(self.weights, str) else tuple(sorted(
            (str(q), float(w)) for q, w in self.weights.items()))
        rules = tuple(sorted((str(q), repr(list(r))) for q, r in self.rules.items()))
        levels = tuple(sorted((str(q), tuple(float(v) for v in values)) for q, values in self.levels.items()))
        return ("research_value", weights, rules, levels)

    def prepare(self, dataset: Dataset, engine: Engine) -> None:
        """Compute the RV tables (and ``auto`` weights) through the run's engine, once per dataset."""
        self.tables(dataset, engine)

    def tables(self, dataset: Dataset, engine: Engine | None = None) -> list[NDArray[np.float64]]:
        """RV per level of every quasi-identifier (cached on the dataset under :meth:`content_key`).

        ``engine`` computes the contingency tables of ``auto`` weights; without
        one, see :func:`cramers_v_weights`.
        """
        key = self.content_key()
        cached = dataset.cache.get(key)
        if cached is not None:
            return cast("list[NDArray[np.float64]]", cached)
        self.validate(dataset)
        weights = self.attribute_weights(dataset, engine)
        out = []
        for j, q in enumerate(dataset.quasi):
            if q in self.levels:
                out.append(np.asarray(self.levels[q], dtype=np.float64))
                continue
            table = weights[j] * self._structure(dataset, q) * self._rule_ratio(dataset, q)
            if len(table) > 1:
                table[-1] = 0.0  # the root level
            out.append(table)
        dataset.cache[key] = out
        return out

    def validate(self, dataset: Dataset) -> None:
        """Check rules, direct RVs and weights against the data."""
        for attribute, rules in self.rules.items():
            if attribute not in dataset.quasi:
                raise ConfigError(f"research_value rules for {attribute!r}, which is not a quasi-identifier")
            for rule in rules:
                if rule.importance < 0:
                    raise ConfigError(f"research_value rule on {attribute!r}: importance must be >= 0")
                rule.validate(dataset, attribute)
        for attribute, values in self.levels.items():
            if attribute not in dataset.quasi:
                raise ConfigError(f"research_value levels for {attribute!r}, which is not a quasi-identifier")
            h = dataset.require_hierarchy(attribute)
            v = np.asarray(values, dtype=np.float64)
            if len(v) != h.n_levels:
                raise ConfigError(
                    f"research_value levels for {attribute!r}: {len(v)} values given but the hierarchy has"
                    f" {h.n_levels} levels (leaves to root); give one RV per level"
                )
            if (np.diff(v) > 0).any():
                raise ConfigError(
                    f"research_value levels for {attribute!r} increase with generalization ({list(values)});"
                    " a more general level cannot have more research value"
                )

    def attribute_weights(self, dataset: Dataset, engine: Engine | None = None) -> NDArray[np.float64]:
        """``w_x`` per quasi-identifier."""
        if isinstance(self.weights, str):
            if self.weights != "auto":
                raise ConfigError(f"research_value weights must be 'auto' or a mapping; got {self.weights!r}")
            return cramers_v_weights(dataset, engine)
        missing = [q for q in dataset.quasi if q not in self.weights and q not in self.levels]
        if missing:
            raise ConfigError(
                f"research_value weights do not cover quasi-identifier {missing[0]!r}; give every"
                " quasi-identifier a weight, or use weights: auto"
            )
        w = np.array([float(self.weights.get(q, 0.0)) for q in dataset.quasi])
        if (w < 0).any() or not np.isfinite(w).all():
            raise ConfigError("research_value weights must be non-negative numbers")
        return w

    def _structure(self, dataset: Dataset, attribute: str) -> NDArray[np.float64]:
        """The per-level factor without weight and rules: N·R ratio (numeric) or |A_k|/|A_0|."""
        h = dataset.require_hierarchy(attribute)
        counts = dataset.encoded[attribute].counts().astype(np.float64)
        out = np.empty(h.n_levels)
        numeric = dataset.specs[attribute].type is AttributeType.NUMERIC
        base = None
        for level in range(h.n_levels):
            group_records = np.bincount(h.maps[level], weights=counts, minlength=h.size(level))
            value = float((group_records * h.leaf_counts[level]).sum()) if numeric else float((group_records > 0).sum())
            base = value if base is None else base
            out[level] = base / value if numeric else value / base
        return out

    def _rule_ratio(self, dataset: Dataset, attribute: str) -> NDArray[np.float64]:
        h = dataset.require_hierarchy(attribute)
        rules = self.rules.get(attribute, ())
        total = sum(r.importance for r in rules)
        if not rules or total == 0:
            return np.ones(h.n_levels)
        return np.array([sum(r.importance for r in rules if r.satisfied(dataset, attribute, level)) / total
                         for level in range(h.n_levels)])

    def node_values(self, dataset: Dataset, nodes: NDArray[np.int64]) -> NDArray[np.float64]:
        """Research value of each full-domain node (rows of ``nodes``)."""
        tables = self.tables(dataset)
        total = np.zeros(len(nodes))
        for j, table in enumerate(tables):
            total += table[nodes[:, j]]
        return total

    def score(self, partition: Partition, dataset: Dataset) -> float:
        """RV of a full-domain partition (every class of an attribute at one level)."""
        levels = []
        for q in dataset.quasi:
            values = partition.values[q]
            if not isinstance(values, HierarchyNodes) or len(np.unique(values.levels)) > 1:
                raise ConfigError("research_value is defined for full-domain generalizations only")
            levels.append(int(values.levels[0]) if len(values.levels) else dataset.require_hierarchy(q).max_level)
        return float(self.node_values(dataset, np.array([levels]))[0])

    def node_bounds(self, dataset: Dataset, levels: NDArray[np.int64]) -> NDArray[np.float64]:
        """The objective (−RV) itself: it depends on the levels alone."""
        return -self.node_values(dataset, levels)


def cramers_v_weights(dataset: Dataset, engine: Engine | None = None) -> NDArray[np.float64]:
    """``1 − mean bias-corrected Cramér's V`` with the other quasi-identifiers, normalized to sum 1.

    The contingency table of two attributes is the class table of the node with
    both at their leaves (at their minimum generalization when the engine
    counted its classes there) and every other attribute at its root, so any
    engine computes it (inside the database for the SQL engine).  Without ``engine``,
    a dataset in memory gets a numpy engine; a dataset built from a database
    profile needs its engine (the Anonymizer passes it through
    :meth:`ResearchValue.prepare`).
    """
    d = len(dataset.quasi)
    if d == 1:
        return np.ones(1)
    bottom = engine.bottom_levels if engine is not None else tuple(0 for _ in dataset.quasi)
    key = ("cramers_v_weights", bottom)
    cached = dataset.cache.get(key)
    if cached is not None:
        return cast("NDArray[np.float64]", cached)
    engine = engine if engine is not None else _engine_of(dataset)
    top = [dataset.require_hierarchy(q).max_level for q in dataset.quasi]
    v = np.zeros((d, d))
    n = float(dataset.n_rows)
    for i in range(d):
        for j in range(i + 1, d):
            levels = list(top)
            levels[i] = bottom[i]
            levels[j] = bottom[j]
            stats = engine.class_stats(tuple(levels))
            v[i, j] = v[j, i] = _corrected_v(stats.keys[:, i], stats.keys[:, j], stats.sizes.astype(float), n)
    independence = 1.0 - v.sum(axis=1) / (d - 1)
    weights = np.full(d, 1.0 / d) if independence.sum() <= 0 else independence / independence.sum()
    dataset.cache[key] = weights
    return weights


def _engine_of(dataset: Dataset) -> Engine:
    """A numpy engine of a dataset in memory; a table in a database needs its engine passed (``prepare``)."""
    from anonset.engine.numpy.engine import NumpyEngine

    if not dataset.in_memory:
        raise ConfigError(
            f"{dataset.source}: research_value weights: auto needs contingency tables of the table in the"
            " database; prepare the metric with the dataset's engine first (ResearchValue.prepare(dataset, engine),"
            " which the Anonymizer does), or give the weights per attribute"
        )
    return NumpyEngine(dataset)


def _corrected_v(a: NDArray[np.int32], b: NDArray[np.int32], counts: NDArray[np.float64], n: float) -> float:
    """Bias-corrected Cramér's V (Bergsma 2013) of a contingency table given as (a, b, count) triples."""
    _, ai = np.unique(a, return_inverse=True)
    _, bi = np.unique(b, return_inverse=True)
    r, c = int(ai.max()) + 1, int(bi.max()) + 1
    if r < 2 or c < 2 or n < 2:
        return 0.0
    table = np.zeros((r, c))
    np.add.at(table, (ai, bi), counts)
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / n
    chi2 = float(((table - expected) ** 2 / expected).sum())
    phi2 = max(0.0, chi2 / n - (r - 1) * (c - 1) / (n - 1))
    r_corr = r - (r - 1) ** 2 / (n - 1)
    c_corr = c - (c - 1) ** 2 / (n - 1)
    denominator = min(r_corr - 1, c_corr - 1)
    return float(np.sqrt(phi2 / denominator)) if denominator > 0 else 0.0
