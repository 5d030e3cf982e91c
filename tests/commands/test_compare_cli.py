"""``anonset compare``: releases of several configs of one table side by side, the best of each row marked.

The figures are checked against the same configs run one by one (their summaries), the best marks
against the directions by hand, and configs of different tables or quasi-identifiers are refused.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from anonset.cli import main
from anonset.datasets.synthetic import patient_register

CONFIG = """
input: {{path: register.csv}}
attributes:
  patient_id: {{role: identifier}}
  age:        {{role: quasi, type: numeric, hierarchy: {{builder: intervals, widths: [5, 10, 20, 40]}}}}
  sex:        {{role: quasi, hierarchy: {{builder: flat}}}}
  zip:        {{role: quasi, hierarchy: {{builder: masking, levels: 3}}}}
  diagnosis:  {{role: sensitive}}
  race:           {{role: insensitive}}
  marital_status: {{role: insensitive}}
  education:      {{role: insensitive}}
  length_of_stay: {{role: insensitive}}
privacy: {{k: 5, max_suppression: {budget}}}
method: {{name: {method}}}
"""


def _configs(tmp_path: Path) -> list[Path]:
    patient_register(1200, seed=4).to_csv(tmp_path / "register.csv", index=False)
    out = []
    for method, budget in (("optimal", 0.02), ("mondrian", 0), ("k-member", 0)):
        path = tmp_path / f"{method}.yaml"
        path.write_text(CONFIG.format(method=method, budget=budget), encoding="utf-8")
        out.append(path)
    return out


def test_compare_puts_each_configs_release_side_by_side(tmp_path: Path) -> None:
    configs = _configs(tmp_path)
    result = CliRunner().invoke(main, ["compare", *map(str, configs), "--json", str(tmp_path / "c.json"),
                                       "--report", str(tmp_path / "c.html"), "--queries", "200"])
    assert result.exit_code == 0, result.output
    comparison = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert comparison["methods"] == ["optimal", "mondrian", "k-member"]
    rows = {row["name"]: row for row in comparison["rows"]}
    for i, config in enumerate(configs):
        run = CliRunner().invoke(main, ["anonymize", str(config), "--json"])
        assert run.exit_code == 0, run.output
        summary = json.loads(run.stdout)
        assert rows["classes"]["values"][i] == summary["classes"]
        assert rows["suppressed records"]["values"][i] == summary["suppressed_rows"]
        assert rows["loss"]["values"][i] == summary["metrics"]["loss"]
        assert rows["average risk"]["values"][i] == summary["risk"]["release"]["average_risk"]
    for row in comparison["rows"]:
        values = row["values"]
        if row["better"] == "lower":
            assert row["best"] == [i for i, v in enumerate(values) if v == min(values)]
        elif row["better"] == "higher":
            assert row["best"] == [i for i, v in enumerate(values) if v == max(values)]
    assert all(v >= 0 for v in rows["query error"]["values"])
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert page.count("★") == sum(len(row["best"]) for row in comparison["rows"]) + 1  # +1: the legend
    assert "k-member" in result.output and "★" in result.output


def test_compare_refuses_configs_of_different_tables_or_quasi_identifiers(tmp_path: Path) -> None:
    configs = _configs(tmp_path)
    other = tmp_path / "other.yaml"
    other.write_text(configs[0].read_text(encoding="utf-8").replace("register.csv", "elsewhere.csv"),
                     encoding="utf-8")
    result = CliRunner().invoke(main, ["compare", str(configs[0]), str(other)])
    assert result.exit_code == 2 and "is not the input" in result.output
    fewer = tmp_path / "fewer.yaml"
    fewer.write_text(configs[0].read_text(encoding="utf-8").replace("  sex:        {role: quasi, hierarchy: {builder:"
                                                                    " flat}}\n", ""), encoding="utf-8")
    result = CliRunner().invoke(main, ["compare", str(configs[0]), str(fewer)])
    assert result.exit_code == 2 and "quasi-identifiers" in result.output
