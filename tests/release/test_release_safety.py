"""Safe by default: no unprotected release, no destroyed file, outputs written together or not at all.

Each test here reproduces a way a run used to write raw records, overwrite
an input or leave a partial output behind, and checks the refusal (exit 2,
one line, nothing written) or the warning that now comes instead.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner, Result

from anonset import Anonymizer, ConfigError, KAnonymity, Requirements
from anonset.cli import main
from anonset.io.tables import write_table
from anonset.methods import registry
from anonset.methods.base import Family
from anonset.recheck.verify import classes_of_table
from support import SHARED, matched_by_hand, random_table, registered

CMC = SHARED / "data" / "cmc" / "cmc.csv"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def one_line_error(result: Result, *facts: str) -> None:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fact in facts:
        assert fact in lines[0], (fact, lines[0])


def project(tmp_path: Path, privacy: str = "{k: 3}", method: str = "optimal", output: str | None = "out.csv",
            extra_attributes: str = "", n: int = 300, seed: int = 1, delimiter: str = ",",
            numeric_x: bool = False) -> Path:
    """A random table with three quasi-identifiers (hierarchy files), a sensitive column and a config.

    ``numeric_x``: a fourth, numeric quasi-identifier ``x`` (0-49).
    """
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, n, 3, n_sensitive_values=5)
    if numeric_x:
        extra_attributes += "  x: {role: quasi, type: numeric}\n"
    else:
        table = table.drop(columns=["x"])
    write_table(table, tmp_path / "t.csv", delimiter=delimiter)
    for q, h in hierarchies.items():
        (tmp_path / f"{q}.csv").write_text("\n".join(";".join(row) for row in h.rows()) + "\n")
    config = tmp_path / "run.yaml"
    config.write_text("input: {path: t.csv}\n"
                      "attributes:\n"
                      + "".join(f"  {q}: {{role: quasi, hierarchy: {q}.csv}}\n" for q in hierarchies)
                      + "  s: {role: sensitive}\n" + extra_attributes
                      + f"privacy: {privacy}\nmethod: {method}\n"
                      + (f"output: {{path: {output}}}\n" if output else ""))
    return config


# ------------------------------------------------------------------ trade-off fronts never release raw data
@pytest.mark.skipif(not CMC.exists(), reason=f"shared cmc data not present at {CMC}")
def test_pareto_without_pick_or_floor_writes_nothing(tmp_path: Path) -> None:
    """On cmc, member 0 of the front is the input itself: it was written, byte for byte, with exit 0."""
    config = tmp_path / "p.yaml"
    body = (f"input: {{path: {CMC}}}\n"
            "attributes:\n"
            "  wife_age: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [5, 10, 20]}}\n"
            "  wife_education: {role: quasi, hierarchy: {builder: flat}}\n"
            "  husband_education: {role: quasi, hierarchy: {builder: flat}}\n"
            "  children_born: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [2, 4, 8]}}\n"
            "  contraceptive_method_use: {role: sensitive}\n"
            "privacy: {max_suppression: 0.05}\n"
            "method: {name: pareto-exhaustive}\n")
    config.write_text(body + "output: {path: out.csv}\n")
    result = run("anonymize", str(config), "-q")
    one_line_error(result, "--pick N", "privacy.k")
    assert not (tmp_path / "out.csv").exists()

    config.write_text(body)  # no output: the front is shown, nothing is released
    result = run("anonymize", str(config))
    assert result.exit_code == 0, result.stderr
    assert "front:" in result.stdout and "(released)" not in result.stdout
    assert "no member released" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.yaml"]


def test_pareto_floor_releases_the_least_loss_member_that_meets_it(tmp_path: Path) -> None:
    config = project(tmp_path, privacy="{k: 4, max_suppression: 0.05}", method="{name: pareto-exhaustive}")
    result = run("anonymize", str(config), "--summary", str(tmp_path / "s.json"), "-q")
    assert result.exit_code == 0, result.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    front = summary["front"]
    meeting = [i for i, m in enumerate(front) if m["objectives"]["k"] >= 4]
    best = min(meeting, key=lambda i: front[i]["objectives"]["glm"])
    assert summary["search"]["picked"] == best and summary["search"]["chosen_by"] == "floor"
    assert summary["levels"] == front[best]["levels"]
    # independently: the written release is k-anonymous with k >= 4 outside the suppressed records
    out = pd.read_csv(tmp_path / "out.csv", dtype=str)
    quasi = ["q0", "q1", "q2"]
    kept = out[~(out[quasi] == "*").all(axis=1)]
    assert kept.groupby(quasi).size().min() >= 4
    assert len(out) - len(kept) <= 0.05 * len(out)


def test_pareto_pick_of_a_one_anonymous_member_needs_allow_unprotected(tmp_path: Path) -> None:
    config = project(tmp_path, privacy="{max_suppression: 0.05}", method="{name: pareto-exhaustive}")
    result = run("anonymize", str(config), "--pick", "0", "-q")
    one_line_error(result, "1-anonymous", "--allow-unprotected")
    assert not (tmp_path / "out.csv").exists()
    result = run("anonymize", str(config), "--pick", "0", "-q", "--allow-unprotected")
    assert result.exit_code == 0, result.stderr
    # asked for by name: the raw quasi-identifiers are released
    assert pd.read_csv(tmp_path / "out.csv", dtype=str).equals(pd.read_csv(tmp_path / "t.csv", dtype=str))


def test_pareto_floor_below_the_pick_is_refused(tmp_path: Path) -> None:
    config = project(tmp_path, privacy="{k: 4, max_suppression: 0.05}", method="{name: pareto-exhaustive}")
    result = run("anonymize", str(config), "--pick", "0", "-q")
    one_line_error(result, "--pick 0", "below the floor k >= 4")


def test_requirements_that_protect_nothing_are_refused() -> None:
    with pytest.raises(ConfigError, match="protect nothing"):
        Anonymizer({}, Requirements([KAnonymity(1)]))
    Anonymizer({}, Requirements([KAnonymity(1)]), allow_unprotected=True)


def test_no_quasi_identifier_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("a,b\n1,x\n2,y\n")
    (tmp_path / "run.yaml").write_text("input: t.csv\nattributes: {b: {role: sensitive}}\nprivacy: {k: 2}\n"
                                       "output: {path: out.csv}\n")
    result = run("anonymize", str(tmp_path / "run.yaml"))
    one_line_error(result, "no attribute has role quasi")
    assert not (tmp_path / "out.csv").exists()


# ------------------------------------------------------------------ warnings a custodian must see
def test_a_release_that_generalizes_everything_says_so_and_why(tmp_path: Path) -> None:
    config = project(tmp_path, privacy="{k: 300}", n=300)  # k = the table's size
    result = run("anonymize", str(config), "-q", "--summary", str(tmp_path / "s.json"))
    assert result.exit_code == 0, result.stderr
    assert "warning: the release is useless for analysis" in result.stderr
    assert "300-anonymity allows no finer release" in result.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert any("useless" in w for w in summary["warnings"])


def test_a_useful_release_has_no_such_warning(tmp_path: Path) -> None:
    config = project(tmp_path, privacy="{k: 2}")
    result = run("anonymize", str(config), "-q")
    assert result.exit_code == 0 and result.stderr == "", result.stderr


def test_a_config_without_output_says_nothing_was_written(tmp_path: Path) -> None:
    config = project(tmp_path, output=None)
    result = run("anonymize", str(config), "-q")
    assert result.exit_code == 0
    assert "the release was not written" in result.stderr


# ------------------------------------------------------------------ outputs never destroy inputs
@pytest.mark.parametrize("where", ["input", "config", "hierarchy"])
@pytest.mark.parametrize("which", ["output", "summary"])
def test_an_output_on_an_input_is_refused_before_any_work(tmp_path: Path, where: str, which: str) -> None:
    config = project(tmp_path)
    victim = {"input": tmp_path / "t.csv", "config": config, "hierarchy": tmp_path / "q1.csv"}[where]
    before = victim.read_bytes()
    args = ["anonymize", str(config), "-o" if which == "output" else "--summary", str(victim)]
    result = run(*args)
    one_line_error(result, str(victim), "never writes over its inputs")
    assert victim.read_bytes() == before
    assert not (tmp_path / "out.csv").exists()


def test_summary_on_the_release_is_refused(tmp_path: Path) -> None:
    config = project(tmp_path)
    result = run("anonymize", str(config), "--summary", str(tmp_path / "out.csv"))
    one_line_error(result, "the same file")
    assert not (tmp_path / "out.csv").exists()


def test_an_output_folder_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    config = project(tmp_path, output="relaese/out.csv")
    result = run("anonymize", str(config))
    one_line_error(result, "relaese", "does not exist")
    assert not (tmp_path / "relaese").exists()


def test_dash_is_standard_output_and_the_report_goes_to_stderr(tmp_path: Path) -> None:
    config = project(tmp_path)
    result = run("anonymize", str(config), "--summary", "-")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["output"] == str(tmp_path / "out.csv") and summary["verified"] is True
    assert "release summary" in result.stderr
    assert not (tmp_path / "-").exists()
    result = run("anonymize", str(config), "-o", "-", "-q")
    released = pd.read_csv(__import__("io").StringIO(result.stdout), dtype=str)
    assert len(released) == 300 and set(released.columns) == {"q0", "q1", "q2", "s"}


def test_a_named_pipe_stays_a_pipe(tmp_path: Path) -> None:
    """Rename-into-place replaced special files (``/dev/stdout`` became a regular file)."""
    config = project(tmp_path)
    fifo = tmp_path / "summary.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = run("anonymize", str(config), "--summary", str(fifo), "-q")
    reader.join(timeout=30)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert json.loads(received[0])["verified"] is True


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full is not available")
def test_a_failing_summary_leaves_no_release_behind(tmp_path: Path) -> None:
    config = project(tmp_path)
    result = run("anonymize", str(config), "--summary", "/dev/full", "-q")
    one_line_error(result, "/dev/full", "No space left")
    assert not (tmp_path / "out.csv").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    assert stat.S_ISCHR(Path("/dev/full").stat().st_mode)


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_created_files_follow_the_umask(tmp_path: Path, mask: int) -> None:
    config = project(tmp_path)
    old = os.umask(mask)
    try:
        result = run("anonymize", str(config), "--summary", str(tmp_path / "s.json"), "-q")
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.stderr
    for name in ("out.csv", "s.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~mask


# ------------------------------------------------------------------ what the release says
def test_the_release_keeps_a_sniffed_delimiter(tmp_path: Path) -> None:
    config = project(tmp_path, delimiter=";")
    result = run("anonymize", str(config), "-q")
    assert result.exit_code == 0, result.stderr
    header = (tmp_path / "out.csv").read_text().splitlines()[0]
    assert header == "q0;q1;q2;s"


def test_a_two_character_output_delimiter_is_refused_before_any_work(tmp_path: Path) -> None:
    config = project(tmp_path)
    config.write_text(config.read_text().replace("output: {path: out.csv}", "output: {path: out.csv, delimiter: ';;'}"))
    result = run("anonymize", str(config))
    one_line_error(result, "output.delimiter", "single character")


@pytest.mark.parametrize("method", [f"{{name: {n}, strict: false}}" if registry.get(n).option("strict") else n
                                    for n in registered(Family.GROUPING)])
def test_summary_classes_are_those_of_the_released_table(tmp_path: Path, method: str) -> None:
    """Clusters that receive the same released values are one class of the release."""
    numeric = method == "microaggregation"  # it aggregates a numeric quasi-identifier
    for seed in range(4):
        config = project(tmp_path, method=method, seed=seed, n=120, numeric_x=numeric)
        result = run("anonymize", str(config), "--summary", str(tmp_path / "s.json"), "-q")
        assert result.exit_code == 0, result.stderr
        summary = json.loads((tmp_path / "s.json").read_text())
        out = pd.read_csv(tmp_path / "out.csv", dtype=str)
        quasi = ("q0", "q1", "q2", "x") if numeric else ("q0", "q1", "q2")
        sizes = np.bincount(classes_of_table(out, quasi))
        assert summary["classes"] == len(sizes)
        if method == "local-suppression":  # blanks match any value: the fewest records a record matches
            assert summary["min_class_size"] == matched_by_hand(out, quasi).min()
        else:
            assert summary["min_class_size"] == sizes.min()


def test_pick_is_refused_for_methods_with_one_release(tmp_path: Path) -> None:
    config = project(tmp_path)
    result = run("anonymize", str(config), "--pick", "1")
    one_line_error(result, "returns one release")


def test_duplicate_yaml_keys_are_refused(tmp_path: Path) -> None:
    config = project(tmp_path)
    config.write_text(config.read_text() + "privacy: {k: 9}\n")
    one_line_error(run("anonymize", str(config)), "'privacy' appears twice")


def test_a_config_path_that_is_a_folder_is_one_line(tmp_path: Path) -> None:
    one_line_error(run("anonymize", str(tmp_path)), "is a directory")


def test_a_row_level_metric_is_not_offered_for_the_search(tmp_path: Path) -> None:
    config = project(tmp_path, method="{name: optimal, metric: non_uniform_entropy}")
    result = run("anonymize", str(config))
    one_line_error(result, "cannot guide the search")
    assert "non_uniform_entropy" not in result.stderr.split("use one of")[1]


def _without_timings(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_a_duckdb_run_gives_the_same_summary_twice(tmp_path: Path) -> None:
    config = project(tmp_path, privacy="{k: 3, max_suppression: 0.02}")
    config.write_text(config.read_text() + "engine: duckdb\n")
    summaries = []
    for name in ("a.json", "b.json"):
        result = run("anonymize", str(config), "--summary", str(tmp_path / name), "-q")
        assert result.exit_code == 0, result.stderr
        summaries.append(json.loads((tmp_path / name).read_text()))
    assert _without_timings(summaries[0]) == _without_timings(summaries[1])
    assert "output_table" not in summaries[0]["provenance"]
    assert summaries[0]["output"] == str(tmp_path / "out.csv")


@pytest.mark.parametrize("method", ["optimal", *registered(Family.GROUPING)])
def test_transform_refuses_records_the_fitted_recoding_does_not_cover(method: str) -> None:
    """Every method alike: an unseen category, or a number beyond the fitted range, is one error naming it."""
    from anonset.errors import DataError, HierarchyError

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"age": rng.integers(20, 60, 200).astype(str), "sex": rng.choice(["M", "F"], 200),
                          "d": rng.choice(list("abc"), 200)})
    age: dict = {"role": "quasi", "type": "numeric"}
    if method in ("optimal", "local-suppression"):  # both release hierarchy nodes
        age["hierarchy"] = {"builder": "intervals", "widths": [10, 20]}
    attrs = {"age": age, "sex": {"role": "quasi"}, "d": {"role": "sensitive"}}
    model = Anonymizer(attrs, Requirements([KAnonymity(2)]), method=method).fit(table)
    new = table.head(6).copy()
    new.loc[0, "sex"] = "X"
    with pytest.raises(HierarchyError, match=r"does not cover.*'sex'.*'X'"):
        model.transform(new, return_release=True)
    new = table.head(6).copy()
    new.loc[0, "age"] = "150"
    with pytest.raises((DataError, HierarchyError), match=r"'age'.*'150'"):
        model.transform(new, return_release=True)


def test_a_wrong_delimiter_is_named(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("a;b;c\n1;x;p\n2;y;q\n")
    (tmp_path / "run.yaml").write_text("input: {path: t.csv, delimiter: ','}\n"
                                       "attributes: {a: {role: quasi, type: numeric}}\nprivacy: {k: 2}\n")
    one_line_error(run("anonymize", str(tmp_path / "run.yaml")), "'a' is not in the data",
                   "set input.delimiter: ';'")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full is not available")
def test_a_failing_summary_removes_a_new_postgresql_release(tmp_path: Path) -> None:
    """The table was written, then the summary failed: the run exits 2 and the new table is gone."""
    from support import PG_URL, PgSchema, pg_random_project

    pg = PgSchema(PG_URL)
    try:
        config, name = pg_random_project(pg, tmp_path, "table: {schema}.released")
        result = run("anonymize", str(config), "--summary", "/dev/full", "-q")
        one_line_error(result, "/dev/full", "No space left")
        assert pg.tables() == {name}
        result = run("anonymize", str(config), "-q")
        assert result.exit_code == 0, result.stderr
        assert pg.tables() == {name, "released"}
    finally:
        pg.close()


def test_interval_labels_contain_every_value_of_their_class() -> None:
    """A bound like 40000.25 is written in full: six significant digits would give a range that misses it."""
    import numpy as np

    from anonset.core.dataset import Dataset
    from anonset.core.partition import Intervals
    from anonset.release.release import class_labels

    table = pd.DataFrame({"x": ["87.95", "40000.25", "123456.789"]})
    dataset = Dataset(table, {"x": {"role": "quasi", "type": "numeric"}})
    labels = class_labels(dataset, "x", Intervals(np.array([87.95, 123456.789]), np.array([40000.25, 123456.789])))
    assert list(labels) == ["[87.95, 40000.25]", "123456.789"]
