"""Perturbation after the method: PRAM, noise, top and bottom coding, seeded, reported and re-checked.

Every figure is recomputed here from the released and the original columns (noise level, values changed,
IL1s, interval disclosure); PRAM's default matrix keeps each category's expected share (p R = p, Gouweleeuw
et al.); a perturbation that breaks the requirements releases nothing.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset import Anonymizer, DistinctLDiversity, KAnonymity, Requirements
from anonset.cli import main
from anonset.errors import ConfigError, InfeasibleError

ATTRS = {"region": {"role": "quasi"}, "sex": {"role": "quasi"},
         "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [10, 20, 40]}},
         "income": {"role": "insensitive", "type": "numeric"}, "wage": {"role": "insensitive", "type": "numeric"},
         "diagnosis": {"role": "sensitive"}}
QUASI = ["region", "sex", "age"]


def _survey(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    income = np.round(rng.lognormal(7.5, 0.6, n), 2)
    return pd.DataFrame({"region": rng.choice(list("ABCD"), n, p=[.4, .3, .2, .1]), "sex": rng.choice(["f", "m"], n),
                         "age": rng.integers(18, 90, n), "income": income,
                         "wage": np.round(income * rng.uniform(0.5, 0.9, n)).astype(np.int64),
                         "diagnosis": rng.choice(list("xyz"), n, p=[.5, .3, .2])})


def _fit(table: pd.DataFrame, perturbation: list[dict[str, object]], k: int = 3, seed: int = 0,
         requirements: Requirements | None = None) -> Anonymizer:
    return Anonymizer(ATTRS, requirements or Requirements([KAnonymity(k)]), seed=seed,
                      perturbation=perturbation).fit(table)


def test_noise_of_the_given_percent_of_the_spread_and_its_figures_by_hand() -> None:
    table = _survey()
    model = _fit(table, [{"noise": ["income"], "percent": 50}])
    release = model.release_
    released = release.table
    assert released is not None and release.verified
    plain = Anonymizer(ATTRS, Requirements([KAnonymity(3)])).fit(table).release_.table
    assert plain is not None and released[QUASI].equals(plain[QUASI])  # the classes are the method's
    x, xm = table["income"].to_numpy(), released["income"].astype(float).to_numpy()
    done = release.summary()["perturbation"]
    sd = float(np.std(x, ddof=1)) * 0.5
    assert done["treatments"][0]["noise_sd"]["income"] == pytest.approx(sd, rel=1e-9)
    assert np.std(xm - x, ddof=1) == pytest.approx(sd, rel=0.05)  # 3,000 draws: within 5%
    numbers = done["numbers"]
    assert numbers["il1s"] == pytest.approx(float(np.sum(np.abs(x - xm) / (np.std(x, ddof=1) * np.sqrt(2)))),
                                            abs=1e-5)
    within = np.abs(x - xm) <= 0.05 * np.std(xm, ddof=1)
    assert numbers["interval_disclosure"] == pytest.approx(float(within.mean()), abs=1e-6)
    assert 0 <= numbers["record_linkage"] <= 1
    assert release.summary()["provenance"]["perturbation"][0] == {"kind": "noise", "attributes": ["income"],
                                                                  "percent": 50.0, "method": "additive"}
    frame = model.transform(table)  # the API's DataFrame keeps the perturbed values, not the input's
    assert not np.allclose(frame["income"].to_numpy(dtype=float), x)


def test_the_same_seed_gives_the_same_values_and_another_seed_others() -> None:
    table = _survey(500)
    treatments: list[dict[str, object]] = [{"noise": ["income", "wage"], "method": "correlated"},
                                           {"pram": ["diagnosis"]}]
    first = _fit(table, treatments, seed=5).release_.table
    again = _fit(table, treatments, seed=5).release_.table
    other = _fit(table, treatments, seed=6).release_.table
    assert first is not None and again is not None and other is not None
    assert first.to_csv(index=False) == again.to_csv(index=False)
    assert not first["income"].equals(other["income"]) and not first["diagnosis"].equals(other["diagnosis"])


def test_pram_reports_an_invariant_matrix_and_the_values_it_changed() -> None:
    table = _survey()
    release = _fit(table, [{"pram": ["diagnosis"], "pd": 0.6, "alpha": 0.5}]).release_
    released = release.table
    assert released is not None and release.verified
    done = release.summary()["perturbation"]["treatments"][0]
    changed = int((released["diagnosis"] != table["diagnosis"]).sum())
    assert done["changed"] == {"diagnosis": changed} and changed > 0
    categories = sorted(table["diagnosis"].unique())
    matrix = np.array([[done["transition"]["diagnosis"][a].get(b, 0.0) for b in categories] for a in categories])
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-9)
    shares = table["diagnosis"].value_counts(normalize=True)[categories].to_numpy()
    np.testing.assert_allclose(shares @ matrix, shares, atol=1e-9)  # the expected shares are kept
    assert (np.diag(matrix) >= 0.6 * 0.5).all()


def test_top_and_bottom_coding_by_hand_and_integers_stay_integers() -> None:
    table = _survey(800)
    release = _fit(table, [{"top_code": ["wage"], "above": 2500, "value": 2500},
                           {"bottom_code": ["wage"], "below": 600}]).release_
    released = release.table
    assert released is not None
    expected = table["wage"].clip(lower=600, upper=2500)
    assert (released["wage"].astype(np.int64) == expected).all()
    assert released["wage"].dtype == np.int64
    treatments = release.summary()["perturbation"]["treatments"]
    assert treatments[0]["changed"] == {"wage": int((table["wage"] > 2500).sum())}
    assert treatments[1]["changed"] == {"wage": int((table["wage"] < 600).sum())}


def test_a_perturbation_that_breaks_the_requirements_releases_nothing() -> None:
    """Every diagnosis sent to x: no class keeps two distinct values."""
    table = _survey(600)
    to_x = {"x": {"x": 1.0}, "y": {"x": 1.0}, "z": {"x": 1.0}}
    with pytest.raises(InfeasibleError, match="after the perturbation .* breaks"):
        _fit(table, [{"pram": ["diagnosis"], "matrix": to_x}],
             requirements=Requirements([KAnonymity(3), DistinctLDiversity("diagnosis", 2)]))


@pytest.mark.parametrize(("treatment", "message"), [
    ({"noise": ["age"]}, "cannot change quasi-identifier 'age'"),
    ({"top_code": ["age"], "above": 80}, "code it in its hierarchy instead: .*top: N"),
    ({"noise": ["nope"]}, "names column 'nope', which is not in the table"),
    ({"noise": ["income"], "method": "correlated"}, "correlated noise keeps the correlations of several"),
    ({"noise": ["diagnosis"]}, "noise changes numbers, and 'x' is not one"),
    ({"blur": ["income"]}, "must name one kind of treatment"),
    ({"noise": ["income"], "level": 3}, "noise has no parameter 'level'"),
    ({"top_code": ["income"]}, "top_code needs above"),
    ({"pram": ["diagnosis"], "pd": 0}, "pram's pd must be a number > 0"),
])
def test_what_cannot_be_perturbed_is_refused_in_one_line(treatment: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _fit(_survey(100), [treatment])


def test_the_command_writes_the_same_bytes_for_a_seed_and_refuses_a_quasi_identifier(tmp_path: Path) -> None:
    _survey(400).to_csv(tmp_path / "survey.csv", index=False)
    body = ("input: {path: survey.csv}\nattributes:\n  region: {role: quasi}\n  sex: {role: quasi}\n"
            "  age: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [10, 20, 40]}}\n"
            "  income: {role: insensitive, type: numeric}\n  wage: {role: insensitive, type: numeric}\n"
            "  diagnosis: {role: sensitive}\nprivacy: {k: 3}\nseed: 4\n"
            "perturbation:\n  - {noise: [income], percent: 100}\n  - {pram: [diagnosis], pd: 0.8}\n")
    runner = CliRunner()
    outputs = []
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text(body + f"output: {{path: {name}.csv}}\n", encoding="utf-8")
        done = runner.invoke(main, ["anonymize", str(tmp_path / f"{name}.yaml"), "--summary",
                                    str(tmp_path / f"{name}.json"), "--report", str(tmp_path / f"{name}.html")])
        assert done.exit_code == 0, done.output
        assert "perturbed" in done.output
        outputs.append((tmp_path / f"{name}.csv").read_bytes())
    assert outputs[0] == outputs[1]
    summary = json.loads((tmp_path / "a.json").read_text())
    assert [t["kind"] for t in summary["perturbation"]["treatments"]] == ["noise", "pram"]
    page = html.unescape((tmp_path / "a.html").read_text(encoding="utf-8"))
    numbers = summary["perturbation"]["numbers"]
    assert ("After the method, values were perturbed: additive noise of 100% of the spread of income; then PRAM"
            " (pd 0.8, alpha 0.5) of diagnosis.") in page
    assert f"finds its own record for {numbers['record_linkage']:.1%} of the records" in page
    (tmp_path / "q.yaml").write_text(body.replace("[income], percent: 100", "[age]") + "output: {path: q.csv}\n",
                                     encoding="utf-8")
    refused = runner.invoke(main, ["anonymize", str(tmp_path / "q.yaml")])
    assert refused.exit_code == 2 and "cannot change quasi-identifier 'age'" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and not (tmp_path / "q.csv").exists()
