"""Distributed Mondrian on Spark (local mode): ``engine: spark`` with ``method: mondrian``.

The releases are read back from the part files Spark wrote and re-checked here with pandas alone:
k-anonymity (and entropy l-diversity) of the classes of identical released quasi-identifiers, and
every record released exactly once (the patient ids, passed through for the check).  With one
fragment the release equals the in-memory Mondrian release, label for label; so it does with
several when the sample is the whole table (the first cuts are then the top of Mondrian's tree).  A first cut that
leaves a fragment too small is undone (the fragment merged with its sibling) before any worker
runs.  What distributed Mondrian cannot enforce is one line before Spark starts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset.cli import main
from anonset.datasets.synthetic import patient_register
from anonset.methods.mondrian.cut_tree import Cut

CONFIG = """
input: {{path: register.csv}}
attributes:
  patient_id: {{role: insensitive}}       # passed through, to check that every record is released once
  age:        {{role: quasi, type: numeric}}
  sex:        {{role: quasi}}
  zip:        {{role: quasi, hierarchy: {{builder: masking, levels: 3}}}}
  race:       {{role: quasi}}
  diagnosis:  {{role: sensitive}}
  marital_status: {{role: insensitive}}   # every column named: none is refused as undeclared
  education:  {{role: insensitive}}
  length_of_stay: {{role: insensitive}}
{extra}privacy: {privacy}
method: {method}
output: {{path: {output}}}
"""
QUASI = ["age", "sex", "zip", "race"]
ROWS = 4000


def _run(folder: Path, name: str, *, privacy: str = "{k: 10}", method: str = "{name: mondrian}",
         output: str = "out.csv", spark: bool = True, extra: str = "") -> tuple[int, str, dict[str, Any] | None]:
    """Anonymize ``register.csv`` in ``folder``; ``extra`` is more attribute lines."""
    config = folder / f"{name}.yaml"
    text = CONFIG.format(privacy=privacy, method=method, output=output, extra=extra)
    config.write_text(text + ("engine: spark\nspark: {master: 'local[2]'}\n" if spark else ""), encoding="utf-8")
    summary = folder / f"{name}.json"
    result = CliRunner().invoke(main, ["anonymize", str(config), "-q", "--summary", str(summary)])
    return result.exit_code, result.output, (json.loads(summary.read_text()) if summary.exists() else None)


def _parts(folder: Path) -> pd.DataFrame:
    return pd.concat([pd.read_csv(p, dtype=str, keep_default_na=False) for p in sorted(folder.glob("part-*.csv"))],
                     ignore_index=True)


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    columns = sorted(frame.columns)
    return frame[columns].sort_values(columns).reset_index(drop=True)


@pytest.fixture
def register(tmp_path: Path) -> pd.DataFrame:
    table = patient_register(ROWS, seed=11)
    table.to_csv(tmp_path / "register.csv", index=False)
    return table


def test_fragments_release_every_record_once_k_anonymous(spark: Any, tmp_path: Path, register: pd.DataFrame) -> None:
    """Every record once, in classes of k, as in memory; an identifier is left out and never reaches a fragment."""
    register.assign(record=register["patient_id"]).to_csv(tmp_path / "register.csv", index=False)
    extra = "  record:     {role: identifier}\n"
    code, out, summary = _run(tmp_path, "k", method="{name: mondrian, fragments: 4}", extra=extra)
    assert code == 0, out
    assert summary is not None and summary["engine"] == "spark" and summary["method"] == "mondrian"
    assert summary["verified"] and summary["search"]["fragments"] >= 2
    released = _parts(tmp_path / "out.csv")
    assert "record" not in released.columns
    assert len(released) == ROWS and released["patient_id"].is_unique
    assert set(released["patient_id"]) == set(register["patient_id"])
    sizes = released.groupby(QUASI).size()
    assert sizes.min() >= 10 and len(sizes) == summary["classes"]
    assert summary["rows"] == ROWS and summary["suppressed_rows"] == 0
    assert {"loss", "ncp", "gcp", "discernibility", "aecs"} <= set(summary["metrics"])
    assert summary["metrics"]["discernibility"] == pytest.approx(float((sizes ** 2).sum()))
    assert "non_uniform_entropy" in summary["metrics_omitted"]
    # the sample is the whole table: the first cuts are the top of Mondrian's tree, the fragments grow the rest
    code, out, in_memory = _run(tmp_path, "memory", output="memory.csv", spark=False, extra=extra)
    assert code == 0, out
    assert _sorted(released).equals(_sorted(pd.read_csv(tmp_path / "memory.csv", dtype=str, keep_default_na=False)))
    # the risk report: the input's classes added up from the fragments, counted here from the register
    assert in_memory is not None and summary["risk"] == in_memory["risk"]
    input_sizes = register.astype(str).groupby(QUASI).size()
    assert summary["risk"]["input"]["classes"] == len(input_sizes)
    assert summary["risk"]["input"]["sample_uniques"] == pytest.approx(float((input_sizes == 1).sum()) / ROWS)
    assert summary["risk"]["release"]["classes"] == len(sizes)


def test_fragments_release_is_entropy_l_diverse(spark: Any, tmp_path: Path, register: pd.DataFrame) -> None:
    privacy = "{k: 5, l_diversity: {attribute: diagnosis, l: 3, variant: entropy}}"
    code, out, summary = _run(tmp_path, "l", privacy=privacy, method="{name: mondrian, fragments: 4}")
    assert code == 0, out
    released = _parts(tmp_path / "out.csv")
    assert len(released) == ROWS and set(released["patient_id"]) == set(register["patient_id"])
    shares = released.groupby(QUASI)["diagnosis"].value_counts(normalize=True)
    entropy = -(shares * np.log(shares)).groupby(level=list(range(len(QUASI)))).sum()
    assert entropy.min() >= np.log(3) - 1e-12
    assert released.groupby(QUASI).size().min() >= 5


def test_one_fragment_releases_what_mondrian_in_memory_releases(spark: Any, tmp_path: Path,
                                                                register: pd.DataFrame) -> None:
    code, out, expected = _run(tmp_path, "memory", output="memory.csv", spark=False)
    assert code == 0, out
    code, out, got = _run(tmp_path, "one", method="{name: mondrian, fragments: 1}")
    assert code == 0, out
    assert expected is not None and got is not None and got["search"]["fragments"] == 1
    in_memory = pd.read_csv(tmp_path / "memory.csv", dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(_sorted(_parts(tmp_path / "out.csv")), _sorted(in_memory))
    assert got["classes"] == expected["classes"]
    for name in ("loss", "ncp", "gcp", "glm", "precision", "discernibility", "aecs", "total_il"):
        assert got["metrics"][name] == pytest.approx(expected["metrics"][name], rel=1e-9), name


def test_a_fragment_too_small_is_merged_with_its_sibling(spark: Any, tmp_path: Path, register: pd.DataFrame,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """First cuts forced by hand: sex, then the women cut above all but their oldest (fewer than k records)."""
    import anonset.methods.mondrian.first_cuts as cuts

    women = register.loc[register["sex"] == "F", "age"].astype(int)
    tiny = max(t for t in women.unique() if 0 < int((women > t).sum()) < 10)

    def forced(sample: Any, *args: Any, **kwargs: Any) -> Cut:
        codes = sample.value_codes("sex")
        women_cut = Cut("age", threshold=float(tiny), children=(Cut(), Cut()))
        return Cut("sex", level=0, keys=(codes["F"], codes["M"]), children=(women_cut, Cut()))

    monkeypatch.setattr(cuts, "first_cuts", forced)
    code, out, summary = _run(tmp_path, "merged")
    assert code == 0, out
    assert summary is not None
    assert summary["search"]["fragments"] == 2 and summary["search"]["fragments_merged"] == 1
    released = _parts(tmp_path / "out.csv")
    assert len(released) == ROWS and released.groupby(QUASI).size().min() >= 10


def test_spark_sends_every_record_to_the_fragment_the_cut_tree_gives(spark: Any, tmp_path: Path,
                                                                     register: pd.DataFrame) -> None:
    """The Spark expression (with_fragments) and the cut tree in numpy (fragments_of) route every record alike."""
    from anonset.core.dataset import Dataset
    from anonset.core.hierarchy_builders import masking_hierarchy
    from anonset.engine.spark.mondrian import FRAGMENT, with_fragments
    from anonset.engine.spark.source import dataset_from_frame, keyed, read_frame, to_pandas
    from anonset.methods.mondrian.cut_tree import fragments_of

    table = register.astype(str)
    attributes = {"patient_id": {"role": "insensitive"}, "age": {"role": "quasi", "type": "numeric"},
                  "sex": {"role": "quasi"},
                  "zip": {"role": "quasi", "hierarchy": masking_hierarchy("zip", table["zip"])}}
    local = Dataset(table[list(attributes)], attributes)
    zips = local.require_hierarchy("zip")
    held = sorted({int(c) for c in zips.maps[2][local.encoded["zip"].row_codes()]})
    sex = local.value_codes("sex")
    # age at 40: the younger by sex (fragments 0, 1); the older by zip at masking level 2, the first branch held
    # again by age at 60 (2, 3), the second and any other branch (the default child) fragment 4
    tree = Cut("age", threshold=40.0, children=(
        Cut("sex", level=0, keys=(sex["F"], sex["M"]), children=(Cut(), Cut())),
        Cut("zip", level=2, keys=(held[0], held[1]), default=1, children=(
            Cut("age", threshold=60.0, children=(Cut(), Cut())), Cut()))))
    expected = pd.Series(fragments_of(tree, local), index=table["patient_id"].to_numpy())
    assert expected.nunique() == tree.n_fragments == 5
    frame = read_frame(spark, path=tmp_path / "register.csv", delimiter=",")
    dataset = dataset_from_frame(frame, {**attributes, **{c: {"role": "insensitive"} for c in register.columns
                                                          if c not in attributes}}, "register.csv")
    data, key = keyed(frame)
    got = to_pandas(with_fragments(data, dataset, tree, key).select(key["patient_id"], FRAGMENT))
    routed = pd.Series(got[FRAGMENT].to_numpy(dtype=np.int64), index=got[key["patient_id"]].to_numpy())
    assert len(routed) == ROWS
    pd.testing.assert_series_equal(routed.sort_index(), expected.sort_index(), check_names=False)


@pytest.mark.parametrize(("privacy", "method", "message"), [
    ("{k: 5, t_closeness: {attribute: diagnosis, t: 0.3}}", "{name: mondrian}",
     "0.3-closeness (equal distance) on diagnosis compares every class with the whole table's distribution"),
    ("{k: 5}", "{name: k-member}", "method 'k-member' needs the records in memory; with engine: spark use mondrian"),
])
def test_what_fragments_cannot_enforce_is_one_line(tmp_path: Path, privacy: str, method: str, message: str) -> None:
    patient_register(100, seed=1).to_csv(tmp_path / "register.csv", index=False)
    code, out, _ = _run(tmp_path, "bad", privacy=privacy, method=method)
    assert code == 2 and message in out and out.count("\n") == 1, out
    assert not (tmp_path / "out.csv").exists()


def test_the_spark_options_are_refused_in_memory(tmp_path: Path) -> None:
    patient_register(100, seed=1).to_csv(tmp_path / "register.csv", index=False)
    code, out, _ = _run(tmp_path, "memory", method="{name: mondrian, fragments: 4}", spark=False)
    assert code == 2 and "option 'fragments' applies to engine: spark" in out and out.count("\n") == 1, out
