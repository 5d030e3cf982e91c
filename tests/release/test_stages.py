"""Time per stage: a release and the run summary name every stage, and the stages sum to at most the total.

Only the structure is checked (which stages, that each ran, that they fit
in the total); how long a stage takes is never asserted.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset import Anonymizer
from anonset.cli import main
from anonset.io.tables import read_arrow_table, write_table
from anonset.privacy import KAnonymity, Requirements
from anonset.release.stages import STAGES, StageClock, StageTimes

N = 2_000


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame({"age": rng.integers(20, 70, N).astype(str), "zip": rng.choice(["0213", "0214", "1000"], N),
                         "diag": rng.choice(["a", "b", "c"], N)})


ATTRIBUTES = {"age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [10, 20]}},
              "zip": {"role": "quasi", "hierarchy": {"builder": "masking", "levels": 2}},
              "diag": {"role": "sensitive"}}


def test_the_clock_charges_each_lap_to_its_stage() -> None:
    clock = StageClock()
    clock.lap("search")
    clock.skip()
    clock.lap("verify")
    clock.lap("verify")
    times = clock.times()
    assert set(times.to_json()) == set(STAGES) and list(times.to_json()) == list(STAGES)
    assert times.load == times.encode == times.release == times.write == 0.0
    assert times.total <= clock.elapsed()
    assert times.with_times(load=2.0).load == 2.0 and times.with_times(load=2.0).search == times.search
    with pytest.raises(ValueError, match="unknown stage 'read'"):
        clock.lap("read")


@pytest.mark.parametrize("method", ["optimal", "mondrian"])
def test_fit_times_the_stages_it_runs(tmp_path: Path, method: str) -> None:
    path = tmp_path / "t.csv"
    write_table(_table(), path)
    release = Anonymizer(ATTRIBUTES, Requirements([KAnonymity(5)]), method=method).fit(
        read_arrow_table(path)).release_
    stages = release.stages
    assert isinstance(stages, StageTimes)
    assert stages.load == stages.write == 0.0  # reading and writing are the command's
    assert min(stages.encode, stages.search, stages.release, stages.metrics, stages.verify) > 0.0
    assert stages.total <= release.seconds
    assert release.summary()["stage_seconds"] == stages.to_json()


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_the_run_summary_shows_every_stage(tmp_path: Path, engine: str) -> None:
    write_table(_table(), tmp_path / "t.csv", delimiter=";")
    config = tmp_path / "run.yaml"
    config.write_text("input: {path: t.csv, delimiter: ';'}\nattributes:\n"
                      + "".join(f"  {name}: {json.dumps(spec)}\n" for name, spec in ATTRIBUTES.items())
                      + f"privacy: {{k: 5, max_suppression: 0.02}}\nmethod: optimal\nengine: {engine}\n"
                        "output: {path: out.csv}\n")
    result = CliRunner().invoke(main, ["anonymize", str(config), "--summary", str(tmp_path / "s.json")])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "s.json").read_text())
    stages = summary["stage_seconds"]
    assert list(stages) == list(STAGES)
    assert all(stages[name] > 0.0 for name in STAGES), stages  # every stage ran, reading and writing included
    assert sum(stages.values()) <= summary["seconds"]
    printed = " ".join(result.output.replace("│", " ").split())  # the table may wrap the line
    assert "seconds per stage" in printed
    for name in STAGES:
        assert f"{name} {stages[name]:.3f}" in printed
