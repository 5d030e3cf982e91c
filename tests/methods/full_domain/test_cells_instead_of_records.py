"""``optimal`` with ``suppression: cells``: the records a node would suppress keep their values but a few blanked.

The same node as the records' release; only records that release suppresses lose values, and only values;
every record is matched, a blank matching any value, by k records (counted pair by pair, tests/support.py);
``anonset check --blanks-match-any`` accepts the written file.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset import Anonymizer, DistinctLDiversity, KAnonymity, Requirements
from anonset.cli import main
from anonset.errors import ConfigError
from support import matched_by_hand

ATTRS = {"region": {"role": "quasi"}, "sex": {"role": "quasi"},
         "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [5, 10, 20, 40]}},
         "diagnosis": {"role": "sensitive"}}
QUASI = ["region", "sex", "age"]


def _survey(n: int = 2000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"region": rng.choice(list("ABCDEFG"), n, p=[.3, .25, .2, .1, .08, .05, .02]),
                         "sex": rng.choice(["f", "m"], n), "age": rng.integers(18, 90, n),
                         "diagnosis": rng.choice(list("xyz"), n)})


def _fit(table: pd.DataFrame, k: int, **options: object) -> Anonymizer:
    return Anonymizer(ATTRS, Requirements([KAnonymity(k)], max_suppression=0.05), method="optimal",
                      method_options=options).fit(table)


@pytest.mark.parametrize("k", [3, 5])
def test_the_records_a_node_suppresses_lose_single_values_instead(k: int) -> None:
    table = _survey()
    records = _fit(table, k).release_
    cells = _fit(table, k, suppression="cells").release_
    assert records.table is not None and cells.table is not None and cells.verified
    assert cells.levels == records.levels and records.suppressed_rows > 0
    suppressed = (records.table[QUASI] == "*").all(axis=1).to_numpy()
    blanked = (cells.table[QUASI] == "*").to_numpy()
    summary = cells.summary()
    assert summary["suppressed_rows"] == 0
    assert summary["suppressed_cells"] == dict(zip(QUASI, blanked.sum(axis=0).tolist(), strict=True))
    assert not blanked[~suppressed].any()  # only the records the node suppresses lose values
    assert blanked.sum() < suppressed.sum() * len(QUASI)  # and not every value of each
    same = cells.table[QUASI].to_numpy()[~suppressed] == records.table[QUASI].to_numpy()[~suppressed]
    assert same.all()
    assert matched_by_hand(cells.table, QUASI).min() >= k


def test_the_importance_order_decides_what_is_blanked() -> None:
    table = _survey()
    keep_region = _fit(table, 5, suppression="cells", importance=["region", "sex", "age"]).release_.summary()
    keep_age = _fit(table, 5, suppression="cells", importance=["age", "sex", "region"]).release_.summary()
    assert keep_region["suppressed_cells"]["region"] < keep_age["suppressed_cells"]["region"]


def test_models_other_than_k_anonymity_are_refused() -> None:
    with pytest.raises(ConfigError, match="distinct 2-diversity .* is not: suppress whole records"):
        Anonymizer(ATTRS, Requirements([KAnonymity(3), DistinctLDiversity("diagnosis", 2)], max_suppression=0.05),
                   method="optimal", method_options={"suppression": "cells"}).fit(_survey(300))


def test_the_command_writes_a_release_check_accepts_with_blanks_matching_any(tmp_path: Path) -> None:
    _survey(1500).to_csv(tmp_path / "survey.csv", index=False)
    (tmp_path / "run.yaml").write_text(
        "input: {path: survey.csv}\nattributes:\n  region: {role: quasi}\n  sex: {role: quasi}\n"
        "  age: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [5, 10, 20, 40]}}\n"
        "  diagnosis: {role: sensitive}\nprivacy: {k: 4, max_suppression: 0.05}\n"
        "method: {name: optimal, suppression: cells}\noutput: {path: out.csv}\n", encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(main, ["anonymize", str(tmp_path / "run.yaml"), "--summary", str(tmp_path / "s.json")])
    assert done.exit_code == 0, done.output
    assert "blanked values" in done.output
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["suppressed_rows"] == 0 and sum(summary["suppressed_cells"].values()) > 0
    released = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert matched_by_hand(released, QUASI).min() >= 4
    checked = runner.invoke(main, ["check", str(tmp_path / "out.csv"), "--quasi", ",".join(QUASI), "-k", "4",
                                   "--blanks-match-any"])
    assert checked.exit_code == 0, checked.output


def test_new_records_lose_single_values_too() -> None:
    table = _survey()
    model = _fit(table, 5, suppression="cells")
    new = _survey(2000, seed=1)
    release = model.transform(new, return_release=True)
    assert release.table is not None and release.verified and release.suppressed_rows == 0
    assert (release.table[QUASI] == "*").any(axis=None)
    assert matched_by_hand(release.table, QUASI).min() >= 5
