"""A minimum generalization (``min_level``): the searches start from a floor per quasi-identifier.

The optimum above a floor is checked against every node of the whole lattice at or above the floor, judged
and scored one by one (no floored lattice involved); a floor below the unfloored optimum leaves it as it is;
DuckDB releases what numpy releases with a floor; the methods that cannot honour one refuse it by name.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonset import Anonymizer, DistinctLDiversity, KAnonymity, Requirements
from anonset.cli import main
from anonset.core.dataset import Dataset
from anonset.core.lattice import Lattice
from anonset.core.partition import Partition
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import ConfigError, InfeasibleError
from anonset.methods.full_domain.search import exhaustive_search, optimal_search
from anonset.metrics import make_metric
from support import random_table


def _dataset(seed: int, floors: list[int] | None = None) -> tuple[Dataset, list[int]]:
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, int(rng.integers(40, 200)), int(rng.integers(2, 5)))
    tops = [h.max_level for h in hierarchies.values()]
    if floors is None:
        floors = [int(rng.integers(0, top + 1)) for top in tops]
    attrs: dict = {q: {"role": "quasi", "hierarchy": h, "min_level": f}
                   for (q, h), f in zip(hierarchies.items(), floors, strict=True)}
    attrs["s"] = {"role": "sensitive"}
    return Dataset(table, attrs), floors


def _best_above(ds: Dataset, req: Requirements, metric_name: str, floors: list[int]) -> float | None:
    """The least score of a feasible node at or above ``floors``, judging every node of the whole lattice."""
    metric = make_metric(metric_name, k=req.k)
    engine = NumpyEngine(ds, req.request)
    metric.prepare(ds, engine)
    best = None
    for node in Lattice([h.max_level for h in ds.hierarchies]).nodes:
        if (node < floors).any():
            continue
        stats = engine.class_stats(tuple(int(v) for v in node))
        verdict = req.judge(stats, ds.n_rows)
        if verdict.feasible:
            score = float(metric.score(Partition.from_node(ds.quasi, stats, verdict.kept), ds))
            best = score if best is None else min(best, score)
    return best


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.integers(2, 6), budget=st.sampled_from([0.0, 0.05, 0.2]),
       diverse=st.booleans(), metric_name=st.sampled_from(["loss", "discernibility"]))
def test_the_optimum_above_a_floor_is_the_best_node_above_it(seed: int, k: int, budget: float, diverse: bool,
                                                               metric_name: str) -> None:
    ds, floors = _dataset(seed)
    models = [KAnonymity(k)] + ([DistinctLDiversity("s", 2)] if diverse else [])
    req = Requirements(models, budget)
    metric = make_metric(metric_name, k=k)
    best = _best_above(ds, req, metric_name, floors)
    if best is None:
        with pytest.raises(InfeasibleError):
            optimal_search(ds, NumpyEngine(ds, req.request), req, metric)
        return
    found = optimal_search(ds, NumpyEngine(ds, req.request), req, metric)
    assert all(level >= floor for level, floor in zip(found.levels, floors, strict=True))
    assert found.score == pytest.approx(best, rel=1e-12, abs=1e-12)
    reference = exhaustive_search(ds, NumpyEngine(ds, req.request), req, metric)
    assert found.levels == reference.levels


@pytest.mark.parametrize("seed", range(6))
def test_a_floor_at_or_below_the_optimum_changes_nothing(seed: int) -> None:
    plain, floors = _dataset(seed, floors=None)
    req = Requirements([KAnonymity(3)], 0.05)
    unfloored, _ = _dataset(seed, floors=[0] * len(floors))
    metric = make_metric("loss", k=3)
    optimum = optimal_search(unfloored, NumpyEngine(unfloored, req.request), req, metric)
    below = [min(a, b) for a, b in zip(optimum.levels, floors, strict=True)]
    floored, _ = _dataset(seed, floors=below)
    found = optimal_search(floored, NumpyEngine(floored, req.request), req, metric)
    assert found.levels == optimum.levels and found.score == optimum.score


def _survey(n: int = 600) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame({"zip": [f"{v:05d}" for v in rng.integers(10000, 10400, n)],
                         "age": rng.integers(18, 90, n), "sex": rng.choice(["f", "m"], n),
                         "diagnosis": rng.choice(list("xyz"), n)})


ATTRS = {"zip": {"role": "quasi", "hierarchy": {"builder": "masking", "levels": 5}},
         "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]}},
         "sex": {"role": "quasi"}, "diagnosis": {"role": "sensitive"}}


def test_duckdb_releases_what_numpy_releases_with_a_floor(tmp_path: Path) -> None:
    _survey().to_csv(tmp_path / "t.csv", index=False)
    body = ("input: {path: t.csv}\nattributes:\n"
            "  zip: {role: quasi, hierarchy: {builder: masking, levels: 5}, min_level: 3}\n"
            "  age: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [5, 10, 20]}}\n"
            "  sex: {role: quasi}\n  diagnosis: {role: sensitive}\nprivacy: {k: 5, max_suppression: 0.02}\n")
    outputs, inputs = [], []
    for engine in ("numpy", "duckdb"):
        (tmp_path / f"{engine}.yaml").write_text(body + f"engine: {engine}\noutput: {{path: {engine}.csv}}\n",
                                                 encoding="utf-8")
        done = CliRunner().invoke(main, ["anonymize", str(tmp_path / f"{engine}.yaml"), "-q", "--summary",
                                         str(tmp_path / f"{engine}.json")])
        assert done.exit_code == 0, done.output
        released = pd.read_csv(tmp_path / f"{engine}.csv", dtype=str, keep_default_na=False)
        outputs.append(released.sort_values(list(released.columns)).reset_index(drop=True))
        inputs.append(json.loads((tmp_path / f"{engine}.json").read_text())["risk"]["input"])
    assert outputs[0].equals(outputs[1])  # the same records (DuckDB writes them in its own order)
    # both engines counted the input at the floor (zip's last three digits masked) and say so; by hand:
    table = _survey()
    sizes = table.assign(zip=table["zip"].str[:2]).groupby(["zip", "age", "sex"]).size().to_numpy()
    for said in inputs:
        assert said["counted_at"] == {"zip": 3}
        assert said["classes"] == len(sizes) and said["highest_risk"] == 1 / sizes.min()
        assert said["sample_uniques"] == pytest.approx((sizes == 1).sum() / sizes.sum())
    # the run's report says what the original's figures count; a report of the written file counts the records
    # it reads, at their original values, and says nothing of a floor
    done = CliRunner().invoke(main, ["anonymize", str(tmp_path / "numpy.yaml"), "-q", "--report",
                                     str(tmp_path / "run.html"), "--output", str(tmp_path / "again.csv")])
    assert done.exit_code == 0, done.output
    assert "at their minimum generalization (zip at level 3)" in (tmp_path / "run.html").read_text()
    done = CliRunner().invoke(main, ["report", str(tmp_path / "duckdb.yaml"), str(tmp_path / "duckdb.csv"),
                                     "-o", str(tmp_path / "file.html")])
    assert done.exit_code == 0, done.output
    assert "minimum generalization" not in (tmp_path / "file.html").read_text()
    # unfloored, the optimum keeps zip at 100** and age in 20-year bands; with zip held at its top, age is
    # released in 5-year bands (ARX's minimum generalization moves the loss to the other attributes)
    assert (outputs[0]["zip"] == "*").all()
    bands = outputs[0]["age"][outputs[0]["age"] != "*"].str.split("-", expand=True).astype(int)
    assert ((bands[1] - bands[0]) == 4).all()


def test_what_a_floor_cannot_be_is_refused_by_name() -> None:
    table = _survey(200)
    with pytest.raises(ConfigError, match="zip: min_level 9 is not a level of its hierarchy"):
        Anonymizer({**ATTRS, "zip": {**ATTRS["zip"], "min_level": 9}}, Requirements([KAnonymity(3)])).fit(table)
    with pytest.raises(ConfigError, match="min_level` is a quasi-identifier's lowest released level"):
        Anonymizer({**ATTRS, "diagnosis": {"role": "sensitive", "min_level": 1}},
                   Requirements([KAnonymity(3)])).fit(table)
    floored = {**ATTRS, "zip": {**ATTRS["zip"], "min_level": 2}}
    with pytest.raises(ConfigError, match="method .mondrian. does not search .* use optimal, exhaustive, rv-global"):
        Anonymizer(floored, Requirements([KAnonymity(3)]), method="mondrian").fit(table)
    with pytest.raises(ConfigError, match="zip has level 1, below its min_level 2"):
        Anonymizer(floored, Requirements([KAnonymity(3)]), method="optimal",
                   method_options={"levels": {"zip": 1, "age": 3, "sex": 1}}).fit(table)


@pytest.mark.parametrize("seed", range(5))
def test_the_research_value_searches_start_from_the_floor(seed: int) -> None:
    """rv-global, rv-hybrid and rv-partitioned find the exhaustive sweep's research value above the floor (the
    sweep itself is checked against every node above); rv-local's successes lie above it too."""
    from anonset.methods.full_domain.research_value import rv_global, rv_hybrid, rv_local, rv_partitioned
    from anonset.metrics.research_value import ResearchValue

    ds, floors = _dataset(seed)
    req = Requirements([KAnonymity(3)], 0.05)
    metric = ResearchValue(weights={q: 1.0 + j for j, q in enumerate(ds.quasi)})
    try:
        reference = exhaustive_search(ds, NumpyEngine(ds, req.request), req, metric)
    except InfeasibleError:
        return
    for search in (rv_global, rv_hybrid, rv_partitioned):
        found = search(ds, NumpyEngine(ds, req.request), req, metric)
        assert found.score == pytest.approx(reference.score, abs=1e-12), search.__name__
        assert all(v >= f for v, f in zip(found.levels, floors, strict=True)), search.__name__
    try:
        local = rv_local(ds, NumpyEngine(ds, req.request), req, metric)
    except InfeasibleError:
        return
    for entry in local.details["success_list"]:
        assert all(entry["levels"][q] >= f for q, f in zip(ds.quasi, floors, strict=True))


def test_concentrated_suppression_is_said_of_the_floor_values() -> None:
    """Twelve suppressed records with twelve different ZIP codes, all 10***: with zip's floor at level 3 the
    warning names 10***, the most specific value a release may show (without the floor, no ZIP code is shared)."""
    from anonset.release.caveats import concentrated_suppression, suppressed_counts_of_rows

    zips = [f"100{i:02d}" for i in range(20)] + [f"{20000 + 37 * i}" for i in range(80)]
    table = pd.DataFrame({"zip": zips, "sex": ["f", "m"] * 50})
    suppressed = np.zeros(100, dtype=bool)
    suppressed[:12] = True
    for floor, expected in ((3, ["all 12 have zip = '10***' (12 of the 20 records with it)"]), (0, [])):
        attrs = {"zip": {"role": "quasi", "hierarchy": {"builder": "masking", "levels": 5}, "min_level": floor},
                 "sex": {"role": "quasi"}}
        ds = Dataset(table, attrs)
        warnings = concentrated_suppression(ds, suppressed_counts_of_rows(ds, suppressed), 5)
        assert [w for w in expected if not any(w in said for said in warnings)] == []
        assert bool(warnings) == bool(expected)


@pytest.mark.parametrize("levels", [(2, 0), (3, 1), (4, 0)])
def test_suppressed_values_counted_from_the_classes_equal_those_counted_from_the_records(
        levels: tuple[int, int]) -> None:
    """What an engine whose records stay where they are counts (its bottom classes, at the floor or at the
    leaves) equals what the records in memory give, per value at the floor."""
    from anonset.release.caveats import suppressed_counts_of_node, suppressed_counts_of_rows

    rng = np.random.default_rng(7)
    table = pd.DataFrame({"zip": [f"{v:05d}" for v in rng.integers(10000, 99999, 300)],
                          "sex": rng.choice(["f", "m"], 300)})
    attrs = {"zip": {"role": "quasi", "hierarchy": {"builder": "masking", "levels": 5}, "min_level": 2},
             "sex": {"role": "quasi"}}
    ds = Dataset(table, attrs)
    for engine in (NumpyEngine(ds, floor=ds.min_levels), NumpyEngine(ds)):
        row_class, stats = engine.row_classes(levels)
        small = stats.sizes < 20
        by_rows = suppressed_counts_of_rows(ds, small[row_class])
        by_classes = suppressed_counts_of_node(engine, levels, stats.keys[small])
        assert small.any() and by_rows["zip"].sum() == stats.sizes[small].sum()
        for q in ds.quasi:
            np.testing.assert_array_equal(by_classes[q], by_rows[q])


def test_an_engine_counted_above_the_floor_is_refused() -> None:
    """An engine built to count at levels above the attributes' min_level could not start a search at the
    floor: fit() says so before any search."""
    ds = Dataset(_survey(200), ATTRS)
    engine = NumpyEngine(ds, floor=tuple(2 if q == "zip" else 0 for q in ds.quasi))
    with pytest.raises(ConfigError, match=r"counted its classes at levels .* above the quasi-identifiers' min_level"):
        Anonymizer(ATTRS, Requirements([KAnonymity(3)])).fit(ds, engine=engine)
