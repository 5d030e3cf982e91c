"""``anonset compare`` compares like with like.

Every utility figure is scored under the first config's definition (its weights), re-scored from each
release's partition: two configs differing only in weights, where each release's own figure would star the
config that is worse under one definition, get the star the shared definition gives (the expected figures
computed here with ``make_metric`` on each release's partition).  A figure that cannot be computed under
the shared definition (research value of a partitioning method, a released value that is no node of the
first config's hierarchy) is n/a with the reason; a release on another hierarchy whose values are nodes of
the first config's is scored through it.  The rows of requirements, verification and generalization
levels are present with the values the configs imply, never starred, and neither is ``seconds``; help,
terminal output, JSON and page say that compare writes no release.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from anonset.cli import main
from anonset.config import load_config
from anonset.core.dataset import Dataset
from anonset.core.partition import Partition
from anonset.datasets.synthetic import patient_register
from anonset.engine.numpy.engine import NumpyEngine
from anonset.io.tables import read_arrow_table
from anonset.metrics import make_metric

#: The releases fitted here on their own warn as any release does; the tests read their warnings from compare.
pytestmark = pytest.mark.filterwarnings("ignore::anonset.errors.AnonsetWarning")

CONFIG = """
input: {{path: register.csv}}
attributes:
  patient_id: {{role: identifier}}
  age:        {{role: quasi, type: numeric, hierarchy: {{builder: intervals, widths: {widths}}}}}
  sex:        {{role: quasi, hierarchy: {{builder: flat}}}}
  zip:        {{role: quasi, hierarchy: {{builder: masking, levels: 3}}}}
  diagnosis:  {{role: sensitive}}
  race:           {{role: insensitive}}
  marital_status: {{role: insensitive}}
  education:      {{role: insensitive}}
  length_of_stay: {{role: insensitive}}
privacy: {{k: 5, max_suppression: {budget}}}
method: {{name: {method}{extra}}}
{tail}
"""


def _config(tmp_path: Path, name: str, *, method: str = "optimal", extra: str = "", budget: float = 0,
            widths: str = "[5, 10, 20, 40]", tail: str = "") -> Path:
    if not (tmp_path / "register.csv").exists():
        patient_register(1200, seed=4).to_csv(tmp_path / "register.csv", index=False)
    path = tmp_path / f"{name}.yaml"
    path.write_text(CONFIG.format(method=method, extra=extra, budget=budget, widths=widths, tail=tail),
                    encoding="utf-8")
    return path


def _compare(tmp_path: Path, *configs: Path, queries: int = 0) -> tuple[dict[str, Any], str, str]:
    """Run compare with JSON and page; the comparison, the page and the terminal output."""
    result = CliRunner().invoke(main, ["compare", *map(str, configs), "--json", str(tmp_path / "c.json"),
                                       "--report", str(tmp_path / "c.html"), "--queries", str(queries)])
    assert result.exit_code == 0, result.output
    comparison = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    return comparison, (tmp_path / "c.html").read_text(encoding="utf-8"), result.output


def _release(config: Path) -> Any:
    """The config's release, fitted here on its own (not through compare)."""
    from anonset.config import FileInput
    from anonset.runs.base import ReleaseRequest, attribute_specs, run_for

    cfg = load_config(config)
    assert isinstance(cfg.input, FileInput)
    dataset = Dataset(read_arrow_table(cfg.input.path, cfg.input.delimiter, cfg.input.format), attribute_specs(cfg))
    return run_for(cfg).anonymizer(ReleaseRequest()).fit(dataset).release_, dataset


def test_configs_differing_only_in_weights_are_starred_under_one_definition(tmp_path: Path) -> None:
    zip_first = _config(tmp_path, "zip10", extra=", weights: {zip: 10}")
    age_first = _config(tmp_path, "age10", extra=", weights: {age: 10}")
    (zip_release, dataset), (age_release, _) = _release(zip_first), _release(age_first)
    # the trap: each release's own (own-weights) loss would star age10
    assert age_release.metrics["loss"] < zip_release.metrics["loss"]
    shared = make_metric("loss", weights={"zip": 10})
    expected = [shared.score(zip_release.partition, dataset), shared.score(age_release.partition, dataset)]
    assert expected[0] < expected[1]  # under zip10's weights, zip10's release is the better one

    comparison, page, output = _compare(tmp_path, zip_first, age_first)
    rows = {row["name"]: row for row in comparison["rows"]}
    assert rows["loss"]["best"] == [0]
    assert rows["loss"]["values"] == pytest.approx(expected)
    for name in ("glm", "ncp", "gcp", "precision"):
        metric = make_metric(name, weights={"zip": 10})
        assert rows[name]["values"] == pytest.approx([metric.score(r.partition, dataset)
                                                      for r in (zip_release, age_release)])
    assert rows["weights"]["values"] == ["age 1, sex 1, zip 10", "age 10, sex 1, zip 1"]
    assert rows["weights"]["best"] == [] and rows["weights"]["comparable"] is False
    definition = comparison["metric_definition"]
    assert definition["weights"] == {"age": 1.0, "sex": 1.0, "zip": 10.0} and definition["config"] == "zip10"
    assert "utility metrics scored with the weights of zip10: age 1, sex 1, zip 10" in definition["text"]
    assert "with the weights of zip10: age 1, sex 1, zip 10" in output
    assert "with the weights of zip10: age 1, sex 1, zip 10" in page


def test_unweighted_definition_is_named(tmp_path: Path) -> None:
    plain = _config(tmp_path, "plain")
    weighted = _config(tmp_path, "weighted", extra=", weights: {age: 3}")
    release, dataset = _release(weighted)
    comparison, page, output = _compare(tmp_path, plain, weighted)
    rows = {row["name"]: row for row in comparison["rows"]}
    assert rows["loss"]["values"][1] == pytest.approx(make_metric("loss").score(release.partition, dataset))
    assert rows["loss"]["values"][1] != pytest.approx(release.metrics["loss"])  # its own figure is not shown
    assert comparison["metric_definition"]["weighted"] is False
    for text in (comparison["metric_definition"]["text"], output, page):
        assert "utility metrics scored unweighted" in text


def test_requirements_verified_and_generalization_rows(tmp_path: Path) -> None:
    full_domain = _config(tmp_path, "full", budget=0.02)
    partitioned = _config(tmp_path, "mond", method="mondrian")
    release, dataset = _release(full_domain)
    comparison, page, output = _compare(tmp_path, full_domain, partitioned)
    rows = {row["name"]: row for row in comparison["rows"]}
    assert rows["requirements"]["values"] == ["5-anonymity; suppression budget 2% (24 records)",
                                              "5-anonymity; no suppression allowed"]
    assert rows["verified"]["values"] == ["yes", "yes"]
    for q in ("age", "sex", "zip"):
        row = rows[f"{q}: generalization"]
        level, top = release.levels[q], dataset.require_hierarchy(q).max_level
        assert row["values"][0].startswith(f"level {level} of {top} ")
        assert row["values"][1].startswith("per class: ")
    assert "ranges" in rows["age: generalization"]["values"][1]  # mondrian: numeric age as per-class ranges
    assert "nodes at level" in rows["zip: generalization"]["values"][1]
    for name in ("requirements", "verified", "age: generalization", "sex: generalization", "zip: generalization"):
        assert rows[name]["best"] == [] and rows[name]["comparable"] is False
        assert name in page
    assert "5-anonymity; suppression budget 2% (24 records)" in page
    assert "level" in output and "per class" in output


def test_seconds_is_never_starred(tmp_path: Path) -> None:
    configs = [_config(tmp_path, "a"), _config(tmp_path, "b<i>&", method="mondrian"),
               _config(tmp_path, "c", method="k-member")]
    comparison, page, output = _compare(tmp_path, *configs, queries=50)
    assert "b&lt;i&gt;&amp;" in page and "b<i>" not in page  # the page escapes what it did not write itself
    rows = {row["name"]: row for row in comparison["rows"]}
    assert rows["seconds"]["best"] == [] and rows["seconds"]["comparable"] is False
    assert all(isinstance(v, float) for v in rows["seconds"]["values"])
    seconds_row = page[page.index("<b>seconds</b>"):]
    assert "★" not in seconds_row[:seconds_row.index("</tr>")]
    seconds_line = next(line for line in output.splitlines() if line.startswith("│ seconds"))
    assert "★" not in seconds_line
    assert rows["query error"]["best"]  # comparable rows still are starred


def test_compare_says_it_writes_no_release(tmp_path: Path) -> None:
    configs = [_config(tmp_path, "a", tail="output: {path: released.csv}"), _config(tmp_path, "b", method="mondrian")]
    comparison, page, output = _compare(tmp_path, *configs)
    sentence = "compare writes no release: nothing is released; run `anonset anonymize CONFIG` to write one."
    assert output.rstrip().splitlines()[-1] == sentence
    assert sentence in page
    assert comparison["note"] == sentence and comparison["released"] is False
    assert not (tmp_path / "released.csv").exists()
    help_text = " ".join(CliRunner().invoke(main, ["compare", "--help"]).output.split())
    assert "writes no release: nothing is released; run `anonset anonymize CONFIG` to write one." in help_text


def test_a_figure_the_shared_definition_cannot_give_is_na_with_the_reason(tmp_path: Path) -> None:
    rv = _config(tmp_path, "rv", extra=", metric: research_value", tail="research_value: {weights: auto}")
    partitioned = _config(tmp_path, "mond", method="mondrian")
    release, dataset = _release(rv)
    comparison, page, output = _compare(tmp_path, rv, partitioned)
    rows = {row["name"]: row for row in comparison["rows"]}
    research = rows["research_value"]
    assert research["values"][0] == pytest.approx(release.metrics["research_value"])
    assert research["values"][1] is None and "full-domain generalizations only" in research["notes"][1]
    assert research["best"] == []  # one known value is nothing to compare
    assert "n/a" in output and "full-domain generalizations only" in output
    assert "full-domain generalizations only" in page
    # the same configs the other way round: the first defines no research value, so nobody's is shown
    comparison, _, output = _compare(tmp_path, partitioned, rv)
    research = {row["name"]: row for row in comparison["rows"]}["research_value"]
    assert research["values"] == [None, None]
    assert all(note and "defines no research value" in note for note in research["notes"])


def _node_partition(dataset: Dataset, levels: dict[str, int]) -> Partition:
    """The partition of a full-domain node of ``dataset``, every class released."""
    row_class, stats = NumpyEngine(dataset).row_classes(tuple(levels[q] for q in dataset.quasi))
    return Partition.from_node(dataset.quasi, stats, np.ones(stats.n_classes, dtype=np.bool_), row_class)


def test_a_release_on_another_hierarchy_is_read_through_the_first_ones(tmp_path: Path) -> None:
    fine = _config(tmp_path, "fine")  # age: 5, 10, 20, 40 wide, then *
    coarse = _config(tmp_path, "coarse", widths="[10, 30]")
    odd = _config(tmp_path, "odd", widths="[15, 45]", extra=", weights: {age: 10}")
    _, fine_dataset = _release(fine)
    comparison, page, output = _compare(tmp_path, fine, coarse, odd, queries=50)
    rows = {row["name"]: row for row in comparison["rows"]}
    assert rows["age: hierarchy"]["values"][1].startswith("intervals(widths=[10, 30])")
    assert "read through the hierarchies of fine" in comparison["metric_definition"]["text"]
    # each release's age level, as the level of fine's hierarchy with the same bands (None: no such level)
    same_bands = [{0: 0, 1: 2, 3: 5}, {0: 0, 3: 5}]
    for i, config in ((1, coarse), (2, odd)):
        release, _ = _release(config)
        fine_level = same_bands[i - 1].get(release.levels["age"])
        if fine_level is None:
            for name in ("loss", "glm", "ncp", "precision", "total_il", "query error"):
                assert rows[name]["values"][i] is None
                assert rows[name]["notes"][i] == (f"the hierarchy of age in {config.stem} differs from that of fine,"
                                                  " and a released value of age is no node of fine's")
            assert f"the hierarchy of age in {config.stem} differs from that of fine" in page
            assert "n/a:" in output
        else:
            partition = _node_partition(fine_dataset, {**release.levels, "age": fine_level})
            for name in ("loss", "precision", "total_il"):
                assert rows[name]["values"][i] == pytest.approx(make_metric(name).score(partition, fine_dataset))
            if release.levels["age"] != fine_level:  # its own precision counts levels of its own hierarchy
                assert rows["precision"]["values"][i] != pytest.approx(release.metrics["precision"])
        for name in ("discernibility", "aecs"):  # the class structure alone: no hierarchy read
            assert rows[name]["values"][i] == pytest.approx(release.metrics[name])
    assert any(row["values"][2] is None for row in comparison["rows"] if row["name"] == "loss"), (
        "odd's release keeps age in 15-wide bands, which fine's hierarchy lacks")


def test_each_releases_warnings_are_in_its_column_and_the_last_line_stays(tmp_path: Path) -> None:
    plain = _config(tmp_path, "plain")
    useless = _config(tmp_path, "useless")
    useless.write_text(useless.read_text(encoding="utf-8").replace("k: 5,", "k: 1000,"), encoding="utf-8")
    comparison, page, output = _compare(tmp_path, plain, useless)
    said = comparison["warnings"][1]
    assert any(text.startswith("the release is useless for analysis") for text in said)
    rows = {row["name"]: row for row in comparison["rows"]}
    count = len(said)
    assert rows["warnings"]["values"][1] == f"{count} warning{'s' if count != 1 else ''}"
    assert rows["warnings"]["best"] == [] and rows["warnings"]["comparable"] is False
    lines = output.rstrip().splitlines()
    assert lines[-1] == "compare writes no release: nothing is released; run `anonset anonymize CONFIG` to write one."
    body = " ".join(" ".join(lines[:-1]).split())
    for text in said:
        assert f"useless: {' '.join(text.split())}" in body
    assert "the release is useless for analysis" in page
