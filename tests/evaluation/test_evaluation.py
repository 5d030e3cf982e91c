"""The evaluation protocol: splits, regions as points, honesty (the test records never shape the recoding), CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset import ConfigError, KAnonymity, Requirements
from anonset.cli import main
from anonset.core.dataset import Dataset
from anonset.core.partition import partition_of_assignment
from anonset.evaluation import evaluate, original_features, partition_features, split_rows
from anonset.hierarchy import Hierarchy


def test_folds_cover_every_record_once() -> None:
    splits = split_rows(23, folds=4, seed=1)
    tested = np.concatenate([test for _, test in splits])
    assert sorted(tested.tolist()) == list(range(23))
    for train, test in splits:
        assert not set(train.tolist()) & set(test.tolist())
        assert len(train) + len(test) == 23
    (train, test), = split_rows(10, test_fraction=0.3, seed=0)
    assert len(test) == 3 and len(train) == 7
    with pytest.raises(ConfigError, match="either folds"):
        split_rows(10, folds=2, test_fraction=0.5)
    with pytest.raises(ConfigError, match="folds must be"):
        split_rows(10, folds=1)


def test_regions_become_two_numbers_per_attribute() -> None:
    """Leaves a1 a2 | b1 b2 under A | B: depth-first positions 0 1 2 3; node A covers [0, 1], the root [0, 3]."""
    h = Hierarchy.from_rows("c", [["b1", "B", "*"], ["a1", "A", "*"], ["b2", "B", "*"], ["a2", "A", "*"]])
    table = pd.DataFrame({"x": ["1", "4", "6", "9"], "c": ["a1", "a2", "b1", "b2"]})
    ds = Dataset(table, {"x": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi", "hierarchy": h}})
    partition = partition_of_assignment(ds, np.array([0, 0, 1, 1]))
    x = partition_features(ds, partition, np.array([0, 0, 1, 1, -1]))
    # class 0: x in [1, 4], c = A -> leaves a1, a2; class 1: x in [6, 9], c = B; -1: the whole domain
    positions = {v: original_features(ds)[i, 2] for i, v in enumerate(table["c"])}
    assert sorted(positions.values()) == [0, 1, 2, 3]
    assert {positions["a1"], positions["a2"]} == {0, 1} or {positions["a1"], positions["a2"]} == {2, 3}
    a_lo, a_hi = min(positions["a1"], positions["a2"]), max(positions["a1"], positions["a2"])
    b_lo, b_hi = min(positions["b1"], positions["b2"]), max(positions["b1"], positions["b2"])
    assert x.tolist() == [[1, 4, a_lo, a_hi], [1, 4, a_lo, a_hi], [6, 9, b_lo, b_hi], [6, 9, b_lo, b_hi],
                          [1, 9, 0, 3]]
    assert original_features(ds)[:, :2].tolist() == [[1, 1], [4, 4], [6, 6], [9, 9]]


def _threshold_data(n: int, seed: int) -> tuple[pd.DataFrame, dict]:
    """Label yes exactly when x >= 50 (x uniform on 0..99), plus a noise quasi-identifier."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 100, n)
    table = pd.DataFrame({"x": x.astype(str), "z": rng.choice(list("pqrs"), n),
                          "label": np.where(x >= 50, "yes", "no")})
    return table, {"x": {"role": "quasi", "type": "numeric"}, "z": {"role": "quasi"}, "label": {"role": "target"}}


def test_the_test_records_never_shape_the_recoding() -> None:
    train, attrs = _threshold_data(300, 1)
    test_a, _ = _threshold_data(100, 2)
    test_b = test_a.copy()
    test_b["x"] = "99"  # other values and labels entirely
    test_b["label"] = "no"
    reqs = Requirements([KAnonymity(10)])
    a = evaluate(train, attrs, requirements=reqs, test=test_a, models=["decision_tree"])
    b = evaluate(train, attrs, requirements=reqs, test=test_b, models=["decision_tree"])
    assert a.splits[0]["classes"] == b.splits[0]["classes"]
    assert a.splits[0]["conditional_entropy"] == b.splits[0]["conditional_entropy"]
    assert a.splits[0]["average_class_size"] == pytest.approx(300 / a.splits[0]["classes"])


def test_accuracy_follows_the_generalization() -> None:
    """A threshold label survives small classes (k = 5) and is lost when the whole table is one class."""
    data, attrs = _threshold_data(600, 3)
    small = evaluate(data, attrs, requirements=Requirements([KAnonymity(5)]), folds=3, models=["decision_tree"])
    whole = evaluate(data, attrs, requirements=Requirements([KAnonymity(300)]), test_fraction=0.5,
                     models=["decision_tree"])
    frame = small.to_frame()
    assert len(frame) == 3 and (frame["original"] > 0.97).all()
    assert frame["anonymized"].mean() > 0.9
    # one class of 300 training records: every test record gets the same point, so one label is predicted
    assert whole.splits[0]["classes"] == 1
    majority = (data["label"] == "no").mean()
    assert abs(whole.to_frame()["anonymized"].iloc[0] - 0.5) < 0.1 and 0.4 < majority < 0.6
    assert whole.splits[0]["conditional_entropy"] > small.splits[0]["conditional_entropy"]


def test_full_domain_methods_are_evaluated_through_their_levels() -> None:
    data, attrs = _threshold_data(400, 4)
    attrs["x"] = {"role": "quasi", "type": "numeric",
                  "hierarchy": Hierarchy.from_rows("x", [[str(v), f"{v // 50 * 50}-{v // 50 * 50 + 49}", "*"]
                                                         for v in range(100)])}
    result = evaluate(data, attrs, requirements=Requirements([KAnonymity(5)]), method="optimal",
                      test_fraction=0.25, models=["decision_tree"])
    # the optimum keeps x at least as fine as the 50-wide intervals, which separate the labels exactly
    assert result.to_frame()["anonymized"].iloc[0] == pytest.approx(1.0)


def test_regression_scores_mean_absolute_error() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(0, 100, 500)
    table = pd.DataFrame({"x": x.astype(str), "y": (2 * x).astype(str)})
    attrs = {"x": {"role": "quasi", "type": "numeric"}, "y": {"role": "target", "type": "numeric"}}
    result = evaluate(table, attrs, requirements=Requirements([KAnonymity(10)]), test_fraction=0.2)
    assert result.task == "regression"
    frame = result.to_frame().set_index("model")
    assert frame.loc["linear_regression", "original"] == pytest.approx(0.0, abs=1e-6)
    # classes of about 10 consecutive x values: a prediction off by a few units of y at most on average
    assert 0 < frame.loc["linear_regression", "anonymized"] < 12


def test_bad_input() -> None:
    data, attrs = _threshold_data(50, 6)
    reqs = Requirements([KAnonymity(5)])
    with pytest.raises(ConfigError, match="unknown classification model 'j48'"):
        evaluate(data, attrs, requirements=reqs, folds=2, models=["j48"])
    with pytest.raises(ConfigError, match="not in the data"):
        evaluate(data, attrs, requirements=reqs, folds=2, target="salary")
    with pytest.raises(ConfigError, match="not a number"):
        evaluate(data, attrs, requirements=reqs, folds=2, task="regression")


def test_cli_evaluate(tmp_path: Path) -> None:
    data, _ = _threshold_data(300, 7)
    data.to_csv(tmp_path / "d.csv", index=False)
    config = tmp_path / "e.yaml"
    config.write_text("input: d.csv\nattributes:\n  x: {role: quasi, type: numeric}\n  z: {role: quasi}\n"
                      "  label: {role: target}\nprivacy: {k: 5}\nmethod: {name: mondrian}\n"
                      "evaluation: {models: [decision_tree, naive_bayes], folds: 3}\n")
    result = CliRunner().invoke(main, ["evaluate", str(config), "--summary", str(tmp_path / "s.json")])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["splits"] == 3 and set(summary["models"]) == {"decision_tree", "naive_bayes"}
    assert summary["models"]["decision_tree"]["original"] > 0.95
    config.write_text(config.read_text().replace("folds: 3", "folds: 3, test_fraction: 0.2"))
    result = CliRunner().invoke(main, ["evaluate", str(config)])
    assert result.exit_code == 2 and "either folds" in result.output


def test_workload_aware_mondrian_through_the_config(tmp_path: Path) -> None:
    """InfoGain and Selection Mondrian from the config; the evaluation reports the predicates' imprecision."""
    data, _ = _threshold_data(400, 8)
    data.to_csv(tmp_path / "d.csv", index=False)
    config = tmp_path / "w.yaml"
    config.write_text("input: d.csv\nattributes:\n  x: {role: quasi, type: numeric}\n  z: {role: quasi}\n"
                      "  label: {role: target}\nprivacy: {k: 20}\n"
                      "method: {name: mondrian, criterion: infogain}\n"
                      "evaluation: {models: [decision_tree], folds: 2, predicates: [{x: [50, 99]}]}\n")
    result = CliRunner().invoke(main, ["evaluate", str(config), "--summary", str(tmp_path / "s.json")])
    assert result.exit_code == 0, result.output
    infogain = json.loads((tmp_path / "s.json").read_text())
    # InfoGain cuts at the label's threshold x = 50, so the predicate x >= 50 is answered exactly
    assert infogain["imprecision"] == 0.0
    assert infogain["models"]["decision_tree"]["anonymized"] > 0.97
    config.write_text(config.read_text().replace("criterion: infogain", "criterion: median"))
    result = CliRunner().invoke(main, ["evaluate", str(config), "--summary", str(tmp_path / "m.json")])
    assert result.exit_code == 0, result.output
    median = json.loads((tmp_path / "m.json").read_text())
    assert median["conditional_entropy"] >= infogain["conditional_entropy"]
    config.write_text(config.read_text().replace("criterion: median", "criterion: lsd"))
    result = CliRunner().invoke(main, ["evaluate", str(config)])
    assert result.exit_code == 2 and "label" in result.output


def test_query_accuracy_does_not_import_scikit_learn() -> None:
    """Reports and comparisons answer queries without scikit-learn (half a second of every such process)."""
    code = ("import sys, anonset.evaluation as e, anonset.report.contents, anonset.report.comparison\n"
            "assert callable(e.query_accuracy) and callable(e.random_workload)\n"
            "assert 'sklearn' not in sys.modules, 'imported scikit-learn'\n"
            "assert callable(e.evaluate) and 'sklearn' in sys.modules\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
