"""Tests of Mondrian's compiled path (anonset.methods.mondrian.compiled.paths, grow, judge, fill*, offers, floats).

The Python loop over regions (``regions._grow``) is the reference: every
compiled tree is compared with the tree the reference grows from the same
input (the compiled path switched off), node by node.  The compiled judge is
compared with the privacy model classes on random class statistics, the
numpy-order sums and rounding with numpy, and the candidate order with the
reference's ranking.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset.core.attribute_space import attribute_space
from anonset.core.dataset import Dataset
from anonset.core.stats import ClassStats
from anonset.errors import InfeasibleError
from anonset.hierarchy import Hierarchy
from anonset.methods.mondrian import regions
from anonset.methods.mondrian.compiled import paths as compiled
from anonset.methods.mondrian.compiled.floats import numpy_round, numpy_sum
from anonset.methods.mondrian.compiled.judge import model_arrays, satisfied
from anonset.methods.mondrian.compiled.offers import heapify, keep_every, new_offers, offer, pop
from anonset.methods.mondrian.criteria import InfoGainCriterion
from anonset.methods.mondrian.regions import MondrianTree, mondrian
from anonset.methods.mondrian.split import MedianCriterion
from anonset.privacy.base import PrivacyModel, Requirements
from anonset.privacy.disclosure import DeltaDisclosure
from anonset.privacy.kanonymity import KAnonymity
from anonset.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from anonset.privacy.likeness import BetaLikeness
from anonset.privacy.risk_models import HighestRisk
from anonset.privacy.squared_error import SquaredErrorDiversity
from anonset.privacy.tcloseness import TCloseness
from support import random_hierarchy, random_table, require_adult


# ---------------------------------------------------------------- the two paths
def _table(seed: int, n_rows: int) -> Dataset:
    """Hierarchy quasi-identifiers q0, q1, numeric ones x (integers) and z (one decimal, many ties); a sensitive
    s with a hierarchy and a numeric sensitive w; categorical targets y (related to x) and y2, a numeric target v."""
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, n_rows, 2)
    attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["x"] = {"role": "quasi", "type": "numeric"}
    table["z"] = np.round(rng.normal(0, 1, n_rows), 1).astype(str)
    attrs["z"] = {"role": "quasi", "type": "numeric"}
    sensitive = random_hierarchy(rng, "s", 5, 3)
    table["s"] = np.array(sensitive.leaves, dtype=object)[rng.integers(0, 5, n_rows)]
    attrs["s"] = {"role": "sensitive", "hierarchy": sensitive}
    table["w"] = np.round(rng.gamma(2, 3, n_rows), 2).astype(str)
    attrs["w"] = {"role": "sensitive", "type": "numeric"}
    table["y"] = np.where(rng.random(n_rows) < 0.3 + 0.4 * (table["x"].astype(int) > 25), "A", "B")
    table["y2"] = rng.choice(["p", "q", "r"], n_rows)
    table["v"] = np.round(rng.normal(table["x"].astype(float), 5), 3).astype(str)
    attrs.update({"y": {"role": "target"}, "y2": {"role": "target"}, "v": {"role": "target", "type": "numeric"}})
    return Dataset(table, attrs)


MODELS = {
    "k": lambda k: [KAnonymity(k)],
    "highest risk": lambda k: [HighestRisk(1 / k)],
    "distinct": lambda k: [KAnonymity(k), DistinctLDiversity("s", 2)],
    "entropy": lambda k: [KAnonymity(k), EntropyLDiversity("s", 2.5)],
    "recursive": lambda k: [KAnonymity(k), RecursiveCLDiversity("s", 2, 3.0)],
    "t equal": lambda k: [KAnonymity(k), TCloseness("s", 0.3)],
    "t ordered": lambda k: [KAnonymity(k), TCloseness("w", 0.25, "ordered")],
    "t hierarchical": lambda k: [KAnonymity(k), TCloseness("s", 0.2, "hierarchical")],
    "squared error": lambda k: [KAnonymity(k), SquaredErrorDiversity("w", 60.0)],
    "beta": lambda k: [KAnonymity(k), BetaLikeness("s", 1.0)],
    "beta enhanced": lambda k: [KAnonymity(k), BetaLikeness("s", 1.5, "enhanced")],
    "delta": lambda k: [KAnonymity(k), DeltaDisclosure("s", 1.0)],
    "all": lambda k: [KAnonymity(k), EntropyLDiversity("s", 2), TCloseness("w", 0.3, "ordered"),
                      SquaredErrorDiversity("w", 40.0)],
}
SELECTIONS = [{"x": [10, 30]}, {"z": [-0.5, 2], "q0": ["q00"]}]
CRITERIA = {
    "median": {},
    "infogain": {"criterion": "infogain", "targets": ["y"]},
    "infogain, two targets": {"criterion": "infogain", "targets": ["y", "y2"]},
    "lsd": {"criterion": "lsd", "targets": ["v"]},
    "selection, then infogain": {"criterion": "selection", "targets": ["y"], "selections": SELECTIONS},
    "selection, then lsd": {"criterion": "selection", "targets": ["v"], "selections": SELECTIONS},
    "selection, then median": {"criterion": "selection", "targets": [], "selections": SELECTIONS},
}


def _reference(monkeypatch: pytest.MonkeyPatch, *args, **kwargs) -> MondrianTree:
    """The tree of the Python loop over regions (the compiled paths switched off)."""
    with monkeypatch.context() as patch:
        patch.setattr(regions, "compiled_cuts", lambda *_: None)
        return mondrian(*args, **kwargs)


def _assert_same_tree(a: MondrianTree, b: MondrianTree) -> None:
    assert np.array_equal(a.row_class, b.row_class)
    for name in ("parent", "key", "split_attr", "split_level", "node_class"):
        assert np.array_equal(getattr(a.nodes, name), getattr(b.nodes, name)), name
    assert np.array_equal(a.nodes.threshold, b.nodes.threshold, equal_nan=True)
    for name in ("lower", "upper", "low", "high"):
        assert np.array_equal(getattr(a.boxes, name), getattr(b.boxes, name), equal_nan=True), name
    for name in ("node_level", "node_code", "lca_level", "lca_code"):
        assert np.array_equal(getattr(a.boxes, name), getattr(b.boxes, name)), name


@pytest.mark.parametrize("models", sorted(MODELS))
@pytest.mark.parametrize("seed", range(2))
def test_compiled_trees_equal_the_reference(monkeypatch: pytest.MonkeyPatch, models: str, seed: int) -> None:
    """Every criterion, strict and relaxed: the compiled tree is the reference's, node for node.

    Each table has its own k (3 on the first, 7 on the second), so every set of models is grown with both.
    """
    ds = _table(seed, 240 + 60 * seed)
    requirements = Requirements(MODELS[models](3 + 4 * seed))
    splits = 0
    for options in CRITERIA.values():
        for strict in (True, False):
            tree = mondrian(ds, requirements, strict=strict, **options)
            _assert_same_tree(tree, _reference(monkeypatch, ds, requirements, strict=strict, **options))
            splits += tree.n_classes - 1
    assert splits > 100  # the trees are not trivial


def test_the_compiled_path_runs_and_the_reference_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    # the reference loop is not reached for a built-in criterion and model, and is for a model of another class
    ds = _table(0, 200)
    calls: list[int] = []
    python_loop = regions._grow

    def counted(*args, **kwargs):
        calls.append(1)
        return python_loop(*args, **kwargs)

    monkeypatch.setattr(regions, "_grow", counted)
    mondrian(ds, Requirements([KAnonymity(4), EntropyLDiversity("s", 2)]), criterion="infogain", targets="y")
    assert not calls

    class AtMost(PrivacyModel):
        """Classes of at most 60 records (no compiled judge)."""

        def satisfied(self, stats: ClassStats) -> np.ndarray:
            return stats.sizes <= 60

        def describe(self) -> str:
            return "at most 60"

    with pytest.raises(InfeasibleError, match="does not satisfy at most 60"):
        mondrian(ds, Requirements([KAnonymity(4), AtMost()]))
    assert not calls  # refused before any growing
    small = Dataset(ds.table.iloc[:50], {q: {"role": "quasi", "hierarchy": ds.require_hierarchy(q)}
                                         for q in ("q0", "q1")})
    tree = mondrian(small, Requirements([KAnonymity(4), AtMost()]))
    assert calls and tree.n_classes >= 1


def test_criteria_without_a_compiled_form(monkeypatch: pytest.MonkeyPatch) -> None:
    ds = _table(1, 200)
    space = attribute_space(ds)
    width = space.maps.shape[2]
    classes = np.unique(ds.table["y"], return_inverse=True)[1].reshape(1, -1)
    assert compiled.criterion_arrays(InfoGainCriterion(classes, min_size=5), width, 5) is not None
    assert compiled.criterion_arrays(InfoGainCriterion(classes, min_size=3), width, 5) is None  # another min_size

    class Widest(MedianCriterion):
        name = "widest"

    assert compiled.criterion_arrays(Widest(), width, 5) is None
    tree = mondrian(ds, Requirements([KAnonymity(5), DistinctLDiversity("s", 2)]), criterion=Widest())
    reference = _reference(monkeypatch, ds, Requirements([KAnonymity(5), DistinctLDiversity("s", 2)]))
    assert np.array_equal(tree.row_class, reference.row_class) and tree.criterion == "widest"


@pytest.mark.parametrize("criterion", ["infogain", "lsd"])
def test_adult_workload_criteria_equal_the_reference(monkeypatch: pytest.MonkeyPatch, criterion: str) -> None:
    from anonset.core.dataset import AttributeSpec, AttributeType, Role
    from anonset.datasets import adult_morton

    ds = adult_morton(require_adult())
    specs = dict(ds.specs)
    if criterion == "infogain":
        specs["income"] = AttributeSpec(role=Role.TARGET)
    else:
        specs["hours-per-week"] = AttributeSpec(role=Role.TARGET, type=AttributeType.NUMERIC)
    assert ds.table is not None
    ds = Dataset(ds.table, specs)
    for strict in (True, False):
        requirements = Requirements([KAnonymity(10)])
        tree = mondrian(ds, requirements, strict=strict, criterion=criterion)
        _assert_same_tree(tree, _reference(monkeypatch, ds, requirements, strict=strict, criterion=criterion))
        assert tree.n_classes > 1500


# ---------------------------------------------------------------- the judge against the models
def _stats(rng: np.random.Generator, n_classes: int, width: int, boundary: int) -> ClassStats:
    """Random class histograms over ``width`` values (and moments of w); the first ``boundary`` classes uniform
    over a few values, so that entropy l-diversity sits exactly at log l."""
    hist = rng.integers(0, 6, (n_classes, width)) * (rng.random((n_classes, width)) < 0.6)
    for c in range(boundary):
        hist[c] = 0
        hist[c, rng.choice(width, 1 + c % width, replace=False)] = int(rng.integers(1, 5))
    sizes = np.maximum(hist.sum(axis=1), 1).astype(np.int64)
    values = rng.gamma(2, 3, (n_classes, 8))
    sums = values.sum(axis=1) * (sizes / 8)
    sumsq = (values * values).sum(axis=1) * (sizes / 8)
    sumsq[: boundary] = sums[: boundary] ** 2 / sizes[: boundary] + 40.0  # squared error exactly 40
    return ClassStats(sizes=sizes, keys=np.zeros((n_classes, 0), dtype=np.int32),
                      histograms={"s": hist.astype(np.int64)}, sums={"w": sums}, sumsq={"w": sumsq})


JUDGED = {
    "distinct": lambda: DistinctLDiversity("s", 3),
    "entropy 2": lambda: EntropyLDiversity("s", 2),
    "entropy 3": lambda: EntropyLDiversity("s", 3),
    "entropy 2.5": lambda: EntropyLDiversity("s", 2.5),
    "recursive": lambda: RecursiveCLDiversity("s", 2, 1.5),
    "recursive 3": lambda: RecursiveCLDiversity("s", 3, 4.0),
    "t equal": lambda: TCloseness("s", 0.25),
    "t ordered": lambda: TCloseness("w", 0.2, "ordered"),
    "t hierarchical": lambda: TCloseness("s", 0.15, "hierarchical"),
    "squared error": lambda: SquaredErrorDiversity("w", 40.0),
    "beta": lambda: BetaLikeness("s", 1.0),
    "beta enhanced": lambda: BetaLikeness("s", 0.8, "enhanced"),
    "delta": lambda: DeltaDisclosure("s", 1.0),
}


@pytest.mark.parametrize("name", sorted(JUDGED))
@pytest.mark.parametrize("seed", range(3))
def test_compiled_judge_equals_the_model(name: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    width = 9
    leaves = [f"s{i}" for i in range(width)]
    hierarchy = Hierarchy.from_rows("s", [[leaf, f"g{i % 3}", f"h{i % 3 // 2}", "*"] for i, leaf in enumerate(leaves)])
    table = pd.DataFrame({"q": ["a"] * 90, "s": [leaves[i % width] for i in range(90)],
                          "w": [str(i) for i in range(90)]})
    ds = Dataset(table, {"q": {"role": "quasi"}, "s": {"role": "sensitive", "hierarchy": hierarchy},
                         "w": {"role": "sensitive", "type": "numeric"}})
    model = JUDGED[name]()
    model.validate(ds)
    arrays = model_arrays(ds, Requirements([model]))
    assert arrays is not None
    stats = _stats(rng, 400, width, 40)
    if name == "t ordered":  # w has 90 values: a histogram over them
        hist = rng.integers(0, 3, (400, 90)) * (rng.random((400, 90)) < 0.2)
        stats = ClassStats(sizes=np.maximum(hist.sum(axis=1), 1), keys=stats.keys, histograms={"w": hist})
    hist = stats.histograms.get("s", stats.histograms.get("w"))
    moments = (np.stack([stats.sums["w"]]), np.stack([stats.sumsq["w"]])) if stats.sums else (np.zeros((0, 400)),) * 2
    verdict = satisfied(arrays, stats.sizes, np.ascontiguousarray(hist), *moments)[0]
    expected = model.satisfied(stats)
    if isinstance(model, TCloseness) and model.distance == "hierarchical":
        # documented: the compiled distance adds in leaf order, numpy's matrix product perhaps not
        near = np.abs(model.distances(stats) - (model.t + 1e-9)) < 1e-12
        assert np.array_equal(verdict[~near], expected[~near])
    else:
        assert np.array_equal(verdict, expected)
    assert 0 < expected.sum() < len(expected)  # both verdicts occur


def test_entropy_at_exactly_log_l_is_diverse() -> None:
    # a class uniform over l values has entropy log l: diverse, as the model (and docs/architecture.md) says
    table = pd.DataFrame({"q": ["a"] * 6, "s": ["u", "v", "w", "u", "v", "w"]})
    ds = Dataset(table, {"q": {"role": "quasi"}, "s": {"role": "sensitive"}})
    model = EntropyLDiversity("s", 3)
    arrays = model_arrays(ds, Requirements([model]))
    assert arrays is not None
    hist = np.array([[2, 2, 2], [3, 2, 1]], dtype=np.int64)
    verdict = satisfied(arrays, np.array([6, 6]), hist, np.zeros((0, 2)), np.zeros((0, 2)))[0]
    assert verdict.tolist() == [True, False]


# ---------------------------------------------------------------- numpy's order, and the candidates' order
@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 127, 128, 129, 1000, 8191, 8192, 8193, 20_000, 100_003])
def test_numpy_sum_adds_as_numpy(n: int) -> None:
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n + 5) * 10.0 ** rng.integers(-3, 4, n + 5)
    assert numpy_sum(a, 5, n) == a[5:].sum()
    assert numpy_sum(a, 5, n) / max(n, 1) == (a[5:].mean() if n else 0.0)


def test_numpy_round_rounds_as_numpy() -> None:
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.random(20_000) * rng.choice([1e-4, 1.0, 7.0, 300.0], 20_000),
                             -rng.random(1000), np.arange(1000) / 8.0 * 1e-12])
    assert all(numpy_round(float(v), 12) == np.round(v, 12) for v in values)


@pytest.mark.parametrize("seed", range(5))
def test_offers_come_out_in_the_reference_order(seed: int) -> None:
    # random cuts (two tiers) and a hierarchy split with tied scores: every candidate, best first, in the order
    # of the reference's keys (tier, score, attribute, imbalance, -position; a hierarchy split has imbalance and
    # position 0), with room made for them as Mondrian's loop makes it
    rng = np.random.default_rng(seed)
    m = 60
    expected = []
    for attribute in range(3):
        positions = rng.choice(np.arange(1, m), 25, replace=False)
        for p in positions:
            expected.append((int(rng.integers(0, 2)), float(rng.integers(0, 3)), attribute, abs(2 * int(p) - m),
                             -int(p)))
    expected.append((0, float(rng.integers(0, 3)), 3, 0, 0))
    order = rng.permutation(len(expected))
    offers = new_offers(4)
    for _ in range(2):
        keep_every(offers, m)
        for i in order:
            tier, score, attribute, _, negative = expected[i]
            offer(offers, tier, score, attribute, -negative)
        if offers.state[0] <= len(offers.tier):
            break
        offers = new_offers(int(offers.state[0]))
    heapify(offers)
    popped = []
    while (i := pop(offers)) >= 0:
        position = int(offers.position[i])
        imbalance = abs(2 * position - m) if position else 0
        popped.append((int(offers.tier[i]), float(offers.score[i]), int(offers.attribute[i]), imbalance, -position))
    assert popped == sorted(expected)
