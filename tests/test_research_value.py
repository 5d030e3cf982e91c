"""Research value (Morton et al.): the metric's golden figures and the four searches."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonset import Anonymizer, ConfigError, InfeasibleError
from anonset.dataset import Dataset
from anonset.datasets import adult_morton, patient_register_dataset
from anonset.engine import NumpyEngine
from anonset.hierarchy import Hierarchy
from anonset.metrics.research_value import DoNotMix, KeepBoundary, ResearchValue, cramers_v_weights
from anonset.privacy import EntropyLDiversity, KAnonymity, Requirements
from anonset.search import exhaustive_search
from anonset.search.full_domain import lattice_of
from anonset.search.research_value import rv_global, rv_hybrid, rv_local, rv_partitioned
from support import random_table, require_adult


def _worked_example() -> Dataset:
    """The paper's example: level 1 has groups of 25, 45, 55 records spanning 10, 15, 25 values."""
    leaves = [str(v) for v in range(1, 51)]
    group = ["1-10"] * 10 + ["11-25"] * 15 + ["26-50"] * 25
    h = Hierarchy.from_rows("x", [[v, g, "*"] for v, g in zip(leaves, group)])
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.integers(1, 11, 25), rng.integers(11, 26, 45), rng.integers(26, 51, 55)])
    return Dataset(pd.DataFrame({"x": values.astype(str)}), {"x": {"role": "quasi", "type": "numeric", "hierarchy": h}})


def test_worked_example_research_value_is_0_0054() -> None:
    ds = _worked_example()
    # two boundary rules of importance 50: 11 is a group edge at level 1 (kept), 5 is not (lost) -> 50/100
    metric = ResearchValue(weights={"x": 0.2}, rules={"x": [KeepBoundary(11, 50), KeepBoundary(5, 50)]})
    rv = metric.tables(ds)[0]
    # 0.2 * (125 * 1) / (25*10 + 45*15 + 55*25) * 50/100 = 0.0054
    assert rv[1] == pytest.approx(0.2 * 125 / 2300 * 0.5)
    assert round(rv[1], 4) == 0.0054
    assert rv[0] == pytest.approx(0.2)  # at the most specific level the RV equals the weight


def test_race_rules_of_table_1() -> None:
    """Mixing Hispanic and Black violates the rule of importance 10: 30 / 40 = 0.75 remains."""
    rows = [["White", "White", "*"], ["Hispanic", "Hispanic-Black", "*"], ["Black", "Hispanic-Black", "*"],
            ["Asian", "Asian", "*"]]
    h = Hierarchy.from_rows("race", rows)
    table = pd.DataFrame({"race": ["White", "Hispanic", "Black", "Asian"] * 5})
    ds = Dataset(table, {"race": {"role": "quasi", "hierarchy": h}})
    rules = {"race": [DoNotMix(("White", "Hispanic"), 5), DoNotMix(("White", "Black"), 20),
                      DoNotMix(("Hispanic", "Black"), 10), DoNotMix(("Hispanic", "Asian"), 5)]}
    rv = ResearchValue(weights={"race": 1.0}, rules=rules).tables(ds)[0]
    # level 1 keeps 3 of 4 values (|A_1|/|A_0| = 3/4) and 30/40 of the rule importance
    assert rv[1] == pytest.approx(0.75 * 0.75)
    assert rv[2] == pytest.approx(0.25 * 0.0)  # the root mixes everything: no rule holds


def test_auto_weights_favour_independent_attributes() -> None:
    rng = np.random.default_rng(4)
    a = rng.integers(0, 4, 2000)
    table = pd.DataFrame({"a": a.astype(str), "copy": a.astype(str), "free": rng.integers(0, 4, 2000).astype(str)})
    ds = Dataset(table, {c: {"role": "quasi"} for c in table.columns})
    w = cramers_v_weights(ds)
    assert w.sum() == pytest.approx(1.0)
    assert w[2] > w[0] and w[2] > w[1]  # the independent attribute weighs most
    assert w[0] == pytest.approx(w[1])


@pytest.mark.parametrize("k", [3, 5, 10])
def test_adult_as_morton_configured_it(k: int) -> None:
    ds = adult_morton(require_adult())
    assert ds.n_rows == 30162 and lattice_of(ds).size == 4320
    req = Requirements([KAnonymity(k)])
    metric = ResearchValue()
    reference = exhaustive_search(ds, NumpyEngine(ds), req, metric)
    for search in (rv_global, rv_hybrid, rv_partitioned):
        found = search(ds, NumpyEngine(ds), req, metric)
        assert found.levels == reference.levels, search.__name__
        assert found.score == pytest.approx(reference.score)
    global_run = rv_global(ds, NumpyEngine(ds), req, metric)
    assert global_run.details["frequency_sets"] <= 0.05 * 4320  # the target: at most 5% of the lattice
    assert global_run.details["complete"] is True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), diverse=st.booleans(), budget=st.sampled_from([0.0, 0.05]))
def test_exact_searches_equal_the_exhaustive_sweep(seed: int, diverse: bool, budget: float) -> None:
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, int(rng.integers(30, 160)), int(rng.integers(2, 5)))
    attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    ds = Dataset(table, attrs)
    models: list = [KAnonymity(int(rng.integers(2, 5)))]
    if diverse:
        models.append(EntropyLDiversity("s", float(rng.uniform(1.2, 2.5))))
    req = Requirements(models, budget)
    req.validate(ds)
    q0 = ds.quasi[0]
    leaves = ds.hierarchy(q0).leaves
    rules = {q0: [DoNotMix((leaves[0], leaves[-1]), 3.0)]} if len(leaves) > 1 else {}
    weights = {q: float(rng.uniform(0.1, 1.0)) for q in ds.quasi}
    metric = ResearchValue(weights=weights, rules=rules)
    try:
        reference = exhaustive_search(ds, NumpyEngine(ds, req.request), req, metric)
    except InfeasibleError:
        return
    for search in (rv_global, rv_hybrid, rv_partitioned):
        kwargs = {"subset_size": 2} if search is rv_partitioned else {}
        found = search(ds, NumpyEngine(ds, req.request), req, metric, **kwargs)
        assert found.score == pytest.approx(reference.score, abs=1e-12), search.__name__
    try:
        local = rv_local(ds, NumpyEngine(ds, req.request), req, metric)
    except InfeasibleError:
        return
    for entry in local.details["success_list"]:  # everything the local search calls a success is feasible
        levels = tuple(entry["levels"][q] for q in ds.quasi)
        assert req.judge(NumpyEngine(ds, req.request).row_classes(levels)[1], ds.n_rows).feasible


def test_success_list_is_ranked_and_pick_releases_another_entry() -> None:
    ds = patient_register_dataset(4000, seed=2)
    req = Requirements([KAnonymity(5)], 0.01)
    metric = ResearchValue(rules={"age": [KeepBoundary(65, 10)]})
    best = Anonymizer({}, req, method="rv-partitioned", metric=metric, method_options={"subset_size": 3}).fit(ds)
    entries = best.result_.details["success_list"]
    assert len(entries) >= 2
    values = [e["research_value"] for e in entries]
    assert values == sorted(values, reverse=True)
    second = Anonymizer({}, req, method="rv-partitioned", metric=metric, method_options={"subset_size": 3},
                        pick=1).fit(ds)
    assert second.levels_ == entries[1]["levels"]
    assert second.release_.verified
    assert second.release_.metrics["research_value"] == pytest.approx(entries[1]["research_value"])


@pytest.mark.parametrize("metric,match", [
    (ResearchValue(rules={"race": [DoNotMix(("White", "Martian"), 1)]}), "Martian"),
    (ResearchValue(rules={"age": [KeepBoundary(150, 1)]}), "outside the attribute's range"),
    (ResearchValue(weights={"age": -1.0, "sex": 1, "zip": 1, "race": 1, "marital_status": 1, "education": 1}),
     "non-negative"),
    (ResearchValue(weights={"age": 1.0}), "do not cover"),
    (ResearchValue(levels={"sex": [0.5, 0.9]}), "increase"),
    (ResearchValue(levels={"sex": [0.5]}), "one RV per level"),
])
def test_bad_research_value_configuration(metric: ResearchValue, match: str) -> None:
    ds = patient_register_dataset(500, seed=1)
    with pytest.raises(ConfigError, match=match):
        rv_global(ds, NumpyEngine(ds), Requirements([KAnonymity(2)]), metric)


def _config(tmp_path, body: str):
    from anonset.datasets import patient_register
    from anonset.io.tables import write_table

    write_table(patient_register(1500, seed=3), tmp_path / "register.csv")
    path = tmp_path / "rv.yaml"
    path.write_text("input: register.csv\n"
                    "attributes:\n"
                    "  age: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [5, 10, 20, 40]}}\n"
                    "  sex: {role: quasi}\n"
                    "  race: {role: quasi}\n"
                    "privacy: {k: 5}\n" + body)
    return path


def test_cli_prints_and_writes_the_success_list(tmp_path) -> None:
    import json

    from click.testing import CliRunner

    from anonset.cli import main

    config = _config(tmp_path, "method: {name: rv-global}\n"
                               "research_value:\n"
                               "  rules: {age: [{keep_boundary: 65, importance: 10}]}\n"
                               "output: {path: out.csv}\n")
    result = CliRunner().invoke(main, ["anonymize", str(config), "--summary", str(tmp_path / "s.json")])
    assert result.exit_code == 0, result.output
    assert "success list" in result.output
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["frequency_sets"] >= 1
    assert {"levels", "research_value", "roots"} <= set(summary["success_list"][0])
    assert summary["metrics"]["research_value"] == pytest.approx(summary["success_list"][0]["research_value"])
    n = len(summary["success_list"])
    too_far = CliRunner().invoke(main, ["anonymize", str(config), "--pick", str(n)])
    assert too_far.exit_code == 2 and "success list has" in too_far.stderr


@pytest.mark.parametrize("body,match", [
    ("method: {name: rv-global, metric: loss}\n", "optimizes research value"),
    ("method: {name: optimal}\nresearch_value: {weights: auto}\n", "used only by the rv-"),
    ("method: {name: rv-global}\nresearch_value: {rules: {age: [{keep_boundary: 65, do_not_mix: [a, b]}]}}\n",
     "exactly one of"),
    ("method: {name: rv-global}\nresearch_value: {weights: {age: -2}}\n", "must be a number >= 0"),
    ("method: {name: rv-partitioned, subset_size: 0}\n", "subset_size must be an integer"),
])
def test_bad_research_value_config(tmp_path, body: str, match: str) -> None:
    from anonset.io.config import load_config

    with pytest.raises(ConfigError, match=match):
        load_config(_config(tmp_path, body))


def test_frequency_set_budget_returns_the_best_found_and_says_so() -> None:
    from anonset.datasets import wide_survey_dataset

    ds = wide_survey_dataset(3000, 10, seed=1)
    req = Requirements([KAnonymity(5)], 0.02)
    metric = ResearchValue(weights={q: 1.0 for q in ds.quasi})
    capped = rv_partitioned(ds, NumpyEngine(ds), req, metric, subset_size=5, max_frequency_sets=300)
    assert capped.details["complete"] is False
    assert capped.details["frequency_sets"] <= 300
    assert capped.details["success_list"]  # the best strings found so far
    levels = capped.levels
    assert req.judge(NumpyEngine(ds).row_classes(levels)[1], ds.n_rows).feasible
