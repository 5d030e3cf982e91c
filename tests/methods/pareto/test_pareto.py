"""Property based generalizations: indices, the η rule, dominance, the exact front, PBG-EA, CE and RR.

Every objective value a test relies on is recomputed here from the
generalized records with pandas (labels taken from the hierarchy's rows, classes
by ``groupby``, the paper's suppression rule applied literally), never from the
evaluator's bookkeeping.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.core.partition import Partition
from anonset.core.stats import StatsRequest
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import ConfigError
from anonset.hierarchy import Hierarchy
from anonset.methods.pareto.dominance import (
    BoxArchive,
    box_dominates,
    boxes,
    dominates,
    nondominated,
    orient,
)
from anonset.methods.pareto.evolutionary import pareto_ea, spea2_fitness
from anonset.methods.pareto.exhaustive import pareto_exhaustive
from anonset.methods.pareto.objectives import (
    OBJECTIVES,
    NodeEvaluator,
    ParetoResult,
    suppression_threshold,
)
from anonset.methods.pareto.quality import assess, convergence_error, representation_ratio
from anonset.metrics import GLM, ClassificationMetric
from anonset.privacy import DistinctLDiversity, KAnonymity, Requirements
from anonset.recheck.verify import verify_release
from anonset.release.release import render_full_domain
from support import random_table, require_adult

ALL = ("k", "l", "s_k", "s_l", "glm", "cm")


# ---------------------------------------------------------------- independent reference
def _dataset(seed: int, n_rows: int = 80, n_quasi: int = 3) -> Dataset:
    """A random table: quasi-identifiers q0.., sensitive ``s``, class label ``y``."""
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, n_rows, n_quasi, n_sensitive_values=4)
    table["y"] = np.array(["yes", "no", "maybe"], dtype=object)[rng.integers(0, 3, n_rows)]
    attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    attrs["y"] = {"role": "target"}
    return Dataset(table, attrs)


def _literal_threshold(sizes: list[int], budget: int) -> int:
    """The paper's rule word for word: the smallest j with |E_1 ∪ … ∪ E_{j+1}| > η; k = j + 1."""
    n = sum(sizes)
    for j in range(n + 1):
        if sum(s for s in sizes if s <= j + 1) > budget:
            return j + 1
    return max(sizes)


def _reference(ds: Dataset, levels: tuple[int, ...], eta: float) -> tuple[dict[str, float], int]:
    """Every index of a node from the generalized records (pandas), and the suppressed count."""
    assert ds.table is not None
    table = ds.table
    general = pd.DataFrame(index=table.index)
    leaves_under: dict[str, pd.Series] = {}
    for q, level in zip(ds.quasi, levels, strict=True):
        rows = ds.require_hierarchy(q).rows()
        label_of = {row[0]: row[level] for row in rows}
        general[q] = table[q].map(label_of)
        leaves_under[q] = pd.Series([row[level] for row in rows]).value_counts()
    size = general.groupby(list(ds.quasi))[ds.quasi[0]].transform("size")
    budget = int(np.floor(eta * len(table) + 1e-9))
    class_sizes = general.groupby(list(ds.quasi)).size().tolist()
    k = _literal_threshold(class_sizes, budget)
    kept = size >= k
    n_supp = int((~kept).sum())
    frame = general.assign(s=table["s"], y=table["y"])[kept]
    groups = frame.groupby(list(ds.quasi))
    same_s = frame.groupby([*ds.quasi, "s"])["s"].transform("size")
    glm = float(n_supp * len(ds.quasi))
    for q in ds.quasi:
        n_leaves = ds.require_hierarchy(q).n_leaves
        cost = (frame[q].map(leaves_under[q]) - 1) / (n_leaves - 1) if n_leaves > 1 else frame[q] * 0
        glm += float(cost.sum())
    majority = groups["y"].agg(lambda v: v.value_counts().max()).sum()
    values = {
        "k": float(groups.size().min()),
        "l": float(groups["s"].nunique().min()),
        "s_k": float(size[kept].sum()),
        "s_l": float(same_s.sum()),
        "glm": glm,
        "cm": (len(table) - float(majority)) / len(table),
    }
    return values, n_supp


def _check_member(ds: Dataset, levels: tuple[int, ...], objectives: dict[str, float], suppressed: int,
                  eta: float) -> None:
    """A released member's indices and suppressed count equal the pandas reference."""
    reference, n_supp = _reference(ds, levels, eta)
    assert suppressed == n_supp
    for name, value in objectives.items():
        assert value == pytest.approx(reference[name], rel=1e-12, abs=1e-9), (name, levels)


def _brute_nondominated(values: np.ndarray, maximize: np.ndarray) -> set[int]:
    """Rows no other row dominates, by a double loop."""
    sign = np.where(maximize, -1.0, 1.0)
    f = values * sign
    out = set()
    for i in range(len(f)):
        if not any(np.all(f[j] <= f[i]) and np.any(f[j] < f[i]) for j in range(len(f)) if j != i):
            out.add(i)
    return out


# ---------------------------------------------------------------- indices of a node
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_node_values_match_pandas(seed: int) -> None:
    ds = _dataset(seed)
    ev = NodeEvaluator(ds, ALL, eta=0.1)
    lattice = ev.lattice
    rng = np.random.default_rng(seed)
    picks = {lattice.bottom, lattice.top} | {tuple(int(v) for v in lattice.nodes[i])
                                           for i in rng.integers(0, lattice.size, 6)}
    for levels in picks:
        row = ev.evaluate(levels)
        values = dict(zip(ALL, ev.values[row].tolist(), strict=True))
        _check_member(ds, levels, values, int(ev.suppressed[row]), 0.1)


def test_glm_and_cm_equal_the_shared_metrics() -> None:
    ds = _dataset(4, n_rows=120)
    ev = NodeEvaluator(ds, ["glm", "cm"], eta=0.05)
    engine = NumpyEngine(ds)
    for node in ev.lattice.nodes:
        levels = tuple(int(v) for v in node)
        row_class, stats = engine.row_classes(levels)
        kept = stats.sizes >= suppression_threshold(stats.sizes, ev.budget)
        partition = Partition.from_node(ds.quasi, stats, kept, row_class)
        row = ev.evaluate(levels)
        glm, cm = ev.values[row]
        assert glm == pytest.approx(GLM().score(partition, ds), rel=1e-12)
        assert cm == pytest.approx(ClassificationMetric().score(partition, ds), rel=1e-12)


def test_cm_on_a_domain_too_wide_for_one_integer_key() -> None:
    # 8 quasi-identifiers of 400 values each: 400**8 bottom cells overflow int64, so classes are matched by rows
    rng = np.random.default_rng(9)
    n = 300
    table = pd.DataFrame({f"c{j}": [f"v{v}" for v in rng.integers(0, 400, n)] for j in range(8)})
    table["y"] = np.array(["a", "b"], dtype=object)[rng.integers(0, 2, n)]
    values = [f"v{v}" for v in range(400)]
    attrs: dict = {f"c{j}": {"role": "quasi", "hierarchy": Hierarchy.flat(f"c{j}", values)} for j in range(8)}
    ds = Dataset(table, {**attrs, "y": {"role": "target"}})
    ev = NodeEvaluator(ds, ["k", "cm"], eta=0.0)
    engine = NumpyEngine(ds)
    for levels in [(0,) * 8, (1, 0, 0, 0, 0, 0, 0, 0), (1, 1, 1, 1, 0, 1, 1, 1), (1,) * 8]:
        row_class, stats = engine.row_classes(levels)
        partition = Partition.from_node(ds.quasi, stats, np.ones(stats.n_classes, dtype=bool), row_class)
        row = ev.evaluate(levels)
        assert ev.values[row, 1] == pytest.approx(ClassificationMetric().score(partition, ds), rel=1e-12)


def test_directions() -> None:
    assert {o: OBJECTIVES[o].direction for o in ALL} == {
        "k": "max", "l": "max", "s_k": "max", "s_l": "max", "glm": "min", "cm": "min"}


# ---------------------------------------------------------------- the η rule
@pytest.mark.parametrize(("budget", "k"), [(0, 1), (1, 1), (2, 2), (3, 2), (4, 3), (6, 3), (7, 5), (11, 5),
                                           (12, 10), (21, 10), (22, 10)])
def test_eta_rule_by_hand(budget: int, k: int) -> None:
    # E_1 = 2 records, E_2 = 2, E_3 = 3, E_5 = 5, E_10 = 10 (n = 22)
    sizes = np.array([1, 10, 2, 1, 5, 3])
    assert suppression_threshold(sizes, budget) == k
    assert _literal_threshold(sizes.tolist(), budget) == k


def test_eta_rule_skips_empty_sizes() -> None:
    # E_2 .. E_49 are empty: with room for E_1 only, the node is 50-anonymous
    assert suppression_threshold(np.array([1, 1, 50]), 2) == 50
    assert suppression_threshold(np.array([1, 1, 50]), 1) == 1


def test_eta_rule_random_against_literal() -> None:
    rng = np.random.default_rng(0)
    for _ in range(300):
        sizes = rng.integers(1, 12, rng.integers(1, 15))
        budget = int(rng.integers(0, sizes.sum() + 2))
        assert suppression_threshold(sizes, budget) == _literal_threshold(sizes.tolist(), budget)


# ---------------------------------------------------------------- dominance
def test_dominance_by_hand() -> None:
    maximize = np.array([True, False])  # (k, glm)
    a, b, c = orient(np.array([[10, 100], [12, 130], [10, 90]]), maximize)
    assert not dominates(a, b) and not dominates(b, a)  # trade-off
    assert dominates(c, a) and not dominates(a, c)  # same k, lower loss
    assert not dominates(a, a)


def test_box_dominance_by_hand() -> None:
    maximize = np.array([True, False])
    eps = np.array([5.0, 50.0])
    values = np.array([[10, 100], [12, 130], [15, 120], [11, 99]], dtype=float)
    f = orient(values, maximize)
    bx = boxes(values, maximize, eps)
    assert bx.tolist() == [[-2, 2], [-2, 2], [-3, 2], [-2, 1]]
    # a, b share box (2, 2) and trade off: neither box-dominates the other
    assert not box_dominates(f[0], bx[0], f[1], bx[1]) and not box_dominates(f[1], bx[1], f[0], bx[0])
    # c is incomparable with a in values but its box (3, 2) dominates a's box (2, 2)
    assert not dominates(f[2], f[0]) and box_dominates(f[2], bx[2], f[0], bx[0])
    # d (11, 99) sits in box (2, 1), which c's box (3, 2) does not dominate
    assert not box_dominates(f[2], bx[2], f[3], bx[3]) and not box_dominates(f[3], bx[3], f[2], bx[2])


def test_archive_algorithm_1_by_hand() -> None:
    archive = BoxArchive(np.array([True, False]), np.array([5.0, 50.0]))
    assert archive.update(0, np.array([10.0, 100.0]))  # empty archive: enters
    assert not archive.update(1, np.array([12.0, 130.0]))  # same box, incomparable: box taken
    assert archive.update(2, np.array([10.0, 90.0]))  # box (2, 1) dominates box (2, 2): replaces 0
    assert archive.ids.tolist() == [2]
    assert archive.update(3, np.array([15.0, 120.0]))  # box (3, 2) and box (2, 1) trade off: both stay
    assert sorted(archive.ids.tolist()) == [2, 3]
    assert archive.update(4, np.array([16.0, 60.0]))  # box (3, 1) box-dominates both
    assert archive.ids.tolist() == [4]
    assert not archive.update(4, np.array([16.0, 60.0]))  # already a member
    assert not archive.update(5, np.array([5.0, 99.0]))  # box (1, 1) dominated by (3, 1)


def test_nondominated_against_brute_force() -> None:
    rng = np.random.default_rng(5)
    for _ in range(30):
        m, r = int(rng.integers(1, 700)), int(rng.integers(2, 4))
        values = rng.integers(0, 12, (m, r)).astype(float)  # many ties and duplicates
        maximize = rng.random(r) < 0.5
        fast = set(np.flatnonzero(nondominated(orient(values, maximize))).tolist())
        if m <= 150:
            assert fast == _brute_nondominated(values, maximize)
        f = orient(values, maximize)
        kept = f[sorted(fast)]
        dropped = f[sorted(set(range(m)) - fast)]
        if len(dropped):
            assert dominates(kept[:, None, :], dropped[None, :, :]).any(axis=0).all()


def test_spea2_fitness_by_hand() -> None:
    # a dominates b and c; b dominates c; d is incomparable with all
    f = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [-1.0, 5.0]])
    # dom counts: a 2, b 1, c 0, d 0; fitness b = dom(a) = 2; c = dom(a) + dom(b) = 3
    assert spea2_fitness(f).tolist() == [0, 2, 3, 0]


# ---------------------------------------------------------------- exact front
@pytest.mark.parametrize("seed", range(5))
def test_exact_front_is_the_brute_force_front(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ds = _dataset(100 + seed, n_rows=int(rng.integers(40, 120)), n_quasi=int(rng.integers(2, 4)))
    objectives = list(rng.choice(ALL, size=int(rng.integers(2, 4)), replace=False))
    eta = float(rng.choice([0.0, 0.05, 0.2]))
    result = pareto_exhaustive(ds, None, objectives, eta=eta)
    assert result.nodes_evaluated == result.lattice_size == len(result.evaluated_levels)
    maximize = np.array([OBJECTIVES[o].maximize for o in objectives])
    expected = {tuple(result.evaluated_levels[i]) for i in _brute_nondominated(result.evaluated_values, maximize)}
    assert {m.levels for m in result.front} == expected
    for member in result.front:
        _check_member(ds, member.levels, member.objectives, member.suppressed_rows, eta)
    frame = result.to_frame()
    assert list(frame.columns) == [*ds.quasi, *objectives, "suppressed_rows"]
    assert frame[objectives[0]].is_monotonic_increasing


@pytest.mark.parametrize("seed", range(4))
def test_exact_front_with_epsilon_keeps_one_member_per_nondominated_box(seed: int) -> None:
    ds = _dataset(200 + seed, n_rows=100)
    objectives = ["k", "s_l", "glm"]
    eps = [2.0, 15.0, 20.0]
    full = pareto_exhaustive(ds, None, objectives, eta=0.05)
    reduced = pareto_exhaustive(ds, None, objectives, eta=0.05, epsilon=eps)
    maximize = full.maximize
    full_boxes = boxes(full.values, maximize, np.array(eps))
    keys = {tuple(b) for b in full_boxes}
    marked = {b for b in keys if not any(dominates(np.array(o), np.array(b)) for o in keys)}
    got = [tuple(b) for b in boxes(reduced.values, maximize, np.array(eps))]
    assert len(got) == len(set(got)) and set(got) == marked
    assert {m.levels for m in reduced.front} <= {m.levels for m in full.front}
    assert representation_ratio(reduced, full, eps) == 1.0
    assert convergence_error(reduced, full) == 0.0


# ---------------------------------------------------------------- PBG-EA
@pytest.mark.parametrize("seed", range(12))
def test_archive_members_are_minimal_pbgs_of_everything_evaluated(seed: int) -> None:
    """Theorem 1: the archive holds only minimal PBGs of the nodes the generator produced."""
    rng = np.random.default_rng(seed)
    ds = _dataset(300 + seed, n_rows=int(rng.integers(40, 150)), n_quasi=int(rng.integers(2, 5)))
    objectives = list(rng.choice(ALL, size=int(rng.integers(2, 4)), replace=False))
    maximize = np.array([OBJECTIVES[o].maximize for o in objectives])
    eps = None if seed % 3 == 0 else [float(rng.choice([0.5, 1, 3])) if o != "cm" else 0.05 for o in objectives]
    result = pareto_ea(ds, None, objectives, eta=float(rng.choice([0.0, 0.05])), epsilon=eps,
                       population=int(rng.integers(4, 12)), iterations=int(rng.integers(3, 15)), seed=seed)
    minimal = {tuple(result.evaluated_levels[i])
               for i in _brute_nondominated(result.evaluated_values, maximize)}
    assert result.front and {m.levels for m in result.front} <= minimal
    # one member per box, and no member box-dominates another
    held = boxes(result.values, maximize, None if eps is None else np.array(eps))
    assert len({tuple(b) for b in held}) == len(held)
    f = orient(result.values, maximize)
    assert not box_dominates(f[:, None, :], held[:, None, :], f[None, :, :], held[None, :, :]).any()
    assert result.nodes_evaluated == len(result.evaluated_levels) <= result.lattice_size
    for member in result.front:
        _check_member(ds, member.levels, member.objectives, member.suppressed_rows, result.eta)


def test_ea_finds_the_exact_front_on_a_small_lattice() -> None:
    ds = _dataset(7, n_rows=100, n_quasi=2)
    exact = pareto_exhaustive(ds, None, ["k", "glm"], eta=0.05)
    found = pareto_ea(ds, None, ["k", "glm"], eta=0.05, population=10, iterations=30, seed=1)
    # the archive keeps one node per distinct vector; the exact front has every node (equal vectors too)
    assert {m.levels for m in found.front} <= {m.levels for m in exact.front}
    assert {tuple(v) for v in found.values} == {tuple(v) for v in exact.values}
    assert len(found.front) == len({tuple(v) for v in exact.values}) < len(exact.front)
    quality = assess(found, exact)
    assert quality.convergence_error == 0.0
    assert quality.representation_ratio == 1.0
    assert quality.nodes_evaluated == found.nodes_evaluated <= exact.lattice_size


def test_ce_and_rr_by_hand() -> None:
    def result(values: list[list[float]]) -> ParetoResult:
        from anonset.methods.pareto.objectives import FrontMember

        front = [FrontMember((i,), {"k": v[0], "glm": v[1]}, 0) for i, v in enumerate(values)]
        return ParetoResult(("k", "glm"), ("q",), front, len(front), 10, 0.0, 0.0, None,
                            np.zeros((0, 1)), np.zeros((0, 2)), np.zeros(0))

    exact = result([[2, 10], [4, 20], [8, 40]])
    # normalized by the maxima (8, 40): (4, 22) is 2/40 = 0.05 from (4, 20); (8, 40) is exact
    found = result([[4, 22], [8, 40]])
    assert convergence_error(found, exact) == pytest.approx(0.05)
    assert representation_ratio(found, exact) == pytest.approx(1 / 3)
    # boxes of ε = (4, 20): exact (0, 0), (1, 1), (2, 2) all non-dominated; found (1, 1), (2, 2)
    assert representation_ratio(found, exact, [4, 20]) == pytest.approx(2 / 3)
    assert convergence_error(exact, exact) == 0.0 and representation_ratio(exact, exact) == 1.0


def test_seed_reproducibility() -> None:
    ds = _dataset(11, n_rows=150, n_quasi=4)
    runs = [pareto_ea(ds, None, ["k", "l", "glm"], eta=0.02, population=8, iterations=10, seed=s)
            for s in (3, 3, 4, 5)]
    assert runs[0].front == runs[1].front
    assert runs[0].evaluated_levels.tolist() == runs[1].evaluated_levels.tolist()
    assert len({tuple(map(tuple, r.evaluated_levels.tolist())) for r in runs}) > 1


def test_given_engine_and_released_members_verify() -> None:
    ds = _dataset(12, n_rows=150)
    engine = NumpyEngine(ds, StatsRequest(histograms=frozenset({"s"})))
    result = pareto_ea(ds, engine, ["k", "l"], eta=0.05, population=8, iterations=8, seed=2)
    ev = NodeEvaluator(ds, ["k", "l"], eta=0.05, engine=engine)
    for member in result.front:
        mask = ev.suppressed_mask(member.levels)
        assert int(mask.sum()) == member.suppressed_rows
        released = render_full_domain(ds, member.levels, mask, drop_suppressed=True)
        reqs = Requirements([KAnonymity(int(member.objectives["k"])),
                             DistinctLDiversity("s", int(member.objectives["l"]))], 0.05)
        report = verify_release(released, ds, reqs)
        assert report.ok, report.problems
        assert report.min_class_size == member.objectives["k"]
        assert report.suppressed_rows == member.suppressed_rows


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(("kwargs", "message"), [
    ({"objectives": ["k"]}, "use the optimal search instead"),
    ({"objectives": ["k", "glm"], "epsilon": [1.0]}, "epsilon has 1 entries but there are 2 objectives"),
    ({"objectives": ["k", "glm"], "epsilon": [1.0, 0.0]}, "positive"),
    ({"objectives": ["k", "glm"], "epsilon": [1.0, -2.0]}, "positive"),
    ({"objectives": ["k", "glm"], "eta": 1.5}, "eta must be a fraction in [0, 1]"),
    ({"objectives": ["k", "glm"], "eta": -0.1}, "eta must be a fraction in [0, 1]"),
    ({"objectives": ["k", "speed"]}, "unknown objective 'speed'; use one of k | l | s_k | s_l | glm | cm"),
    ({"objectives": ["k", "k"]}, "listed twice"),
    ({"objectives": ["s_k", "glm"], "population": 1}, "'population' parameter"),
    ({"objectives": ["s_k", "glm"], "p_mut": 2.0}, "'p_mut' parameter"),
])
def test_bad_input(kwargs: dict, message: str) -> None:
    ds = _dataset(0, n_rows=30, n_quasi=2)
    args = {"eta": 0.01, **kwargs}
    objectives = args.pop("objectives")
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]").replace("|", r"\|")):
        pareto_ea(ds, None, objectives, **args)
    if not {"population", "p_mut"} & set(args):
        with pytest.raises(ConfigError):
            pareto_exhaustive(ds, None, objectives, **args)


def test_missing_sensitive_and_target() -> None:
    rng = np.random.default_rng(0)
    table, hierarchies = random_table(rng, 30, 2)
    plain = Dataset(table, {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()})
    for objectives in (["k", "l"], ["s_l", "glm"]):
        with pytest.raises(ConfigError, match="needs a sensitive attribute"):
            pareto_exhaustive(plain, None, objectives, eta=0.0)
    with pytest.raises(ConfigError, match="role target"):
        pareto_exhaustive(plain, None, ["k", "cm"], eta=0.0)
    two = Dataset(table, {**{q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()},
                          "s": {"role": "sensitive"}, "x": {"role": "sensitive"}})
    with pytest.raises(ConfigError, match="needs one sensitive attribute"):
        pareto_exhaustive(two, None, ["k", "l"], eta=0.0)
    assert pareto_exhaustive(two, None, ["k", "l"], eta=0.0, sensitive="x").front
    with pytest.raises(ConfigError, match="'q0' is quasi"):
        pareto_exhaustive(two, None, ["k", "l"], eta=0.0, sensitive="q0")
    with pytest.raises(ConfigError, match="engine was built without the value counts of 's'"):
        pareto_exhaustive(two, NumpyEngine(two), ["k", "l"], eta=0.0, sensitive="s")


# ---------------------------------------------------------------- Adult
def test_adult_front_k_glm() -> None:
    """On Adult (occupation sensitive, η = 1%) PBG-EA converges to the exact {k, GLM} front; members verify."""
    adult = require_adult()
    from anonset.hierarchy import read_hierarchy
    from anonset.io.tables import read_table

    table = read_table(adult / "adult.csv", ";")
    attrs: dict = {c: {"role": "quasi", "hierarchy": read_hierarchy(adult / "hierarchies" / f"{c}.csv", name=c)}
                   for c in table.columns if c != "occupation"}
    attrs["occupation"] = {"role": "sensitive"}
    ds = Dataset(table, attrs)
    engine = NumpyEngine(ds)
    exact = pareto_exhaustive(ds, engine, ["k", "glm"], eta=0.01)
    found = pareto_ea(ds, engine, ["k", "glm"], eta=0.01, epsilon=[1, 1], seed=0)
    assert exact.lattice_size == 4320
    quality = assess(found, exact)
    assert quality.convergence_error <= 1e-3
    assert quality.representation_ratio >= 0.94
    ev = NodeEvaluator(ds, ["k", "glm"], eta=0.01, engine=engine)
    for member in found.front:
        mask = ev.suppressed_mask(member.levels)
        report = verify_release(render_full_domain(ds, member.levels, mask, drop_suppressed=True), ds,
                                Requirements([KAnonymity(int(member.objectives["k"]))], 0.01))
        assert report.ok and report.min_class_size == member.objectives["k"]
        assert report.suppressed_rows == member.suppressed_rows


# ---------------------------------------------------------------- a minimum generalization
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_floor_gives_the_front_of_the_nodes_above_it(seed: int) -> None:
    """The exact front with min_level: the non-dominated nodes among those at or above the floor, found by a double
    loop over every node of the unfloored lattice at or above it; every member of PBG-EA lies at or above it too."""
    plain = _dataset(seed)
    rng = np.random.default_rng(seed)
    floors = [int(rng.integers(0, h.max_level + 1)) for h in plain.hierarchies]
    attrs: dict = {q: {"role": "quasi", "hierarchy": h, "min_level": f}
                   for q, h, f in zip(plain.quasi, plain.hierarchies, floors, strict=True)}
    floored = Dataset(plain.table, {**attrs, "s": {"role": "sensitive"}, "y": {"role": "target"}})
    objectives = ["k", "l", "glm"]
    everything = NodeEvaluator(plain, objectives, eta=0.05)
    above = [tuple(int(v) for v in node) for node in everything.lattice.nodes if (node >= floors).all()]
    rows = [everything.evaluate(node) for node in above]
    expected = {above[i] for i in _brute_nondominated(everything.values[rows], everything.maximize)}
    found = pareto_exhaustive(floored, None, objectives, eta=0.05)
    assert {m.levels for m in found.front} == expected
    evolved = pareto_ea(floored, None, objectives, eta=0.05, population=8, iterations=10, seed=seed)
    assert all(all(v >= f for v, f in zip(m.levels, floors, strict=True)) for m in evolved.front)
