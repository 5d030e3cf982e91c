"""``anonset evaluate`` with ``evaluation.queries`` and ``evaluation.patterns``: hand figures, families, bad keys."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset.cli import main
from anonset.methods import registry
from anonset.methods.base import Family

#: Methods of every family whose release of the single-value table is the table itself (k = 5).
EXACT_METHODS = [m for m in ("optimal", "k-member", "xu-top-down", "mondrian", "pareto-exhaustive")
                 if m in registry.names()]


def _single_value_table(path: Path) -> None:
    """x in {1, 2} × z in {a, b}, each combination 5 times; the label is x = 2."""
    rows = [(x, z, "hi" if x == 2 else "lo") for x in (1, 2) for z in "ab" for _ in range(5)]
    pd.DataFrame(rows, columns=["x", "z", "label"]).to_csv(path, index=False)


def _config(tmp_path: Path, evaluation: str, method: str = "mondrian", label_role: str = "insensitive",
            data: str = "exact.csv", extra: str = "") -> Path:
    config = tmp_path / "e.yaml"
    config.write_text(f"input: {data}\nattributes:\n"
                      "  x: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [2]}}\n"
                      f"  z: {{role: quasi}}\n  label: {{role: {label_role}}}\nprivacy: {{k: 5}}\n"
                      f"method: {{name: {method}}}\n{extra}evaluation: {evaluation}\n")
    return config


def _run(config: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["evaluate", str(config), *args])
    return result.exit_code, result.output


@pytest.mark.parametrize("method", EXACT_METHODS)
def test_single_value_classes_answer_every_query_exactly(tmp_path: Path, method: str) -> None:
    """Each class holds one value per attribute, so the uniform spread is the truth: every error is 0.

    Dimension 1 and selectivity 0.5 accept one of the two values of the drawn attribute: 10 records each time.
    The release tree sees the same points as the raw tree (box [v, v]), so both score alike and split alike.
    """
    _single_value_table(tmp_path / "exact.csv")
    config = _config(tmp_path, "{queries: {count: 40, dimension: 1, selectivity: 0.5, seed: 3},"
                               " patterns: {target: label, test_fraction: 0.5}}", method=method)
    code, output = _run(config, "--summary", str(tmp_path / "s.json"))
    assert code == 0, output
    summary = json.loads((tmp_path / "s.json").read_text())
    assert "models" not in summary  # no label role and no protocol key: only the checks run
    assert summary["release"] == {"method": method, "records": 20, "classes": 4, "suppressed": 0}
    queries = summary["queries"]
    assert queries["queries"] == 40 and queries["dimension"] == 1 and queries["seed"] == 3
    assert queries["mean_true_count"] == 10.0
    assert queries["mean_relative_error"] == 0.0 and queries["median_relative_error"] == 0.0
    assert queries["share_above_0.1"] == 0.0
    patterns = summary["patterns"]
    assert patterns["target"] == "label" and patterns["task"] == "classification"
    assert patterns["release"] == patterns["raw"] == 1.0
    assert patterns["release_splits"] == patterns["raw_splits"] == ["x"] and patterns["overlap"] == 1.0
    assert "queries: 40" in output and "release tree 1.0000" in output


def test_every_registered_family_is_covered() -> None:
    assert {registry.get(m).family for m in EXACT_METHODS} == set(Family)


def test_checks_sit_beside_the_protocol(tmp_path: Path) -> None:
    """A label column: the protocol's figures stay as they were and the checks are added next to them."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 100, 300)
    pd.DataFrame({"x": x, "z": rng.choice(list("abcd"), 300), "label": np.where(x >= 50, "hi", "lo")}).to_csv(
        tmp_path / "d.csv", index=False)
    protocol = "{models: [decision_tree], folds: 2"
    config = _config(tmp_path, protocol + "}", label_role="target", data="d.csv")
    code, output = _run(config, "--summary", str(tmp_path / "plain.json"))
    assert code == 0, output
    plain = json.loads((tmp_path / "plain.json").read_text())
    assert not {"release", "queries", "patterns"} & set(plain)
    config = _config(tmp_path, protocol + ", queries: {count: 100}, patterns: {}}", label_role="target",
                     data="d.csv")
    code, output = _run(config, "--summary", str(tmp_path / "both.json"))
    assert code == 0, output
    both = json.loads((tmp_path / "both.json").read_text())
    assert {key: both[key] for key in plain} == plain
    assert both["queries"]["queries"] == 100 and both["queries"]["selectivity"] == 0.1
    assert both["patterns"]["target"] == "label" and both["patterns"]["depth"] == 3  # the role-target column
    assert both["release"]["records"] == 300 and both["queries"]["mean_relative_error"] >= 0
    assert "decision_tree" in output and "queries: 100" in output


@pytest.mark.parametrize(("evaluation", "words"), [
    ("{queries: {count: 0}}", ["evaluation.queries.count", "0", ">= 1"]),
    ("{queries: {count: 2.5}}", ["evaluation.queries.count", "2.5"]),
    ("{queries: {dimension: 3}}", ["evaluation.queries.dimension", "from 1 to 2", "3"]),
    ("{queries: {selectivity: 1.5}}", ["evaluation.queries.selectivity", "(0, 1]", "1.5"]),
    ("{queries: {threshold: -1}}", ["evaluation.queries.threshold", "-1"]),
    ("{queries: {rows: 5}}", ["evaluation.queries.rows", "count"]),
    ("{queries: 5}", ["evaluation.queries", "mapping", "5"]),
    ("{queries: }", ["evaluation.queries", "mapping", "None"]),
    ("{patterns: {}}", ["evaluation.patterns.target", "none"]),
    ("{patterns: {target: x}}", ["evaluation.patterns.target", "'x'", "quasi-identifier"]),
    ("{patterns: {target: label, task: clustering}}", ["evaluation.patterns.task", "regression", "clustering"]),
    ("{patterns: {target: label, depth: 0}}", ["evaluation.patterns.depth", ">= 1", "0"]),
    ("{patterns: {target: label, test_fraction: 1}}", ["evaluation.patterns.test_fraction", "(0, 1)", "1"]),
    ("{patterns: {target: label, seed: x}}", ["evaluation.patterns.seed", "integer", "'x'"]),
    ("{patterns: {target: label, folds: 3}}", ["evaluation.patterns.folds", "depth"]),
])
def test_bad_keys_and_values_are_one_line(tmp_path: Path, evaluation: str, words: list[str]) -> None:
    _single_value_table(tmp_path / "exact.csv")
    code, output = _run(_config(tmp_path, evaluation), "--summary", str(tmp_path / "s.json"))
    assert code == 2, output
    assert len(output.strip().splitlines()) == 1 and output.startswith("error:"), output
    for word in words:
        assert word in output, (word, output)
    assert not (tmp_path / "s.json").exists()


def test_a_label_that_is_not_in_the_data_is_one_line(tmp_path: Path) -> None:
    _single_value_table(tmp_path / "exact.csv")
    code, output = _run(_config(tmp_path, "{patterns: {target: income}}"))
    assert code == 2 and len(output.strip().splitlines()) == 1 and "'income'" in output, output


def test_a_database_engine_is_refused_for_the_checks(tmp_path: Path) -> None:
    _single_value_table(tmp_path / "exact.csv")
    code, output = _run(_config(tmp_path, "{queries: {}}", extra="engine: duckdb\n"))
    assert code == 2 and len(output.strip().splitlines()) == 1, output
    assert "evaluation.queries" in output and "engine: numpy" in output
