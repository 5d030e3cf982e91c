"""Anonymizing a table inside PostgreSQL (and a file inside DuckDB), end to end through the CLI and the API.

The synthetic patient register (3,000 records) is loaded into a schema of its
own with COPY and repeated 50 times inside the database (150,000 records, k
scaled by 50), so that the table is large next to its class tables, as a real
register is: the records never travel, only value counts and class tables do.
The DuckDB runs read the same 150,000 records from a CSV file.  Every release
is fetched back and re-checked by the pandas verifier, and compared with the
numpy engine's release of the same records.

PostgreSQL tests skip with the reason when the server is unreachable
(ANONSET_TEST_PG_URL overrides ``postgresql://postgres@127.0.0.1:5432/test``);
everything they create lives in the test schema, dropped at teardown.
"""

from __future__ import annotations

import copy
import json
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner, Result

from anonset.anonymizer import Anonymizer
from anonset.cli import main
from anonset.config import parse_config, requirements_from_config
from anonset.core.dataset import Dataset
from anonset.datasets import patient_register, patient_register_attributes
from anonset.engine.sql.engine import SqlEngine
from anonset.engine.sql.postgres import PostgresBackend
from anonset.engine.sql.profile import dataset_from_table
from anonset.errors import ConfigError, DataError
from anonset.io.tables import read_table, write_table
from anonset.privacy import DistinctLDiversity, KAnonymity, Requirements
from anonset.recheck.verify import VerificationReport, verify_release
from anonset.sinks.database import verify_table
from support import PG_URL, PgSchema

BASE_ROWS = 3000
REPEAT = 50
N_ROWS = BASE_ROWS * REPEAT
QUASI = ("age", "sex", "zip", "marital_status", "education")
EDUCATION = ["Preschool", "Primary", "Lower secondary", "Upper secondary", "Post-secondary", "Bachelor", "Master",
             "Doctorate"]
MARITAL_HIERARCHY = ("Never-married;Never married;*\nMarried;Currently married;*\nSeparated;Currently married;*\n"
                     "Divorced;Formerly married;*\nWidowed;Formerly married;*\n")
PASSWORD = "s3cr3t-pw"

#: method name -> (method section, privacy section for the 150,000 records)
METHODS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "rv-global": ({"name": "rv-global"}, {"k": 5 * REPEAT, "max_suppression": 0.01}),
    "optimal-ldiv": ({"name": "optimal"}, {"k": 5 * REPEAT, "l_diversity": {"attribute": "diagnosis", "l": 2},
                                           "max_suppression": 0.02}),
}


def attributes(marital: str) -> dict[str, Any]:
    """The register's attributes as a config writes them (builders, and the hierarchy file ``marital``)."""
    return {
        "patient_id": {"role": "identifier"},
        "age": {"role": "quasi", "type": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [5, 10, 20, 40], "start": 0, "top": 100}},
        "sex": {"role": "quasi"},
        "zip": {"role": "quasi", "hierarchy": {"builder": "masking", "levels": 3}},
        "marital_status": {"role": "quasi", "hierarchy": marital},
        "education": {"role": "quasi", "type": "ordinal",
                      "hierarchy": {"builder": "ordered", "fanouts": [2, 2], "order": EDUCATION}},
        "diagnosis": {"role": "sensitive"},
        # released as they are, on purpose (an undeclared column that could single people out is refused)
        "race": {"role": "insensitive"},
        "length_of_stay": {"role": "insensitive"},
    }


def make_config(inp: dict[str, Any], output: dict[str, Any] | None, method: str = "optimal-ldiv", *,
                marital: str | Path = "marital.csv", **extra: Any) -> dict[str, Any]:
    """A run configuration of the register (``extra`` adds or overrides top-level keys)."""
    section, privacy = METHODS[method]
    config: dict[str, Any] = {"input": inp, "attributes": attributes(str(marital)), "privacy": copy.deepcopy(privacy),
                              "method": dict(section), **extra}
    if output is not None:
        config["output"] = output
    return config


def write_config(directory: Path, config: dict[str, Any], name: str | None = None) -> Path:
    """A YAML config in ``directory`` (JSON is YAML)."""
    path = directory / (name or f"run_{secrets.token_hex(3)}.yaml")
    path.write_text(json.dumps(config, indent=1), encoding="utf-8")
    return path


def run(config: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["anonymize", str(config), *args])


def one_line_error(result: Result) -> str:
    """The single stderr line of a bad-input exit (code 2, nothing on stdout)."""
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert result.stdout == ""
    return lines[0]


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def register() -> pd.DataFrame:
    return patient_register(BASE_ROWS)


@pytest.fixture(scope="module")
def big(register: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([register] * REPEAT, ignore_index=True)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, register: pd.DataFrame, big: pd.DataFrame) -> Path:
    """A folder with the hierarchy file, the register (``small.csv``) and the repeated register (``patients.csv``)."""
    folder = tmp_path_factory.mktemp("project")
    (folder / "marital.csv").write_text(MARITAL_HIERARCHY, encoding="utf-8")
    write_table(register, folder / "small.csv", delimiter=";")
    write_table(big, folder / "patients.csv", delimiter=";")
    return folder


@pytest.fixture(scope="module")
def pg(register: pd.DataFrame) -> Iterator[PgSchema]:
    """The test schema with ``register`` (COPY of the 3,000 records) and ``patients`` (them, 50 times)."""
    schema = PgSchema(PG_URL)
    schema.load(register, "register")
    schema.con.execute(f'CREATE TABLE "{schema.name}".patients AS SELECT r.* FROM "{schema.name}".register AS r'
                       f" CROSS JOIN generate_series(1, {REPEAT}) AS g")
    yield schema
    schema.close()


@pytest.fixture(scope="module")
def reference(big: pd.DataFrame) -> Dataset:
    """The repeated register in memory, for the pandas verifier."""
    attrs: dict[str, Any] = {q: {"role": "quasi"} for q in QUASI}
    attrs.update({"diagnosis": {"role": "sensitive"}, "patient_id": {"role": "identifier"}})
    return Dataset(big, attrs, source="reference")


@pytest.fixture(scope="module")
def numpy_summary(project: Path) -> Callable[[str], dict[str, Any]]:
    """The numpy engine's summary of each method on ``patients.csv`` (computed once per method)."""
    cache: dict[str, dict[str, Any]] = {}

    def get(method: str) -> dict[str, Any]:
        if method not in cache:
            config = write_config(project, make_config({"path": "patients.csv", "delimiter": ";"}, None, method))
            summary = project / f"numpy_{method}.json"
            result = run(config, "--quiet", "--summary", str(summary))
            assert result.exit_code == 0, result.output
            cache[method] = json.loads(summary.read_text())
        return cache[method]

    return get


def pg_input(pg: PgSchema, table: str = "patients", url: str | None = None) -> dict[str, Any]:
    return {"sql": {"url": url or pg.url, "table": f"{pg.name}.{table}"}}


# --------------------------------------------------------------------------- end to end
@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("engine", ["postgresql", "duckdb"])
def test_cli_releases_inside_the_engine(engine: str, method: str, request: pytest.FixtureRequest, project: Path,
                                        tmp_path: Path, reference: Dataset,
                                        numpy_summary: Callable[[str], dict[str, Any]]) -> None:
    """150,000 records: the release is written by the engine, verified, equal to numpy's, rows never fetched."""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    before: set[str] = set()
    if engine == "postgresql":
        pg: PgSchema = request.getfixturevalue("pg")
        out_table = f"released_{method.replace('-', '_')}_{secrets.token_hex(3)}"
        before = pg.tables()
        config = make_config(pg_input(pg), {"table": f"{pg.name}.{out_table}"}, method,
                             marital=project / "marital.csv")
    else:
        out_path = out_dir / "released.csv"
        config = make_config({"path": str(project / "patients.csv"), "delimiter": ";"}, {"path": str(out_path)},
                             method, marital=project / "marital.csv", engine="duckdb")
    summary_path = out_dir / "summary.json"
    result = run(write_config(tmp_path, config), "--summary", str(summary_path))
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert "rows fetched" in result.stdout and f"{engine}" in result.stdout
    summary = json.loads(summary_path.read_text())

    assert summary["engine"] == engine
    assert summary["rows"] == N_ROWS and summary["verified"] is True
    assert summary["rows_fetched"] < N_ROWS / 5, summary["rows_fetched"]
    rows_stay = "needs record-level rows, which stay in the database"
    assert summary["metrics_omitted"] == {"non_uniform_entropy": rows_stay, "kl_divergence": rows_stay}
    assert "non_uniform_entropy" not in summary["metrics"] and "kl_divergence" not in summary["metrics"]
    if method == "rv-global":
        assert summary["frequency_sets"] >= 1 and summary["success_list"]
    else:
        assert summary["search"]["nodes_checked"] >= 1

    if engine == "postgresql":
        assert summary["output"].endswith(f"table {pg.name}.{out_table}")
        assert pg.tables() == before | {out_table}  # the release, and no temporary leftovers
        released = pg.fetch(out_table)
    else:
        assert summary["output"] == str(out_path)
        assert sorted(p.name for p in out_dir.iterdir()) == ["released.csv", "summary.json"]
        released = read_table(out_path, ";")
    assert len(released) == N_ROWS and "patient_id" not in released.columns
    requirements = requirements_from_config(METHODS[method][1])
    report = verify_release(released, reference, requirements, n_input_rows=N_ROWS)
    assert report.ok, report.problems
    assert report.min_class_size >= 5 * REPEAT

    expected = numpy_summary(method)
    assert expected["engine"] == "numpy" and "rows_fetched" not in expected
    for key in ("levels", "classes", "min_class_size", "suppressed_rows", "rows"):
        assert summary[key] == expected[key], key
    for name, value in summary["metrics"].items():
        assert value == pytest.approx(expected["metrics"][name], rel=1e-9), name


def test_duckdb_release_equals_the_numpy_release(project: Path, tmp_path: Path) -> None:
    """The same records, released by DuckDB to Parquet and by numpy to CSV: the same rows (order aside)."""
    inp = {"path": str(project / "small.csv"), "delimiter": ";"}
    privacy = {"k": 5, "l_diversity": {"attribute": "diagnosis", "l": 2}, "max_suppression": 0.02}
    marital = project / "marital.csv"
    duck = make_config(inp, {"path": str(tmp_path / "duck.parquet"), "suppressed": "drop"}, marital=marital,
                       engine="duckdb", privacy=privacy)
    memory = make_config(inp, {"path": str(tmp_path / "numpy.csv"), "suppressed": "drop"}, marital=marital,
                         privacy=privacy)
    for config in (duck, memory):
        result = run(write_config(tmp_path, config), "--quiet")
        assert result.exit_code == 0, (result.stdout, result.stderr)
    by_duckdb = read_table(tmp_path / "duck.parquet")
    by_numpy = read_table(tmp_path / "numpy.csv", ";")  # the input's delimiter

    def rows(frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame.astype(str)
        return frame.sort_values(list(frame.columns)).reset_index(drop=True)

    assert 0 < len(by_numpy) < BASE_ROWS  # some records were dropped
    pd.testing.assert_frame_equal(rows(by_duckdb), rows(by_numpy))


def test_replace_an_existing_output_table(pg: PgSchema, project: Path, tmp_path: Path) -> None:
    out = f"replaced_{secrets.token_hex(3)}"
    pg.con.execute(f'CREATE TABLE "{pg.name}"."{out}" AS SELECT 1 AS old')
    before = pg.tables()
    privacy = {"k": 5, "max_suppression": 0.02}
    config = make_config(pg_input(pg, "register"), {"table": f"{pg.name}.{out}"}, marital=project / "marital.csv",
                         privacy=privacy)
    message = one_line_error(run(write_config(tmp_path, config)))
    assert f"{pg.name}.{out}" in message and "already exists" in message and "replace" in message
    assert list(pg.fetch(out).columns) == ["old"] and pg.tables() == before

    config["output"]["replace"] = True
    result = run(write_config(tmp_path, config), "--quiet")
    assert result.exit_code == 0, (result.stdout, result.stderr)
    replaced = pg.fetch(out)
    assert len(replaced) == BASE_ROWS and "age" in replaced.columns
    assert pg.tables() == before


# --------------------------------------------------------------------------- bad input through the CLI
def _sql_cases() -> list[tuple[str, Callable[[PgSchema, dict[str, Any]], None], list[str]]]:
    def wrong_database(pg: PgSchema, config: dict[str, Any]) -> None:
        config["input"]["sql"]["url"] = f"postgresql://postgres:{PASSWORD}@127.0.0.1:5432/no_such_database_anonset"

    def unreachable(pg: PgSchema, config: dict[str, Any]) -> None:
        config["input"]["sql"]["url"] = f"postgresql://postgres:{PASSWORD}@127.0.0.1:1/test?connect_timeout=3"

    def missing_table(pg: PgSchema, config: dict[str, Any]) -> None:
        config["input"]["sql"]["table"] = f"{pg.name}.no_such_table"

    def missing_column(pg: PgSchema, config: dict[str, Any]) -> None:
        config["attributes"]["blood_type"] = {"role": "quasi"}

    def existing_output(pg: PgSchema, config: dict[str, Any]) -> None:
        config["output"]["table"] = f"{pg.name}.register"

    def output_is_input(pg: PgSchema, config: dict[str, Any]) -> None:
        config["output"] = {"table": f"{pg.name}.patients", "replace": True}

    def output_schema_missing(pg: PgSchema, config: dict[str, Any]) -> None:
        config["output"]["table"] = "no_such_schema_anonset.released"

    def path_for_sql(pg: PgSchema, config: dict[str, Any]) -> None:
        config["output"] = {"path": "released.csv"}

    return [
        ("wrong-database", wrong_database, ["no_such_database_anonset", "127.0.0.1:5432", "does not exist"]),
        ("unreachable-server", unreachable, ["cannot connect", "127.0.0.1:1", "server is running"]),
        ("missing-table", missing_table, ["no_such_table", "check the table name"]),
        ("missing-column", missing_column, ["'blood_type'", "patients"]),
        ("existing-output", existing_output, [".register", "already exists"]),
        ("output-is-input", output_is_input, ["output.table is the input table"]),
        ("output-schema-missing", output_schema_missing, ["no_such_schema_anonset", "does not exist"]),
        ("path-for-sql-input", path_for_sql, ["output.path", "output: {table: NAME}"]),
    ]


@pytest.mark.parametrize("case", _sql_cases(), ids=[c[0] for c in _sql_cases()])
def test_cli_sql_bad_input(case: tuple[str, Callable[[PgSchema, dict[str, Any]], None], list[str]],
                           pg: PgSchema, project: Path, tmp_path: Path) -> None:
    """One line on stderr naming what is wrong (never the password), exit 2, nothing written anywhere."""
    _, breaks, facts = case
    config = make_config(pg_input(pg, url=PG_URL.replace("postgres@", f"postgres:{PASSWORD}@")),
                         {"table": f"{pg.name}.never_{secrets.token_hex(3)}"}, marital=project / "marital.csv")
    breaks(pg, config)
    before = pg.tables()
    summary = tmp_path / "summary.json"
    message = one_line_error(run(write_config(tmp_path, config), "--summary", str(summary)))
    for fact in facts:
        assert fact in message, (fact, message)
    assert PASSWORD not in message
    assert pg.tables() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [p.name for p in tmp_path.glob("run_*.yaml")]


def test_cli_output_option_is_refused_for_a_sql_input(pg: PgSchema, tmp_path: Path) -> None:
    config = make_config(pg_input(pg), {"table": f"{pg.name}.never"})
    message = one_line_error(run(write_config(tmp_path, config), "--output", str(tmp_path / "x.csv")))
    assert "--output" in message and "output.table" in message
    assert not (tmp_path / "x.csv").exists()


def test_cli_duckdb_bad_input(project: Path, tmp_path: Path) -> None:
    config = make_config({"path": str(tmp_path / "missing.csv"), "delimiter": ";"},
                         {"path": str(tmp_path / "out.csv")}, engine="duckdb")
    assert "file not found" in one_line_error(run(write_config(tmp_path, config)))
    config = make_config({"path": str(project / "small.csv"), "delimiter": ";"},
                         {"path": str(tmp_path / "out.csv")}, engine="postgresql")
    assert "engine: postgresql needs input.sql" in one_line_error(run(write_config(tmp_path, config)))
    assert not (tmp_path / "out.csv").exists()


# --------------------------------------------------------------------------- config validation
def _sql_config() -> dict[str, Any]:
    return make_config({"sql": {"url": f"postgresql://someone:{PASSWORD}@db.example:5432/clinic",
                                "table": "care.patients"}}, {"table": "care.patients_anonymized"})


def _edit(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set (or with ``...`` delete) the key at a dotted path."""
    def apply(config: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node = config
        for key in parents:
            node = node[key]
        if value is ...:
            del node[last]
        else:
            node[last] = value
    return apply


CONFIG_CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("sql-not-mapping", _edit("input.sql", "postgresql://x"), "input.sql must be a mapping"),
    ("sql-unknown-key", _edit("input.sql.password", "x"), "unknown key input.sql.password"),
    ("sql-no-url", _edit("input.sql.url", ...), "input.sql needs `url`"),
    ("sql-no-table", _edit("input.sql.table", ...), "input.sql needs `table`"),
    ("url-wrong-type", _edit("input.sql.url", 5432), "input.sql.url must be a string"),
    ("url-not-postgresql", _edit("input.sql.url", f"mysql://someone:{PASSWORD}@db/clinic"),
     "must be a PostgreSQL URL"),
    ("table-wrong-type", _edit("input.sql.table", 7), "input.sql.table must be a table name"),
    ("table-invalid", _edit("input.sql.table", "care..patients"), "invalid table name"),
    ("path-and-sql", _edit("input.path", "data.csv"), "more than one of `path`, `sql` and `table`"),
    ("delimiter-with-sql", _edit("input.delimiter", ";"), "unknown key input.delimiter"),
    ("engine-unknown", _edit("engine", "hadoop"), "engine must be one of numpy | duckdb | postgresql | spark"),
    ("engine-spark-for-sql", _edit("engine", "spark"), "engine: spark cannot search a table in PostgreSQL"),
    ("engine-wrong-type", _edit("engine", 3), "engine must be one of"),
    ("engine-duckdb-for-sql", _edit("engine", "duckdb"), "engine: duckdb cannot search a table in PostgreSQL"),
    ("output-path-for-sql", _edit("output.path", "released.csv"), "output.path: a table in PostgreSQL"),
    ("output-delimiter-for-sql", _edit("output.delimiter", ";"), "output.delimiter: a table in PostgreSQL"),
    ("output-no-table", _edit("output.table", ...), "input.sql needs output.table"),
    ("output-missing", _edit("output", ...), "input.sql needs output.table"),
    ("output-replace-type", _edit("output.replace", "yes"), "output.replace must be true or false"),
    ("output-unknown-key", _edit("output.schema", "x"), "unknown key output.schema"),
    ("output-table-type", _edit("output.table", {"name": "x"}), "output.table must be a table name"),
    ("output-is-input", _edit("output.table", "care.patients"), "output.table is the input table"),
]


@pytest.mark.parametrize("case", CONFIG_CASES, ids=[c[0] for c in CONFIG_CASES])
def test_sql_config_errors_are_one_line_and_hide_the_password(
        case: tuple[str, Callable[[dict[str, Any]], None], str]) -> None:
    _, edit, pattern = case
    config = _sql_config()
    edit(config)
    with pytest.raises(ConfigError) as info:
        parse_config(config, Path("run.yaml"))
    message = str(info.value)
    assert pattern in message and message.startswith("run.yaml: ")
    assert "\n" not in message and PASSWORD not in message


def test_file_config_errors_for_the_new_keys() -> None:
    file_config = make_config({"path": "data.csv"}, {"path": "out.csv"})
    for edit, pattern in [
        (_edit("engine", "postgresql"), "engine: postgresql needs input.sql"),
        (_edit("output.table", "t"), "output.table is for a table in PostgreSQL"),
        (_edit("output.replace", True), "output.replace is for a table in PostgreSQL"),
        (_edit("input.delimiter", 5), "input.delimiter must be a string"),
    ]:
        config = copy.deepcopy(file_config)
        edit(config)
        with pytest.raises(ConfigError, match=pattern):
            parse_config(config, Path("run.yaml"))


def test_sql_config_defaults_and_repr() -> None:
    from anonset.config import FileInput, FileOutput, SqlInput, TableOutput
    from anonset.runs.base import read_in_memory, run_for
    from anonset.runs.database import DatabaseRun

    cfg = parse_config(_sql_config(), Path("run.yaml"))
    assert cfg.engine == "postgresql" and cfg.input_file is None
    assert isinstance(cfg.input, SqlInput) and cfg.input.table == "care.patients"
    run = run_for(cfg)
    assert isinstance(run, DatabaseRun) and run.source_table == "care.patients" and not run.in_memory
    assert cfg.output == TableOutput("care.patients_anonymized", replace=False)
    assert PASSWORD not in repr(cfg) and PASSWORD not in cfg.input.shown_url
    assert cfg.input.shown_url == "postgresql://someone:***@db.example:5432/clinic"
    with pytest.raises(ConfigError, match="not a file on this machine"):
        read_in_memory(cfg, "this test")
    listed = _sql_config()
    listed["input"]["sql"]["table"] = ["care", "patients.2024"]
    assert parse_config(listed, Path("run.yaml")).input == SqlInput(listed["input"]["sql"]["url"],
                                                                    ("care", "patients.2024"))
    file_cfg = parse_config(make_config({"path": "data.csv"}, None), Path("run.yaml"))
    assert file_cfg.engine == "numpy" and isinstance(file_cfg.input, FileInput) and file_cfg.output == FileOutput()
    duck = parse_config(make_config({"path": "data.csv"}, None, engine="duckdb"), Path("run.yaml"))
    assert duck.engine == "duckdb" and isinstance(run_for(duck), DatabaseRun)
    assert run_for(duck).source_table == "data"  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- the Python API
@pytest.fixture()
def small_pg(pg: PgSchema, register: pd.DataFrame) -> Iterator[tuple[PostgresBackend, Dataset, tuple[str, str]]]:
    backend = PostgresBackend(pg.url)
    source = (pg.name, "register")
    dataset = dataset_from_table(backend, source, patient_register_attributes(register))
    yield backend, dataset, source
    backend.close()


def _requirements() -> Requirements:
    return Requirements([KAnonymity(5), DistinctLDiversity("diagnosis", 2)], max_suppression=0.02)


def test_api_fit_on_a_table_in_the_database(pg: PgSchema, register: pd.DataFrame,
                                            small_pg: tuple[PostgresBackend, Dataset, tuple[str, str]]) -> None:
    backend, dataset, source = small_pg
    requirements = _requirements()
    out = (pg.name, f"api_{secrets.token_hex(3)}")
    before = pg.tables()
    with SqlEngine(dataset, requirements.request, backend, source) as engine:
        model = Anonymizer({}, requirements, output_table=out).fit(dataset, engine=engine)
    release = model.release_
    assert release.table is None and release.verified and release.engine == "postgresql"
    assert release.location == f"{backend.description}, table {out[0]}.{out[1]}"
    assert release.partition.row_class is None and release.partition.n_rows == BASE_ROWS
    rows_stay = "needs record-level rows, which stay in the database"
    assert release.omitted_metrics == {"non_uniform_entropy": rows_stay, "kl_divergence": rows_stay}
    assert pg.tables() == before | {out[1]}

    memory = Anonymizer(patient_register_attributes(register), requirements).fit(register).release_
    assert memory.engine == "numpy" and memory.location is None and memory.rows_fetched is None
    assert release.levels == memory.levels
    assert (release.n_classes, release.min_class_size, release.suppressed_rows) == \
        (memory.n_classes, memory.min_class_size, memory.suppressed_rows)
    assert set(release.metrics) == set(memory.metrics) - {"non_uniform_entropy", "kl_divergence"}
    for name, value in release.metrics.items():
        assert value == pytest.approx(memory.metrics[name], rel=1e-9), name
    summary = release.summary()
    assert summary["output"] == release.location and summary["engine"] == "postgresql"
    assert summary["rows_fetched"] == release.rows_fetched < 10 * BASE_ROWS
    assert "metrics_omitted" in summary and "metrics_omitted" not in memory.summary()

    assert verify_table(backend, out, dataset, requirements).ok
    released = pg.fetch(out[1])
    assert memory.table is not None
    pd.testing.assert_frame_equal(
        released.astype(str).sort_values(list(released.columns)).reset_index(drop=True),
        memory.table.astype(str).sort_values(list(memory.table.columns)).reset_index(drop=True))

    with pytest.raises(ConfigError, match="not supported for tables in a database yet"):
        model.transform(dataset, return_release=True)
    # records in memory can still be transformed
    assert model.transform(register, return_release=True).levels == release.levels


def test_api_refuses_what_it_cannot_do(pg: PgSchema, register: pd.DataFrame,
                                       small_pg: tuple[PostgresBackend, Dataset, tuple[str, str]]) -> None:
    backend, dataset, source = small_pg
    requirements = _requirements()
    with pytest.raises(ConfigError, match=r"pass engine=SqlEngine"):
        Anonymizer({}, requirements, output_table="x").fit(dataset)
    with SqlEngine(dataset, requirements.request, backend, source) as engine:
        with pytest.raises(ConfigError, match="give Anonymizer\\(..., output_table="):
            Anonymizer({}, requirements).fit(dataset, engine=engine)
        with pytest.raises(ConfigError, match="the input table"):
            Anonymizer({}, requirements, output_table=source, replace_output=True).fit(dataset, engine=engine)
        with pytest.raises(ConfigError, match="built for another dataset"):
            Anonymizer(patient_register_attributes(register), requirements).fit(register, engine=engine)
        with pytest.raises(DataError, match="already exists"):
            Anonymizer({}, requirements, output_table=(pg.name, "patients")).fit(dataset, engine=engine)
    with SqlEngine(dataset, None, backend, source) as bare, pytest.raises(ConfigError, match="lacks statistics"):
        Anonymizer({}, requirements, output_table="x").fit(dataset, engine=bare)
    with pytest.raises(ConfigError, match="output_table is where a table that lives in a database"):
        Anonymizer(patient_register_attributes(register), requirements, output_table="x").fit(register)
    with pytest.raises(ConfigError, match="output_table: invalid table name"):
        Anonymizer({}, requirements, output_table="a..b")


def test_api_failed_verification_leaves_nothing(pg: PgSchema, monkeypatch: pytest.MonkeyPatch,
                                                small_pg: tuple[PostgresBackend, Dataset, tuple[str, str]]) -> None:
    backend, dataset, source = small_pg
    requirements = _requirements()
    out = f"{pg.name}.never_{secrets.token_hex(3)}"
    before = pg.tables()

    def failing(*args: Any, **kwargs: Any) -> VerificationReport:
        return VerificationReport(ok=False, classes=1, min_class_size=1, suppressed_rows=0, violating_rows=1,
                                  problems=["simulated violation"])

    monkeypatch.setattr("anonset.sinks.database.verify_table", failing)
    with SqlEngine(dataset, requirements.request, backend, source) as engine, \
            pytest.raises(RuntimeError, match=r"this is a bug in anonset\): simulated violation"):
        Anonymizer({}, requirements, output_table=out).fit(dataset, engine=engine)
    assert pg.tables() == before


def test_api_sql_engine_on_a_dataframe_keeps_the_pandas_release(register: pd.DataFrame) -> None:
    """An in-memory dataset searched through DuckDB: the release is rendered in pandas as before."""
    from anonset.engine.sql.duckdb import DuckDBBackend

    requirements = _requirements()
    attrs = patient_register_attributes(register)
    dataset = Dataset(register, attrs)
    with DuckDBBackend.from_dataframe(register) as backend, \
            SqlEngine(dataset, requirements.request, backend, "data") as engine:
        release = Anonymizer({}, requirements).fit(dataset, engine=engine).release_
    memory = Anonymizer(attrs, requirements).fit(register).release_
    assert release.engine == "duckdb" and release.rows_fetched is not None and release.table is not None
    assert release.levels == memory.levels
    assert memory.table is not None
    pd.testing.assert_frame_equal(release.table, memory.table)
    assert release.metrics == pytest.approx(memory.metrics)
    assert np.isfinite(release.metrics["non_uniform_entropy"])


def test_postgresql_releases_what_numpy_releases_with_a_minimum_generalization(pg: PgSchema, project: Path,
                                                                               tmp_path: Path) -> None:
    """The register (3,000 records) with marital status held at level 1 or above, which the unfloored optimum
    keeps at 0: the same node and classes on both engines."""
    summaries = {}
    small = {"path": str(project / "small.csv"), "delimiter": ";"}
    for engine, inp, out, floor in (
            ("postgresql", pg_input(pg, "register"), {"table": f"{pg.name}.floored_{secrets.token_hex(3)}"}, 1),
            ("numpy", small, {"path": str(tmp_path / "n.csv")}, 1),
            ("unfloored", small, None, 0)):
        config = make_config(inp, out, "optimal-ldiv", marital=project / "marital.csv",
                             engine="numpy" if engine == "unfloored" else engine)
        config["privacy"] = {"k": 5, "max_suppression": 0.02}
        config["attributes"]["marital_status"]["min_level"] = floor
        result = run(write_config(tmp_path, config, f"{engine}.json"), "--quiet", "--summary",
                     str(tmp_path / f"{engine}-summary.json"))
        assert result.exit_code == 0, (result.stdout, result.stderr)
        summaries[engine] = json.loads((tmp_path / f"{engine}-summary.json").read_text())
    assert summaries["postgresql"]["levels"] == summaries["numpy"]["levels"]
    assert summaries["unfloored"]["levels"]["marital_status"] == 0  # so the floor binds
    assert summaries["numpy"]["levels"]["marital_status"] >= 1
    for key in ("classes", "min_class_size", "suppressed_rows"):
        assert summaries["postgresql"][key] == summaries["numpy"][key], key
    # the input counted inside the database at the floor, as in memory, and said to be
    assert summaries["postgresql"]["risk"]["input"] == summaries["numpy"]["risk"]["input"]
    assert summaries["numpy"]["risk"]["input"]["counted_at"] == {"marital_status": 1}
    assert "counted_at" not in summaries["unfloored"]["risk"]["input"]
