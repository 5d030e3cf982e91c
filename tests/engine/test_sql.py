"""The SQL path: profiling, rows that never travel, the release written and re-checked in SQL, errors.

PostgreSQL tests use a schema of their own (dropped at teardown) and skip with
the reason when the server is unreachable (ANONSET_TEST_PG_URL overrides the
default ``postgresql://postgres@127.0.0.1:5432/test``).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import AttributeSpec, Dataset
from anonset.core.stats import StatsRequest
from anonset.engine.numpy.engine import NumpyEngine
from anonset.engine.sql.base import SqlBackend
from anonset.engine.sql.duckdb import DuckDBBackend
from anonset.engine.sql.engine import SqlEngine
from anonset.engine.sql.postgres import PostgresBackend
from anonset.engine.sql.profile import dataset_from_table, profile_table
from anonset.errors import DataError
from anonset.hierarchy import read_hierarchy
from anonset.io.tables import read_table
from anonset.methods.full_domain.search import optimal_search
from anonset.metrics import Loss
from anonset.privacy import DistinctLDiversity, KAnonymity, Requirements
from anonset.recheck.verify import verify_release
from anonset.release.release import render_full_domain
from anonset.sinks.database import verify_table, write_release
from support import PG_URL, SHARED, PgSchema, require_adult

ADULT_QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class")


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def pg() -> Iterator[PgSchema]:
    schema = PgSchema(PG_URL)
    yield schema
    schema.close()


def _adult_attrs(sensitive: bool) -> dict[str, Any]:
    adult = require_adult()
    attrs: dict[str, Any] = {c: AttributeSpec(role="quasi", hierarchy=read_hierarchy(adult / "hierarchies" / f"{c}.csv",
                                                                                       name=c))
                             for c in ADULT_QUASI}
    attrs["occupation"] = AttributeSpec(role="sensitive" if sensitive else "insensitive")
    return attrs


@pytest.fixture(scope="module")
def adult_table() -> pd.DataFrame:
    return read_table(require_adult() / "adult.csv", ";")


@pytest.fixture(scope="module")
def adult_pg(pg: PgSchema, adult_table: pd.DataFrame) -> tuple[str, str]:
    return pg.load(adult_table, "adult")


@pytest.fixture(params=["duckdb", "postgres"])
def adult_backend(request: pytest.FixtureRequest, adult_table: pd.DataFrame) -> Iterator[tuple[SqlBackend, Any]]:
    """(backend, table) holding Adult: DuckDB reading the shared CSV, or the PostgreSQL copy."""
    if request.param == "duckdb":
        backend: SqlBackend = DuckDBBackend.from_file(require_adult() / "adult.csv", ";")
        table: Any = "data"
    else:
        pg_schema: PgSchema = request.getfixturevalue("pg")
        table = request.getfixturevalue("adult_pg")
        backend = PostgresBackend(pg_schema.url)
    yield backend, table
    backend.close()


# --------------------------------------------------------------------------- profiling
def test_profile_equals_the_in_memory_dataset(adult_backend: tuple[SqlBackend, Any],
                                              adult_table: pd.DataFrame) -> None:
    backend, table = adult_backend
    attrs = _adult_attrs(sensitive=True)
    memory = Dataset(adult_table, attrs)
    profile = profile_table(backend, table, list(ADULT_QUASI) + ["occupation"])
    assert profile.n_rows == len(adult_table)
    assert profile.columns == tuple(adult_table.columns)
    for column in (*ADULT_QUASI, "occupation"):
        values, counts = profile.values[column]
        expected = adult_table[column].value_counts()
        assert dict(zip(values, counts.tolist(), strict=True)) == expected.to_dict()
    profiled = dataset_from_table(backend, table, attrs)
    assert not profiled.in_memory and profiled.n_rows == memory.n_rows
    for column in (*ADULT_QUASI, "occupation"):
        np.testing.assert_array_equal(profiled.encoded[column].categories, memory.encoded[column].categories)
        np.testing.assert_array_equal(profiled.encoded[column].counts(), memory.encoded[column].counts())
        assert profiled.value_codes(column) == memory.value_codes(column)


def test_profile_presents_null_as_the_missing_marker(pg: PgSchema) -> None:
    frame = pd.DataFrame({"a": ["x", None, "", "007", None], "b": ["1", "2", None, "2", "2"]})
    ref = pg.load(frame, "nulls")
    with PostgresBackend(pg.url) as backend:
        profile = profile_table(backend, ref, ["a", "b"], missing={"a": "?", "b": ""})
    a = dict(zip(*[v.tolist() for v in profile.values["a"]], strict=True))
    b = dict(zip(*[v.tolist() for v in profile.values["b"]], strict=True))
    assert a == {"x": 1, "?": 2, "": 1, "007": 1}
    assert b == {"1": 1, "2": 3, "": 1}
    assert profile.n_rows == 5


# --------------------------------------------------------------------------- rows never travel
def test_optimal_search_in_postgres_fetches_class_tables_only(pg: PgSchema, adult_pg: tuple[str, str],
                                                              adult_table: pd.DataFrame) -> None:
    """Adult repeated ten times inside the database: the search reads classes, never the 301,620 rows."""
    schema, _ = adult_pg
    pg.con.execute(f'CREATE TABLE "{schema}".adult10 AS SELECT a.* FROM "{schema}".adult AS a'
                   " CROSS JOIN generate_series(1, 10) AS g")
    n_rows = 10 * len(adult_table)
    attrs = _adult_attrs(sensitive=False)
    reqs = Requirements([KAnonymity(50)], 0.0)
    memory = Dataset(pd.concat([adult_table] * 10, ignore_index=True), attrs)
    expected = optimal_search(memory, NumpyEngine(memory, reqs.request), reqs, Loss())
    with PostgresBackend(pg.url) as backend:
        dataset = dataset_from_table(backend, (schema, "adult10"), attrs)
        after_profile = backend.rows_fetched
        engine = SqlEngine(dataset, reqs.request, backend, (schema, "adult10"))
        fetched_classes = 0
        class_stats = engine.class_stats

        def counting(levels: tuple[int, ...]) -> Any:
            nonlocal fetched_classes
            stats = class_stats(levels)
            fetched_classes += stats.n_classes
            return stats

        engine.class_stats = counting  # type: ignore[method-assign]
        result = optimal_search(dataset, engine, reqs, Loss())
        assert result.levels == expected.levels
        assert result.score == pytest.approx(expected.score, rel=1e-12)
        assert result.verdict.suppressed_rows == expected.verdict.suppressed_rows
        # what travelled: the profile (distinct values), one check row, and the class tables the search asked for
        assert backend.rows_fetched - after_profile == engine.rows_read == fetched_classes + 1
        assert after_profile < 1000
        assert backend.rows_fetched < n_rows / 10, (backend.rows_fetched, n_rows)
        assert engine.nodes_computed <= result.checks
        engine.close()


def test_rv_global_in_postgres_fetches_one_number_per_frequency_set(pg: PgSchema, adult_pg: tuple[str, str],
                                                                   adult_table: pd.DataFrame) -> None:
    """With k-anonymity alone, each probe asks the database for the records in small classes: one row."""
    from anonset.methods.full_domain.research_value import rv_global
    from anonset.metrics.research_value import ResearchValue

    schema, table = adult_pg
    attrs = _adult_attrs(sensitive=False)
    reqs = Requirements([KAnonymity(5)], 0.01)
    weights = {q: 1.0 for q in attrs}
    memory = Dataset(adult_table, attrs)
    expected = rv_global(memory, NumpyEngine(memory), reqs, ResearchValue(weights=weights))
    with PostgresBackend(pg.url) as backend:
        dataset = dataset_from_table(backend, (schema, table), attrs)
        after_profile = backend.rows_fetched
        engine = SqlEngine(dataset, reqs.request, backend, (schema, table))
        result = rv_global(dataset, engine, reqs, ResearchValue(weights=weights))
        assert result.levels == expected.levels
        assert result.details["frequency_sets"] == expected.details["frequency_sets"]
        chosen = result.stats.n_classes  # the released node's class table is fetched once, at the end
        check_row = 1
        assert backend.rows_fetched - after_profile == result.details["frequency_sets"] + chosen + check_row
        engine.close()


# --------------------------------------------------------------------------- release in SQL
def _release_case(adult_table: pd.DataFrame) -> tuple[dict[str, Any], Requirements, Any, Dataset]:
    attrs = _adult_attrs(sensitive=True)
    reqs = Requirements([KAnonymity(5), DistinctLDiversity("occupation", 2)], 0.02)
    memory = Dataset(adult_table, attrs)
    result = optimal_search(memory, NumpyEngine(memory, reqs.request), reqs, Loss())
    return attrs, reqs, result, memory


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.astype(str)
    return frame.sort_values(list(frame.columns)).reset_index(drop=True)


@pytest.mark.parametrize("drop", [False, True])
def test_release_written_in_sql_equals_the_in_memory_release(
        adult_backend: tuple[SqlBackend, Any], adult_table: pd.DataFrame, drop: bool) -> None:
    backend, table = adult_backend
    attrs, reqs, expected, memory = _release_case(adult_table)
    dataset = dataset_from_table(backend, table, attrs) if backend.dialect == "postgresql" else memory
    engine = SqlEngine(dataset, reqs.request, backend, table)
    result = optimal_search(dataset, engine, reqs, Loss())
    assert result.levels == expected.levels
    assert result.verdict.suppressed_rows == expected.verdict.suppressed_rows > 0
    violating = result.stats.keys[result.verdict.violating]
    out = table[:-1] + (f"release_{secrets.token_hex(3)}",) if isinstance(table, tuple) else "released"
    written = write_release(engine, result.levels, violating, out, drop_suppressed=drop)
    assert written.suppressed_rows == expected.verdict.suppressed_rows
    assert written.rows == len(adult_table) - (written.suppressed_rows if drop else 0)

    row_class, stats = NumpyEngine(memory, reqs.request).row_classes(expected.levels)
    suppressed_rows = reqs.judge(stats, memory.n_rows).violating[row_class]
    rendered = render_full_domain(memory, expected.levels, suppressed_rows, drop_suppressed=drop)
    released_rows = backend.fetch_rows(f"SELECT * FROM {backend.table_ref(out)}")
    released = pd.DataFrame(released_rows, columns=backend.columns(out), dtype=object)
    assert list(released.columns) == list(rendered.columns)
    pd.testing.assert_frame_equal(_sorted(released), _sorted(rendered))

    report = verify_table(backend, out, dataset, reqs, n_input_rows=len(adult_table))
    assert report.ok, report.problems
    assert report == verify_release(rendered, memory, reqs, n_input_rows=len(adult_table))
    # starred (or dropped) records are the suppressed ones, as the search reported; the classes are the kept ones
    assert report.suppressed_rows == expected.verdict.suppressed_rows
    assert report.classes == int(expected.verdict.kept.sum())
    engine.close()


def test_verify_table_reports_what_verify_release_reports(adult_backend: tuple[SqlBackend, Any],
                                                          adult_table: pd.DataFrame) -> None:
    """A release that violates the requirements: the SQL check and the pandas check agree."""
    backend, table = adult_backend
    attrs, reqs, _, memory = _release_case(adult_table)
    dataset = dataset_from_table(backend, table, attrs) if backend.dialect == "postgresql" else memory
    engine = SqlEngine(dataset, reqs.request, backend, table)
    levels = (0, 2, 0, 1, 1, 1, 1, 0)
    out = table[:-1] + (f"bad_{secrets.token_hex(3)}",) if isinstance(table, tuple) else "bad"
    write_release(engine, levels, np.zeros((0, len(levels)), dtype=np.int32), out)
    report = verify_table(backend, out, dataset, reqs)
    rendered = render_full_domain(memory, levels, np.zeros(len(adult_table), dtype=bool))
    assert not report.ok
    assert report == verify_release(rendered, memory, reqs)
    engine.close()


def test_failed_release_leaves_nothing(pg: PgSchema, adult_pg: tuple[str, str], adult_table: pd.DataFrame,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    schema, name = adult_pg
    attrs = _adult_attrs(sensitive=False)
    levels = (1, 4, 1, 2, 3, 2, 2, 1)
    with PostgresBackend(pg.url) as backend:
        dataset = dataset_from_table(backend, adult_pg, attrs)
        engine = SqlEngine(dataset, StatsRequest(), backend, adult_pg)
        before = pg.tables()
        no_keys = np.zeros((0, len(levels)), dtype=np.int32)
        with pytest.raises(DataError, match="already exists"):
            write_release(engine, levels, no_keys, (schema, name))
        assert pg.tables() == before

        def broken_rename(*args: Any) -> None:
            raise DataError("simulated failure")

        monkeypatch.setattr(backend, "rename_table", broken_rename)
        with pytest.raises(DataError, match="simulated"):
            write_release(engine, levels, no_keys, (schema, "never_written"))
        assert pg.tables() == before
        monkeypatch.undo()
        written = write_release(engine, levels, no_keys, (schema, "written"))
        assert written.rows == len(adult_table)
        assert pg.tables() == before | {"written"}
        engine.close()


# --------------------------------------------------------------------------- errors
def _one_line(exc: pytest.ExceptionInfo[DataError]) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


def test_wrong_url_names_the_database_not_the_password(pg: PgSchema) -> None:
    url = "postgresql://postgres:s3cr3t-pw@127.0.0.1:5432/no_such_database_anonset"
    with pytest.raises(DataError) as exc:
        PostgresBackend(url)
    message = _one_line(exc)
    assert "no_such_database_anonset" in message and "127.0.0.1:5432" in message
    assert "s3cr3t-pw" not in message
    assert "does not exist" in message


@pytest.mark.parametrize("url", [
    "postgresql://someone:s3cr3t-pw@127.0.0.1:notaport/test",
    "mysql://someone:s3cr3t-pw@127.0.0.1/test",
    "host=127.0.0.1 port=1 dbname=test user=someone password=s3cr3t-pw connect_timeout=3",
])
def test_malformed_or_wrong_url_never_prints_the_password(url: str) -> None:
    with pytest.raises(DataError) as exc:
        PostgresBackend(url, connect_timeout=3)
    message = _one_line(exc)
    assert message.startswith("cannot connect to PostgreSQL")
    assert "s3cr3t-pw" not in message and "someone" in message


def test_unreachable_server() -> None:
    with pytest.raises(DataError) as exc:
        PostgresBackend("postgresql://postgres:hunter2@127.0.0.1:1/test", connect_timeout=3)
    message = _one_line(exc)
    assert "127.0.0.1:1/test" in message and "hunter2" not in message
    assert "server is running" in message


def test_missing_table_and_column(adult_backend: tuple[SqlBackend, Any]) -> None:
    backend, table = adult_backend
    missing = table[:-1] + ("no_such_table",) if isinstance(table, tuple) else "no_such_table"
    with pytest.raises(DataError) as exc:
        profile_table(backend, missing, ["age"])
    message = _one_line(exc)
    assert "no_such_table" in message and backend.description in message
    with pytest.raises(DataError) as exc:
        profile_table(backend, table, ["age", "no_such_column"])
    message = _one_line(exc)
    assert "no_such_column" in message and "columns are: sex, age" in message
    attrs = {"nope": {"role": "quasi"}}
    with pytest.raises(DataError, match="'nope' is not in the table"):
        dataset_from_table(backend, table, attrs)


def test_engine_detects_a_table_that_changed_since_profiling(pg: PgSchema) -> None:
    frame = pd.DataFrame({"a": ["x", "y", "x"], "b": ["1", "2", "3"]})
    ref = pg.load(frame, "changing")
    attrs = {"a": {"role": "quasi"}}
    with PostgresBackend(pg.url) as backend:
        dataset = dataset_from_table(backend, ref, attrs)
        pg.con.execute(f'INSERT INTO "{ref[0]}"."{ref[1]}" VALUES (%s, %s)', ("z", "4"))
        with pytest.raises(DataError, match="value .z. of column .a.*changed since it was profiled"):
            SqlEngine(dataset, None, backend, ref)


def test_duckdb_file_errors(tmp_path: Any) -> None:
    with pytest.raises(DataError, match="file not found"):
        DuckDBBackend.from_file(tmp_path / "nope.csv")
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a;b\n1;2\n3;4;5\n")
    with pytest.raises(DataError) as exc:
        backend = DuckDBBackend.from_file(ragged, ";")
        profile_table(backend, "data", ["a"])
    assert "ragged.csv" in _one_line(exc)


def test_csv_values_are_read_exactly_as_written(tmp_path: Any) -> None:
    path = tmp_path / "odd.csv"
    path.write_text('zip;name;s\n007;"a;b";\n  pad ;"";é\n007;x;""\n', encoding="utf-8")
    with DuckDBBackend.from_file(path, ";") as backend:
        profile = profile_table(backend, "data", ["zip", "name", "s"])
    as_dict = {c: dict(zip(*[v.tolist() for v in profile.values[c]], strict=True)) for c in ("zip", "name", "s")}
    assert as_dict == {"zip": {"007": 2, "  pad ": 1}, "name": {"a;b": 1, "": 1, "x": 1},
                       "s": {"": 2, "é": 1}}
    frame = read_table(path, ";")
    for c in ("zip", "name", "s"):
        assert frame[c].value_counts().to_dict() == as_dict[c]


def test_write_release_with_replace_creates_a_missing_table_on_postgresql() -> None:
    """replace=True must work when the output table does not exist yet (the lookup may not abort the rename)."""
    from anonset.datasets import patient_register_dataset
    from anonset.engine.sql.engine import SqlEngine
    from anonset.engine.sql.postgres import PostgresBackend
    from anonset.engine.sql.profile import dataset_from_table
    from anonset.sinks.database import write_release

    schema = PgSchema(PG_URL)
    try:
        memory = patient_register_dataset(500, seed=2)
        assert memory.table is not None
        schema.load(memory.table, "register")
        with PostgresBackend(PG_URL) as backend:
            ds = dataset_from_table(backend, (schema.name, "register"), dict(memory.specs))
            req = Requirements([KAnonymity(2)])
            engine = SqlEngine(ds, req.request, backend, (schema.name, "register"))
            levels = tuple(h.max_level for h in ds.hierarchies)
            out = write_release(engine, levels, np.zeros((0, len(levels)), dtype=np.int32),
                                (schema.name, "fresh"), replace=True)
            assert out.rows == 500
        assert "fresh" in schema.tables()
    finally:
        schema.close()


# --------------------------------------------------------------------------- one config, one release
CMC = SHARED / "data" / "cmc" / "cmc.csv"


def _cmc_config(input_section: dict[str, Any]) -> dict[str, Any]:
    """The configuration that gave different releases on numpy and DuckDB (an ordered builder on 1-4 codes)."""
    return {
        "input": input_section,
        "attributes": {
            "wife_age": {"role": "quasi", "type": "numeric",
                         "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]}},
            "wife_education": {"role": "quasi", "hierarchy": {"builder": "ordered", "fanouts": [2, 2]}},
            "husband_education": {"role": "quasi", "hierarchy": {"builder": "ordered", "fanouts": [2, 2]}},
            "children_born": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals",
                                                                                "widths": [2, 4, 8]}},
            "contraceptive_method_use": {"role": "sensitive"},
            # released as they are, on purpose (an undeclared column that could single people out is refused)
            **{c: {"role": "insensitive"} for c in ("wife_religion", "wife_working", "husband_occupation",
                                                      "SOL_index", "media_exposure")},
        },
        "privacy": {"k": 5, "max_suppression": 0.05},
        "method": {"name": "optimal"},
    }


def _database_release(cfg: Any, out: Any) -> tuple[Any, pd.DataFrame]:
    """Profile, search and release inside the database of ``cfg``; the release and the released table."""
    from anonset import Anonymizer
    from anonset.runs.base import run_for

    run = run_for(cfg)
    backend = run.connect()
    try:
        dataset = run.load(backend)
        assert not dataset.in_memory
        with SqlEngine(dataset, cfg.requirements.request, backend, run.source_table) as engine:
            release = Anonymizer({}, cfg.requirements, method=cfg.method, output_table=out).fit(
                dataset, engine=engine).release_
        rows = backend.fetch_rows(f"SELECT * FROM {backend.table_ref(out)}")
        return release, pd.DataFrame(rows, columns=backend.columns(out), dtype=object)
    finally:
        backend.close()


def test_one_config_gives_one_release_on_every_engine(pg: PgSchema, tmp_path: Any) -> None:
    """numpy (rows in memory), DuckDB and PostgreSQL (value counts) build the same hierarchies and release."""
    from anonset import Anonymizer
    from anonset.config import parse_config

    if not CMC.exists():
        pytest.skip(f"reference data not found at {CMC}")
    numpy_cfg = parse_config(_cmc_config({"path": str(CMC)}), tmp_path / "numpy.yaml")
    from anonset.runs.base import read_in_memory

    memory = read_in_memory(numpy_cfg, "the numpy engine")
    expected = Anonymizer({}, numpy_cfg.requirements, method=numpy_cfg.method).fit(memory).release_
    assert expected.table is not None
    report = verify_release(expected.table, memory, numpy_cfg.requirements)
    assert report.ok and report.suppressed_rows == expected.suppressed_rows
    # the codes 1-4 in their order of appearance were 3, 4, 2, 1: the groups must follow the numbers
    assert set(expected.table["husband_education"]) <= {"1", "2", "3", "4", "1..2", "3..4", "*"}
    assert memory.require_hierarchy("husband_education").rows() == [
        ["1", "1..2", "*"], ["2", "1..2", "*"], ["3", "3..4", "*"], ["4", "3..4", "*"]]

    duck_cfg = parse_config({**_cmc_config({"path": str(CMC)}), "engine": "duckdb"}, tmp_path / "duck.yaml")
    schema, name = pg.load(read_table(CMC, ","), "cmc")
    pg_raw = {**_cmc_config({"sql": {"url": pg.url, "table": f"{schema}.{name}"}}),
              "output": {"table": f"{schema}.cmc_released"}}
    pg_cfg = parse_config(pg_raw, tmp_path / "pg.yaml")
    for cfg, out in ((duck_cfg, "released"), (pg_cfg, (schema, "cmc_released"))):
        release, table = _database_release(cfg, out)
        assert release.levels == expected.levels, cfg.engine
        assert release.suppressed_rows == expected.suppressed_rows, cfg.engine
        pd.testing.assert_frame_equal(_sorted(table), _sorted(expected.table))


def test_rows_fetched_counts_rows_of_results_not_records(tmp_path: Any) -> None:
    """Profiling sends one row per distinct value (plus the row count); a class table one row per class."""
    path = tmp_path / "t.csv"
    edu = ["3", "4", "2", "1"] * 50
    pd.DataFrame({"edu": edu, "s": ["a", "b"] * 100, "note": [str(i) for i in range(200)]}).to_csv(path, index=False)
    attrs = {"edu": {"role": "quasi", "hierarchy": {"builder": "ordered", "fanouts": [2]}}, "s": {"role": "sensitive"},
             "note": {"role": "insensitive", "hierarchy": {"builder": "flat"}}}  # not profiled: not needed
    with DuckDBBackend.from_file(path, ",") as backend:
        dataset = dataset_from_table(backend, "data", attrs)
        assert backend.rows_fetched == 1 + 4 + 2  # COUNT(*), the 4 values of edu, the 2 of s
        assert dataset.require_hierarchy("edu").rows() == [["1", "1..2", "*"], ["2", "1..2", "*"],
                                                           ["3", "3..4", "*"], ["4", "3..4", "*"]]
        before = backend.rows_fetched
        with SqlEngine(dataset, StatsRequest(frozenset({"s"})), backend, "data", direct_rows=10_000) as engine:
            stats = engine.class_stats((1,))
            assert stats.n_classes == 2 and stats.sizes.tolist() == [100, 100]
            # the check that the table still matches its profile (one row), then the 2 class rows; not 200
            assert backend.rows_fetched - before == engine.rows_read == 1 + stats.n_classes
