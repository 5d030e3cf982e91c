"""The trade-off searches through the Anonymizer, the config and the CLI: front, --pick, re-check, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset import Anonymizer, ConfigError, EntropyLDiversity, KAnonymity, Requirements
from anonset.cli import main
from anonset.io.tables import write_table
from anonset.methods.base import Family
from support import random_table, registered


def _case(seed: int = 3, n: int = 400) -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, n, 3, n_sensitive_values=5)
    table["label"] = np.where(rng.random(n) < 0.4, "yes", "no")
    attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    attrs["label"] = {"role": "target"}
    return table.drop(columns=["x"]), attrs


def _independent_k_l(out: pd.DataFrame, quasi: list[str]) -> tuple[int, int]:
    """k and distinct l of a release, from its strings, the all-* group of suppressed records left out.

    (At the top node every record reads all-*: that group is then the one class.)
    """
    released = out[~(out[quasi] == "*").all(axis=1)]
    if released.empty:
        released = out
    groups = released.groupby(quasi)
    return int(groups.size().min()), int(groups["s"].nunique().min())


@pytest.mark.parametrize("method", registered(Family.FRONT))
def test_every_member_released_through_the_anonymizer_is_what_the_front_says(method: str) -> None:
    table, attrs = _case()
    reqs = Requirements([KAnonymity(1)], max_suppression=0.05)
    options = {"objectives": ["k", "l", "glm"]}
    result = Anonymizer(attrs, reqs, method=method, method_options=options, seed=2).front(table)
    front = result.front
    assert len(front) >= 3
    frame = result.to_frame()
    assert list(frame["k"]) == sorted(frame["k"])
    for pick in range(len(front)):
        model = Anonymizer(attrs, reqs, method=method, method_options=options, seed=2, pick=pick,
                           allow_unprotected=True).fit(table)
        release = model.release_
        member = front[pick]
        assert release.verified
        assert tuple(release.levels.values()) == member.levels
        assert release.suppressed_rows == member.suppressed_rows <= 0.05 * len(table)
        k, l = _independent_k_l(release.table, list(model.dataset_.quasi))
        assert k >= member.objectives["k"] and l >= member.objectives["l"]
        assert release.metrics["glm"] == pytest.approx(member.objectives["glm"])


def test_privacy_models_are_refused_for_a_trade_off_search() -> None:
    table, attrs = _case()
    with pytest.raises(ConfigError, match="cannot enforce entropy 2-diversity on s; it enforces distinct"):
        Anonymizer(attrs, Requirements([EntropyLDiversity("s", 2)]), method="pareto-ea").fit(table)
    with pytest.raises(ConfigError, match="the front has"):
        Anonymizer(attrs, Requirements([KAnonymity(1)]), method="pareto-exhaustive", pick=999).fit(table)
    with pytest.raises(ConfigError, match="option 'objectives' must be a list of k \\| l"):
        Anonymizer(attrs, Requirements([KAnonymity(1)]), method="pareto-ea", pick=0,
                   method_options={"objectives": "k"}).fit(table)


def _config(tmp_path: Path, method: str, privacy: str = "{max_suppression: 0.02}") -> Path:
    table, attrs = _case()
    write_table(table, tmp_path / "t.csv")
    for q, spec in attrs.items():
        if "hierarchy" in spec:
            rows = [";".join(row) for row in spec["hierarchy"].rows()]
            (tmp_path / f"{q}.csv").write_text("\n".join(rows) + "\n")
    config = tmp_path / "p.yaml"
    config.write_text("input: t.csv\n"
                      "attributes:\n"
                      + "".join(f"  {q}: {{role: quasi, hierarchy: {q}.csv}}\n" for q in ("q0", "q1", "q2"))
                      + "  s: {role: sensitive}\n"
                      "  label: {role: target}\n"
                      f"privacy: {privacy}\n"
                      f"method: {method}\n"
                      "output: {path: out.csv}\n")
    return config


def test_cli_prints_the_front_and_the_summary_holds_it(tmp_path: Path) -> None:
    config = _config(tmp_path, "{name: pareto-ea, objectives: [k, glm, cm], population: 10, iterations: 20}")
    result = CliRunner().invoke(main, ["anonymize", str(config), "--summary", str(tmp_path / "s.json"),
                                       "--pick", "1"])
    assert result.exit_code == 0, result.output + str(result.exception)
    assert "front:" in result.output and "1 (released)" in result.output
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["nodes_evaluated"] >= len(summary["front"]) >= 2
    member = summary["front"][1]
    assert set(member) == {"levels", "objectives", "suppressed_rows"}
    assert set(member["objectives"]) == {"k", "glm", "cm"}
    assert summary["levels"] == member["levels"] and summary["verified"] is True
    assert summary["metrics"]["cm"] == pytest.approx(member["objectives"]["cm"])
    ks = [m["objectives"]["k"] for m in summary["front"]]
    assert ks == sorted(ks)


@pytest.mark.parametrize("method,privacy,message", [
    ("{name: pareto-ea, objectives: [k]}", "{max_suppression: 0.02}", "at least two objectives"),
    ("{name: pareto-ea, objectives: [k, glm]}", "{t_closeness: {attribute: s, t: 0.2}}", "remove privacy.t_closeness"),
    ("{name: pareto-ea, objectives: [k, glm], epsilon: [1, 0]}", "{max_suppression: 0.02}", "epsilon"),
    ("{name: pareto-ea, objectives: [k, glm]}", "{max_suppression: 1.5}", "max_suppression"),
    ("{name: pareto-exhaustive, objectives: [k, glm], population: 5}", "{}",
     "unknown key method.population; allowed here: epsilon, metric, name, objectives"),
])
def test_cli_bad_input_exits_2(tmp_path: Path, method: str, privacy: str, message: str) -> None:
    config = _config(tmp_path, method, privacy)
    result = CliRunner().invoke(main, ["anonymize", str(config), "--pick", "1"])
    assert result.exit_code == 2, result.output
    assert message in result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert not (tmp_path / "out.csv").exists()
