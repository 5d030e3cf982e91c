"""Research value (Morton et al.): the metric's golden figures and the four searches."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonset import Anonymizer, ConfigError, InfeasibleError
from anonset.core.dataset import Dataset
from anonset.datasets import adult_morton, patient_register_dataset
from anonset.engine.numpy.engine import NumpyEngine
from anonset.hierarchy import Hierarchy
from anonset.methods.full_domain.research_value import (
    rv_global,
    rv_hybrid,
    rv_local,
    rv_partitioned,
)
from anonset.methods.full_domain.search import exhaustive_search, lattice_of
from anonset.metrics.research_value import DoNotMix, KeepBoundary, ResearchValue, cramers_v_weights
from anonset.privacy import EntropyLDiversity, KAnonymity, Requirements
from anonset.recheck.verify import verify_release
from support import random_table, require_adult


def _worked_example() -> Dataset:
    """The paper's example: level 1 has groups of 25, 45, 55 records spanning 10, 15, 25 values."""
    leaves = [str(v) for v in range(1, 51)]
    group = ["1-10"] * 10 + ["11-25"] * 15 + ["26-50"] * 25
    h = Hierarchy.from_rows("x", [[v, g, "*"] for v, g in zip(leaves, group, strict=True)])
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


#: The do-not-mix rules of Morton et al.'s Table 1 on race (importances 5, 20, 10, 5: 40 in all).
RACE_RULES = {"race": [DoNotMix(("White", "Hispanic"), 5), DoNotMix(("White", "Black"), 20),
                       DoNotMix(("Hispanic", "Black"), 10), DoNotMix(("Hispanic", "Asian"), 5)]}


def _race_dataset(rows: list[list[str]]) -> Dataset:
    """Twenty records, five of each race, over a two-level race hierarchy given by its rows."""
    table = pd.DataFrame({"race": ["White", "Hispanic", "Black", "Asian"] * 5})
    return Dataset(table, {"race": {"role": "quasi", "hierarchy": Hierarchy.from_rows("race", rows)}})


def test_race_rules_of_table_1() -> None:
    """Mixing Hispanic and Black violates the rule of importance 10: 30 / 40 = 0.75 remains."""
    ds = _race_dataset([["White", "White", "*"], ["Hispanic", "Hispanic-Black", "*"],
                        ["Black", "Hispanic-Black", "*"], ["Asian", "Asian", "*"]])
    rv = ResearchValue(weights={"race": 1.0}, rules=RACE_RULES).tables(ds)[0]
    # level 1 keeps 3 of 4 values (|A_1|/|A_0| = 3/4) and 30/40 of the rule importance
    assert rv[1] == pytest.approx(0.75 * 0.75)
    assert rv[2] == pytest.approx(0.25 * 0.0)  # the root mixes everything: no rule holds


def test_worked_example_weighs_rules_by_importance_not_by_count() -> None:
    """Importances 30 (boundary 11, kept at level 1) and 10 (boundary 5, lost): weighted 30/40, counted 1/2."""
    ds = _worked_example()
    metric = ResearchValue(weights={"x": 0.2}, rules={"x": [KeepBoundary(11, 30), KeepBoundary(5, 10)]})
    rv = metric.tables(ds)[0]
    # level 1: groups 1-10, 11-25, 26-50 hold 25, 45, 55 records and span 10, 15, 25 leaves;
    # level 0: 125 records, each group one value wide -> N·R sums 125 and 25·10 + 45·15 + 55·25 = 2300.
    # 11 is the edge between 1-10 and 11-25 (kept, 30); 5 lies inside 1-10 (lost, 10).
    # RV_1 = 0.2 · 125/2300 · 30/40 = 0.0081522 (counting rules would give 0.2 · 125/2300 · 1/2 = 0.0054348)
    assert rv[1] == pytest.approx(0.008152173913043478, rel=1e-12)
    assert rv[0] == pytest.approx(0.2)  # every rule holds at the leaves
    assert rv[2] == 0.0  # the root level (the paper: "the most general level with a zero research value")


def test_race_rule_of_importance_20_of_40_leaves_half() -> None:
    """Merging White and Black violates the rule of importance 20 only: 20/40 weighted, 3/4 counted."""
    ds = _race_dataset([["White", "White-Black", "*"], ["Black", "White-Black", "*"],
                        ["Hispanic", "Hispanic", "*"], ["Asian", "Asian", "*"]])
    rv = ResearchValue(weights={"race": 0.4}, rules=RACE_RULES).tables(ds)[0]
    # level 1 has 3 of 4 values (|A_1|/|A_0| = 3/4); White-Hispanic (5), Hispanic-Black (10) and
    # Hispanic-Asian (5) still hold: 20 of 40.  RV_1 = 0.4 · 3/4 · 20/40 = 0.15 (counted: 0.4 · 3/4 · 3/4 = 0.225)
    assert rv[1] == pytest.approx(0.15, rel=1e-12)
    assert rv[0] == pytest.approx(0.4)


def test_root_level_is_worth_zero() -> None:
    """Categorical root: |A_root| = 1, so the formula alone would give w · 1/|A_0| = 0.4 · 1/4 = 0.1; the paper: 0."""
    rows = [["White", "W", "*"], ["Black", "B", "*"], ["Hispanic", "H", "*"], ["Asian", "A", "*"]]
    ds = Dataset(pd.DataFrame({"race": ["White", "Hispanic", "Black", "Asian"] * 3}),
                 {"race": {"role": "quasi", "hierarchy": Hierarchy.from_rows("race", rows)}})
    assert list(ResearchValue(weights={"race": 0.4}).tables(ds)[0]) == pytest.approx([0.4, 0.4, 0.0])
    direct = ResearchValue(weights={"race": 0.4}, levels={"race": [0.9, 0.5, 0.2]})
    assert list(direct.tables(ds)[0]) == pytest.approx([0.9, 0.5, 0.2])  # given levels are taken as given


def test_tables_are_cached_by_content_not_by_object_identity() -> None:
    """A new metric that reuses a collected metric's id must not get the collected metric's tables."""
    ds = _worked_example()
    first = ResearchValue(weights={"x": 1.0}, levels={"x": [1.0, 0.5, 0.0]})
    assert list(first.tables(ds)[0]) == [1.0, 0.5, 0.0]
    old_id = id(first)
    weights, levels = {"x": 1.0}, {"x": [0.9, 0.2, 0.0]}
    del first  # freed at once (no reference cycle); CPython hands its memory to a later metric
    alive = []
    second = ResearchValue(weights=weights, levels=levels)
    while id(second) != old_id and len(alive) < 10_000:
        alive.append(second)
        second = ResearchValue(weights=weights, levels=levels)
    assert id(second) == old_id, "the reproduction needs the id to be reused"
    assert list(second.tables(ds)[0]) == [0.9, 0.2, 0.0]
    # equal content shares one entry; other content never does
    same = ResearchValue(weights={"x": 1.0}, levels={"x": [0.9, 0.2, 0.0]})
    assert same.tables(ds) is second.tables(ds)
    assert ResearchValue(weights={"x": 0.5}).tables(ds) is not ResearchValue(weights={"x": 1.0}).tables(ds)


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
    assert global_run.details["frequency_sets"] <= 0.05 * 4320  # at most 5% of the lattice
    assert global_run.details["complete"] is True


def _four_records() -> Dataset:
    """Four records, two quasi-identifiers; every class at the leaves is a single record."""
    table = pd.DataFrame({"a": ["1", "2", "3", "4"], "b": ["x", "y", "x", "y"]})
    ha = Hierarchy.from_rows("a", [["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3-4", "*"], ["4", "3-4", "*"]])
    hb = Hierarchy.from_rows("b", [["x", "*"], ["y", "*"]])
    return Dataset(table, {"a": {"role": "quasi", "hierarchy": ha}, "b": {"role": "quasi", "hierarchy": hb}})


@pytest.mark.parametrize("search", [rv_global, rv_hybrid, rv_partitioned, rv_local])
def test_a_string_that_suppresses_every_record_is_no_success(search: Any) -> None:
    """With max_suppression 1.0 every string is within the budget, the leaves only by suppressing all four.

    By hand (weights 0.5, 0.5): a has RV 0.5, 0.5·2/4 = 0.25, 0 (root) at levels 0..2; b has 0.5, 0.
    (0,0), (1,0), (0,1): every class has one record -> all suppressed.  (1,1): classes 1-2 and 3-4 of 2 -> RV
    0.25.  (2,0): classes x and y of 2 -> RV 0.5, the best release; (2,1): RV 0.
    """
    ds = _four_records()
    req = Requirements([KAnonymity(2)], 1.0)
    metric = ResearchValue(weights={"a": 0.5, "b": 0.5})
    reference = exhaustive_search(ds, NumpyEngine(ds), req, metric)
    assert reference.levels == (2, 0) and reference.score == pytest.approx(0.5)
    found = search(ds, NumpyEngine(ds), req, metric)
    assert found.verdict.suppressed_rows < ds.n_rows
    for entry in found.details["success_list"]:
        levels = tuple(entry["levels"][q] for q in ds.quasi)
        assert levels not in {(0, 0), (1, 0), (0, 1)}, entry
    if search is not rv_local:
        assert found.levels == (2, 0) and found.score == pytest.approx(0.5)
    release = Anonymizer({}, req, method=search.__name__.replace("_", "-"), metric=metric).fit(ds).release_
    assert release.suppressed_rows < ds.n_rows
    assert release.metrics["research_value"] == pytest.approx(found.score)
    assert verify_release(release.table, ds, req).ok


def test_no_string_keeps_a_record_is_infeasible_for_the_rv_searches() -> None:
    """k larger than the table: every string suppresses all four records; nothing is worth releasing."""
    ds = _four_records()
    req = Requirements([KAnonymity(5)], 1.0)
    metric = ResearchValue(weights={"a": 0.5, "b": 0.5})
    for search in (rv_global, rv_hybrid, rv_partitioned, rv_local):
        with pytest.raises(InfeasibleError, match="suppresses every record"):
            search(ds, NumpyEngine(ds), req, metric)


def _entropy(values: pd.Series) -> float:
    p = values.value_counts(normalize=True).to_numpy()
    return float(-(p * np.log(p)).sum())


def _feasible_by_pandas(table: pd.DataFrame, hierarchies: dict[str, Hierarchy], models: list, budget: float,
                        node: tuple[int, ...]) -> bool:
    """Do the violating classes of a generalization string fit the budget?  From the definitions, with pandas.

    ``models`` is k-anonymity, optionally followed by entropy l-diversity on ``s``.
    """
    keys = {}
    for (q, h), level in zip(hierarchies.items(), node, strict=True):
        keys[q] = table[q].map({leaf: h.labels[level][h.maps[level][i]] for i, leaf in enumerate(h.leaves)})
    classes = pd.DataFrame(keys).groupby(list(keys), sort=False).ngroup()
    sizes = classes.value_counts()
    ok = sizes >= models[0].k
    if len(models) > 1:
        ok &= table.groupby(classes)["s"].agg(_entropy).reindex(sizes.index) >= np.log(models[1].l) - 1e-9
    return int(sizes[~ok].sum()) <= math.floor(budget * len(table) + 1e-9)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), diverse=st.booleans(),
       budget=st.one_of(st.sampled_from([0.0, 0.05, 1.0]), st.floats(0.0, 1.0)))
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
    searches = (rv_global, rv_hybrid, rv_partitioned)
    try:
        reference = exhaustive_search(ds, NumpyEngine(ds, req.request), req, metric)
    except InfeasibleError:
        lattice = itertools.product(*(range(h.n_levels) for h in hierarchies.values()))
        assert not any(_feasible_by_pandas(table, hierarchies, models, budget, node) for node in lattice)
        for search in searches:  # nothing feasible for the reference: nothing for the searches either
            with pytest.raises(InfeasibleError):
                search(ds, NumpyEngine(ds, req.request), req, metric)
        return
    assert _feasible_by_pandas(table, hierarchies, models, budget, reference.levels)
    if reference.verdict.suppressed_rows == ds.n_rows:  # the reference releases no record: the searches refuse
        for search in searches:
            with pytest.raises(InfeasibleError, match="suppresses every record"):
                search(ds, NumpyEngine(ds, req.request), req, metric)
        return
    for search in searches:
        kwargs = {"subset_size": 2} if search is rv_partitioned else {}
        found = search(ds, NumpyEngine(ds, req.request), req, metric, **kwargs)
        assert found.score == pytest.approx(reference.score, abs=1e-12), search.__name__
        assert found.verdict.feasible and found.verdict.suppressed_rows < ds.n_rows
    try:
        local = rv_local(ds, NumpyEngine(ds, req.request), req, metric)
    except InfeasibleError:
        # every probe failed, so the lockstep search climbed to the all-root string: the whole table, one class,
        # must violate the models (k <= n was validated, so the entropy l-diversity)
        assert diverse and _entropy(table["s"]) < np.log(models[1].l) - 1e-9
        return
    for entry in local.details["success_list"]:  # everything the local search calls a success is feasible
        levels = tuple(entry["levels"][q] for q in ds.quasi)
        verdict = req.judge(NumpyEngine(ds, req.request).row_classes(levels)[1], ds.n_rows)
        assert verdict.feasible and verdict.suppressed_rows < ds.n_rows


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

    write_table(patient_register(1500, seed=3)[["age", "sex", "race"]], tmp_path / "register.csv")
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
    ("method: {name: rv-global, metric: loss}\n", "optimizes research_value"),
    ("method: {name: optimal}\nresearch_value: {weights: auto}\n", "used only by the rv-"),
    ("method: {name: rv-global}\nresearch_value: {rules: {age: [{keep_boundary: 65, do_not_mix: [a, b]}]}}\n",
     "exactly one of"),
    ("method: {name: rv-global}\nresearch_value: {weights: {age: -2}}\n", "must be a number >= 0"),
    ("method: {name: rv-partitioned, subset_size: 0}\n", "option .subset_size. must be an integer >= 1"),
])
def test_bad_research_value_config(tmp_path, body: str, match: str) -> None:
    from anonset.config import load_config

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


RV_ATTRIBUTES: dict[str, Any] = {
    "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [5, 10, 20, 40]}},
    "sex": {"role": "quasi"},
    "race": {"role": "quasi"},
}


def _cli_summary(tmp_path: Path, config: dict[str, Any], name: str) -> dict[str, Any]:
    """Run ``anonset anonymize`` on ``config`` (JSON is YAML) and return its summary."""
    from click.testing import CliRunner

    from anonset.cli import main

    path = tmp_path / f"{name}.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")
    summary = tmp_path / f"{name}.json"
    result = CliRunner().invoke(main, ["anonymize", str(path), "--quiet", "--summary", str(summary)])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return json.loads(summary.read_text())


@pytest.mark.parametrize("method", ["optimal", "exhaustive"])
@pytest.mark.parametrize("engine", ["duckdb", "postgresql"])
def test_auto_weights_are_computed_inside_the_database(engine: str, method: str, tmp_path: Path) -> None:
    """optimal / exhaustive with metric research_value and weights auto through DuckDB and PostgreSQL.

    The contingency tables of the auto weights are class tables computed by the SQL engine; the release equals
    the numpy engine's (same levels, same research value) and passes the pandas verifier.
    """
    from anonset.datasets import patient_register
    from anonset.io.tables import read_table, write_table
    from support import PgSchema

    frame = patient_register(1500, seed=3)[list(RV_ATTRIBUTES)]  # only the columns the config names
    write_table(frame, tmp_path / "register.csv")
    base: dict[str, Any] = {"attributes": RV_ATTRIBUTES, "privacy": {"k": 5},
                            "method": {"name": method, "metric": "research_value"},
                            "research_value": {"weights": "auto"}}
    expected = _cli_summary(tmp_path, {**base, "input": str(tmp_path / "register.csv"),
                                       "output": {"path": str(tmp_path / "numpy.csv")}}, "numpy")
    assert expected["engine"] == "numpy"
    if engine == "duckdb":
        summary = _cli_summary(tmp_path, {**base, "engine": "duckdb", "input": str(tmp_path / "register.csv"),
                                          "output": {"path": str(tmp_path / "duck.csv")}}, "duck")
        released = read_table(tmp_path / "duck.csv")
    else:
        pg = PgSchema()
        try:
            schema, table = pg.load(frame, "register")
            summary = _cli_summary(tmp_path, {**base, "input": {"sql": {"url": pg.url, "table": f"{schema}.{table}"}},
                                              "output": {"table": f"{schema}.released"}}, "pg")
            released = pg.fetch("released")
        finally:
            pg.close()
    assert summary["engine"] == engine
    assert summary["levels"] == expected["levels"]
    assert summary["metrics"]["research_value"] == pytest.approx(expected["metrics"]["research_value"], rel=1e-12)
    in_memory = Dataset(frame, {q: {"role": "quasi"} for q in RV_ATTRIBUTES})
    report = verify_release(released, in_memory, Requirements([KAnonymity(5)]))
    assert report.ok, report.problems


def test_auto_weights_of_a_database_table_are_counted_by_its_engine() -> None:
    """From the profile alone the weights cannot be computed; prepared with the SQL engine they equal numpy's."""
    from anonset.datasets import patient_register
    from anonset.engine.sql.duckdb import DuckDBBackend
    from anonset.engine.sql.engine import SqlEngine
    from anonset.engine.sql.profile import dataset_from_table

    frame = patient_register(800, seed=5)
    ages = sorted({int(a) for a in frame["age"]})
    decades = [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in ages]
    attributes = {"age": {"role": "quasi", "type": "numeric", "hierarchy": Hierarchy.from_rows("age", decades)},
                  "sex": {"role": "quasi"}, "race": {"role": "quasi"}}
    in_memory = Dataset(frame, attributes)
    expected = cramers_v_weights(in_memory)
    backend = DuckDBBackend.from_dataframe(frame)
    profiled = dataset_from_table(backend, backend.table, attributes)
    with pytest.raises(ConfigError, match=r"prepare the metric with the dataset's engine first"):
        ResearchValue().tables(profiled)
    rv = ResearchValue()
    with SqlEngine(profiled, None, backend, backend.table) as engine:
        assert cramers_v_weights(profiled, engine) == pytest.approx(expected, rel=1e-12)
        rv.prepare(profiled, engine)
    tables = rv.tables(profiled)  # prepared: the engine is no longer needed
    assert [list(t) for t in tables] == [pytest.approx(list(t), rel=1e-12)
                                         for t in ResearchValue().tables(in_memory)]
