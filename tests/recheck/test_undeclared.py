"""Columns the configuration does not name: refused when they could single someone out, in every interface.

A notebook user released a nearly unique medical record number column
unchanged (the only trace was a string in ``release_.warnings``), and a
free-text remark naming 8 of 200 patients passed without a word.  Each test
builds such a column and checks the refusal (CLI: exit 2, one line, nothing
written; Python: ``UndeclaredColumnError``) on every engine, and that
declaring the column, and only that, releases it.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner, Result

from anonset import AnonsetWarning, Anonymizer, InputError, KAnonymity, Requirements, UndeclaredColumnError
from anonset.cli import main
from anonset.engine.sql.engine import SqlEngine
from anonset.engine.sql.postgres import PostgresBackend
from anonset.engine.sql.profile import dataset_from_table
from anonset.recheck.verify import verify_release
from support import PG_URL, PgSchema

ATTRIBUTES = {
    "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [10, 20]}},
    "sex": {"role": "quasi"},
    "diagnosis": {"role": "sensitive"},
}


def admissions(n: int = 400, seed: int = 3) -> pd.DataFrame:
    """Admissions with a nearly unique record number (``mrn``), a rare remark and a splitting ward, all undeclared."""
    rng = np.random.default_rng(seed)
    remark = np.full(n, "", dtype=object)
    remark[rng.choice(n, 8, replace=False)] = [f"Patient {i}, SSN 123-45-{i:04d}" for i in range(8)]
    return pd.DataFrame({
        "mrn": [f"MRN{v:07d}" for v in rng.permutation(n)],
        "age": rng.integers(20, 80, n).astype(str),
        "sex": rng.choice(["F", "M"], n),
        "remark": remark,
        "ward": rng.choice([f"w{i}" for i in range(8)], n),  # every ward holds ~50 records, yet splits classes
        "diagnosis": rng.choice(["flu", "cold", "hiv", "asthma"], n),
    })


def requirements() -> Requirements:
    return Requirements([KAnonymity(5)], max_suppression=0.02)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def write_project(tmp_path: Path, table: pd.DataFrame, engine: str = "numpy", declared: str = "") -> Path:
    table.to_csv(tmp_path / "adm.csv", index=False)
    config = tmp_path / "run.yaml"
    config.write_text(
        "input: {path: adm.csv}\n"
        "attributes:\n"
        "  age: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [10, 20]}}\n"
        "  sex: {role: quasi}\n"
        "  diagnosis: {role: sensitive}\n" + declared +
        f"privacy: {{k: 5, max_suppression: 0.02}}\nengine: {engine}\noutput: {{path: out.csv}}\n")
    return config


def refused_one_line(result: Result, column: str) -> str:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    line = errors[0]
    assert f"column {column!r}" in line and "not named in the configuration" in line
    assert "role: identifier" in line and "role: insensitive" in line and "role: quasi" in line
    return line


# ------------------------------------------------------------------ the CLI, on every engine
@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_nearly_unique_record_number_is_refused(tmp_path: Path, engine: str) -> None:
    table = admissions()[["mrn", "age", "sex", "diagnosis"]]
    config = write_project(tmp_path, table, engine)
    line = refused_one_line(run("anonymize", str(config), "-q"), "mrn")
    assert "nearly unique" in line and "400 distinct values in 400 records" in line
    assert "MRN" not in line.replace("'mrn'", "")  # no value of the column is quoted
    assert not (tmp_path / "out.csv").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_remark_that_names_a_few_patients_is_refused(tmp_path: Path, engine: str) -> None:
    table = admissions()[["age", "sex", "remark", "diagnosis"]]
    config = write_project(tmp_path, table, engine)
    line = refused_one_line(run("anonymize", str(config), "-q"), "remark")
    assert "8 of its non-empty values are held by fewer than 5 records each" in line
    assert "SSN" not in line and "Patient" not in line
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_column_that_splits_the_released_classes_is_refused(tmp_path: Path, engine: str) -> None:
    table = admissions()[["age", "sex", "ward", "diagnosis"]]
    assert table["ward"].value_counts().min() >= 5  # no rare value: only the groups beside the classes are small
    config = write_project(tmp_path, table, engine)
    line = refused_one_line(run("anonymize", str(config), "-q"), "ward")
    assert "groups smaller than 5" in line
    assert not (tmp_path / "out.csv").exists()


def test_allow_unprotected_does_not_release_it(tmp_path: Path) -> None:
    config = write_project(tmp_path, admissions()[["mrn", "age", "sex", "diagnosis"]])
    refused_one_line(run("anonymize", str(config), "-q", "--allow-unprotected"), "mrn")


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_declaring_the_columns_releases_them(tmp_path: Path, engine: str) -> None:
    table = admissions()
    config = write_project(tmp_path, table, engine, declared="  mrn: {role: identifier}\n"
                           "  remark: {role: insensitive}\n  ward: {role: quasi}\n")
    result = run("anonymize", str(config), "-q")
    assert result.exit_code == 0, result.stderr
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert "mrn" not in out.columns and len(out) == len(table)
    assert (out["remark"].to_numpy() == table["remark"].to_numpy()).all()
    assert "not named" not in result.stderr
    # the release is k-anonymous with the ward among the quasi-identifiers (recomputed from the file)
    kept = out[~(out[["age", "sex", "ward"]] == "*").all(axis=1)]
    assert kept.groupby(["age", "sex", "ward"]).size().min() >= 5


def test_an_undeclared_column_that_singles_out_nobody_is_released_with_a_warning(tmp_path: Path) -> None:
    table = admissions()[["age", "sex", "diagnosis"]].assign(site="main")
    config = write_project(tmp_path, table)
    result = run("anonymize", str(config), "-q")
    assert result.exit_code == 0, result.stderr
    assert "warning: column 'site' is not named in the configuration and is released unchanged" in result.stderr
    assert (pd.read_csv(tmp_path / "out.csv", dtype=str)["site"] == "main").all()


# ------------------------------------------------------------------ the Python API
def test_the_api_refuses_a_record_number_with_an_input_error() -> None:
    table = admissions()[["mrn", "age", "sex", "diagnosis"]]
    model = Anonymizer(ATTRIBUTES, requirements(), allow_unprotected=True)
    with pytest.raises(UndeclaredColumnError, match="column 'mrn': not named in the configuration") as caught:
        model.fit(table)
    assert isinstance(caught.value, InputError)
    released = Anonymizer({**ATTRIBUTES, "mrn": {"role": "identifier"}}, requirements()).fit(table).release_
    assert released.table is not None and "mrn" not in released.table.columns


def test_transform_refuses_a_new_batch_whose_undeclared_column_singles_out_records() -> None:
    table = admissions()[["age", "sex", "diagnosis"]].assign(site="main")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonsetWarning)
        model = Anonymizer(ATTRIBUTES, requirements()).fit(table)
    batch = table.copy()
    batch.loc[batch.index[:2], "site"] = "annex"  # two records of a new site
    with pytest.raises(UndeclaredColumnError, match="column 'site'"):
        model.transform(batch)


def test_the_warning_of_a_harmless_undeclared_column_reaches_python() -> None:
    table = admissions()[["age", "sex", "diagnosis"]].assign(site="main")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = Anonymizer(ATTRIBUTES, requirements()).fit(table).release_
    messages = [str(w.message) for w in caught if issubclass(w.category, AnonsetWarning)]
    assert any("column 'site' is not named" in m for m in messages), messages
    assert any("column 'site' is not named" in m for m in release.warnings)
    assert caught[0].filename == __file__  # the warning points at the caller's line, not into anonset


# ------------------------------------------------------------------ PostgreSQL
def test_postgresql_refuses_the_record_number_and_leaves_no_table() -> None:
    schema = PgSchema(PG_URL)
    try:
        table = admissions()[["mrn", "age", "sex", "diagnosis"]]
        where = schema.load(table, "adm")
        out = (schema.name, "adm_released")
        with PostgresBackend(PG_URL) as db:
            dataset = dataset_from_table(db, where, ATTRIBUTES)
            with SqlEngine(dataset, requirements().request, db, where) as engine:
                model = Anonymizer({}, requirements(), output_table=out)
                with pytest.raises(UndeclaredColumnError, match="column 'mrn': not named"):
                    model.fit(dataset, engine=engine)
        assert schema.tables() == {"adm"}  # the staged release was dropped, nothing placed
        with PostgresBackend(PG_URL) as db:
            dataset = dataset_from_table(db, where, {**ATTRIBUTES, "mrn": {"role": "identifier"}})
            with SqlEngine(dataset, requirements().request, db, where) as engine:
                Anonymizer({}, requirements(), output_table=out).fit(dataset, engine=engine)
        released = schema.fetch("adm_released")
        assert "mrn" not in released.columns
        report = verify_release(released, Anonymizer(ATTRIBUTES, requirements()).fit(table.drop(columns="mrn"))
                                .dataset_, requirements(), len(table))
        assert report.ok, report.problems
    finally:
        schema.close()


# ------------------------------------------------------------------ Parquet columns that are not single values
def test_parquet_lists_and_bytes_are_refused_or_checked_in_one_line(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = admissions()[["age", "sex", "diagnosis"]]
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    arrow = arrow.append_column("tags", pa.array([[1, 2]] * len(table)))
    arrow = arrow.append_column("blob", pa.array([b"\x00\xff"] * len(table), type=pa.binary()))
    pq.write_table(arrow, tmp_path / "adm.parquet")
    base = ("input: {path: adm.parquet}\nattributes:\n"
            "  age: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [10, 20]}}\n"
            "  sex: {role: quasi}\n  diagnosis: {role: sensitive}\n")
    tail = "privacy: {k: 5, max_suppression: 0.02}\noutput: {path: out.parquet}\n"
    config = tmp_path / "run.yaml"
    config.write_text(base + "  tags: {role: quasi}\n  blob: {role: insensitive}\n" + tail)
    result = run("anonymize", str(config), "-q")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "column 'tags': its values are list" in result.stderr and "cannot be a quasi-identifier" in result.stderr
    config.write_text(base + "  blob: {role: insensitive}\n" + tail)  # tags undeclared: refused, never released
    refused_one_line(run("anonymize", str(config), "-q"), "tags")
    config.write_text(base + "  tags: {role: identifier}\n" + tail)  # bytes undeclared, one value: a warning
    result = run("anonymize", str(config), "-q")
    assert result.exit_code == 0, result.stderr
    assert "column 'blob' is not named" in result.stderr
