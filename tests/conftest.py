"""Test-session settings, and the registry of engines the engine conformance suite runs on.

Property tests draw the same examples on every run: CI must not fail one day
and pass the next on the same code, so Hypothesis is derandomized by default.
Set ``ANONSET_HYPOTHESIS_RANDOM=1`` to explore with fresh random examples
(failures found that way should become fixed tests).

:data:`ENGINES` maps a test id to an :class:`EngineFactory`, which builds one
kind of engine over a table and a statistics request; the fixture
``make_engine`` is parametrized over every entry, so adding an engine to the
suite (tests/engine/test_engine_conformance.py) is one entry here.  The PostgreSQL
entry loads the table into a schema of its own on the test server
(``pg_schema``, dropped at the end of the session) and skips, with the reason,
when the server is unreachable (ANONSET_TEST_PG_URL points elsewhere).

Markers (registered in pyproject.toml) are given here, from what a test uses, so that no
test file names them: ``spark`` (a JVM: the ``spark`` fixture, an engine parametrized as
Spark, or a module ``test_spark*.py``), ``postgres`` (the test server: a fixture that holds
a schema, an engine parametrized as PostgreSQL, or a test that opens a schema itself),
``browser`` (Chromium: the ``browser`` fixture) and ``slow`` (several seconds
alone, from :data:`SECONDS`, and the docs' examples).  ``pytest -m "not spark and not
browser"`` runs the rest.  Under pytest-xdist with ``--dist loadgroup`` (``make test``) the
tests sharing the session's Spark are kept on one worker (one JVM), the tests sharing the
session's browser on one (one Chromium), so are tests that share other work a process does once
(:data:`SHARED_WORK`), and the longest work is sent out first.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import settings

from anonset.core.dataset import Dataset
from anonset.core.stats import StatsRequest
from anonset.engine.base import Engine
from anonset.engine.numpy.engine import NumpyEngine
from anonset.engine.sql.duckdb import DuckDBBackend
from anonset.engine.sql.engine import SqlEngine
from anonset.engine.sql.postgres import PostgresBackend
from anonset.engine.sql.profile import dataset_from_table
from anonset.io.tables import read_table, write_table
from support import PG_URL, PgSchema

settings.register_profile("anonset", derandomize=os.environ.get("ANONSET_HYPOTHESIS_RANDOM") != "1")
settings.load_profile("anonset")


# --------------------------------------------------------------------------- the engine registry
@dataclass
class EngineContext:
    """What a factory may use: an exit stack closed after the test, a temporary folder, PostgreSQL on demand."""

    stack: ExitStack
    tmp_path: Path
    request: pytest.FixtureRequest

    def postgres(self) -> PgSchema:
        """The session's schema on the test server; skips the test, with the reason, when it is unreachable."""
        schema: PgSchema = self.request.getfixturevalue("pg_schema")
        return schema

    def spark(self) -> Any:
        """The session's local Spark; skips the test, with the reason, when pyspark or Java is missing (not in CI)."""
        return self.request.getfixturevalue("spark")


#: build(context, table, attributes, request, cache_cells=..., direct_rows=...) -> (engine, its dataset)
Build = Callable[..., tuple[Engine, Dataset]]


@dataclass(frozen=True)
class EngineFactory:
    """One kind of engine the conformance suite runs on.

    Attributes
    ----------
    key : str
        The test id.
    name : str
        What the engine's ``name`` must be.
    build : callable
        ``build(context, table, attributes, request, *, cache_cells, direct_rows)``:
        the engine over ``table`` (a DataFrame of text and ``None``) with the
        attribute specs, and the dataset it was built for (built the way
        that engine's users build it: from the rows, a CSV file, or the
        database's value counts).  Whatever it opens goes on
        ``context.stack``.
    reference : bool
        The reference engine is checked against an independent computation;
        every other engine against the reference.
    database : bool
        The engine fetches from a database (``rows_fetched`` is an int);
        otherwise it holds the rows in memory (``rows_fetched`` is None).
    rolls_up_locally : bool
        The engine fetches the bottom class table once and rolls every node
        up on the driver (Spark): ``rows_fetched`` does not grow per node.
    """

    key: str
    name: str
    build: Build
    reference: bool = False
    database: bool = True
    rolls_up_locally: bool = False


def _numpy(ctx: EngineContext, table: pd.DataFrame, attributes: dict[str, Any], request: StatsRequest, *,
           cache_cells: int, direct_rows: int) -> tuple[Engine, Dataset]:
    ds = Dataset(table, attributes)
    return ctx.stack.enter_context(NumpyEngine(ds, request, cache_cells=cache_cells, floor=ds.min_levels)), ds


def _duckdb_frame(ctx: EngineContext, table: pd.DataFrame, attributes: dict[str, Any], request: StatsRequest,
                  **options: int) -> tuple[Engine, Dataset]:
    ds = Dataset(table, attributes)
    backend = ctx.stack.enter_context(DuckDBBackend.from_dataframe(table))
    return ctx.stack.enter_context(SqlEngine(ds, request, backend, "data", floor=ds.min_levels, **options)), ds


def _duckdb_csv(ctx: EngineContext, table: pd.DataFrame, attributes: dict[str, Any], request: StatsRequest,
                **options: int) -> tuple[Engine, Dataset]:
    path = ctx.tmp_path / f"table{secrets.token_hex(3)}.csv"
    write_table(table, path, delimiter=";")
    ds = Dataset(read_table(path, ";"), attributes, source=str(path))
    backend = ctx.stack.enter_context(DuckDBBackend.from_file(path, ";"))
    return ctx.stack.enter_context(SqlEngine(ds, request, backend, "data", floor=ds.min_levels, **options)), ds


def _postgres(ctx: EngineContext, table: pd.DataFrame, attributes: dict[str, Any], request: StatsRequest,
              **options: int) -> tuple[Engine, Dataset]:
    schema = ctx.postgres()
    ref = schema.load(table)
    backend = ctx.stack.enter_context(PostgresBackend(schema.url))
    ds = dataset_from_table(backend, ref, attributes)  # no row is read into Python
    return ctx.stack.enter_context(SqlEngine(ds, request, backend, ref, floor=ds.min_levels, **options)), ds


def _spark(ctx: EngineContext, table: pd.DataFrame, attributes: dict[str, Any], request: StatsRequest, *,
           cache_cells: int, direct_rows: int) -> tuple[Engine, Dataset]:
    from anonset.engine.spark.engine import SparkEngine
    from anonset.engine.spark.source import count_frame, read_frame

    spark = ctx.spark()
    path = ctx.tmp_path / f"table{secrets.token_hex(3)}.csv"
    write_table(table, path, delimiter=";")
    frame = read_frame(spark, path=path, delimiter=";")
    counts = count_frame(frame, attributes, request, str(path), at_floor=True)  # no record reaches the driver
    return ctx.stack.enter_context(SparkEngine(counts, request, frame, cache_cells=cache_cells)), counts.dataset


#: Every engine the conformance suite runs on, by test id.
ENGINES: dict[str, EngineFactory] = {f.key: f for f in [
    EngineFactory("numpy", "numpy", _numpy, reference=True, database=False),
    EngineFactory("duckdb-frame", "duckdb", _duckdb_frame),
    EngineFactory("duckdb-csv", "duckdb", _duckdb_csv),
    EngineFactory("postgres", "postgresql", _postgres),
    EngineFactory("spark", "spark", _spark, rolls_up_locally=True),
]}

#: make(table, attributes, request, cache_cells=..., direct_rows=...) -> (engine, dataset); closed after the test.
MakeEngine = Callable[..., tuple[Engine, Dataset]]


@pytest.fixture(scope="session")
def pg_schema() -> Iterator[PgSchema]:
    """A schema of its own on the test server for the session (skips when the server is unreachable)."""
    schema = PgSchema(PG_URL)
    yield schema
    schema.close()


@pytest.fixture(scope="session")
def spark_and_stderr(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    """The session's local Spark and its JVM's standard error (support.JvmStderr)."""
    from support import require_spark

    return require_spark(tmp_path_factory.mktemp("spark"))


@pytest.fixture(scope="session")
def spark(spark_and_stderr: tuple[Any, Any]) -> Any:
    """A local Spark session for the whole test session (local[1]); skips without pyspark or Java, fails in CI."""
    return spark_and_stderr[0]


@pytest.fixture(scope="session")
def spark_stderr(spark_and_stderr: tuple[Any, Any]) -> Any:
    """What the session's Spark JVM wrote to its standard error (support.JvmStderr)."""
    return spark_and_stderr[1]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the whole test session (tests/browser.py); skips without it, fails in CI."""
    from browser import browser_session

    with browser_session() as session:
        yield session


@pytest.fixture(params=list(ENGINES))
def engine_factory(request: pytest.FixtureRequest) -> EngineFactory:
    """Each registered engine in turn."""
    return ENGINES[str(request.param)]


@pytest.fixture
def make_engine(engine_factory: EngineFactory, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MakeEngine]:
    """Build engines of the current kind; everything they opened is closed after the test."""
    with ExitStack() as stack:
        context = EngineContext(stack, tmp_path, request)

        def make(table: pd.DataFrame, attributes: dict[str, Any], stats_request: StatsRequest,
                 cache_cells: int = 20_000_000, direct_rows: int = 2_000) -> tuple[Engine, Dataset]:
            return engine_factory.build(context, table, attributes, stats_request, cache_cells=cache_cells,
                                        direct_rows=direct_rows)

        yield make


# --------------------------------------------------------------------------- markers and scheduling
#: Seconds one test (one parametrization) takes alone on the 2-core reference machine, for those
#: above about a second (module file name, function name); measured with --durations on 2026-11-27.
#: Used to send the longest work out first, and for the ``slow`` marker (SLOW_SECONDS and above).
SECONDS: dict[tuple[str, str], float] = {
    ("test_out_of_core.py", "test_a_parquet_file_twice_the_memory_limit"): 14.0,  # 2026-11-28, fewer records
    ("test_docs_examples.py", "test_one_session_doc_runs_in_order"): 3.0,  # 2026-11-28, commands forked
    ("test_spark.py", "test_a_driver_memory_spark_refuses_is_named"): 6.0,
    ("test_spark.py", "test_unreachable_master_fails_within_its_timeout"): 3.0,  # 2026-11-28, a 1 s timeout
    ("test_ordered_values.py", "test_an_ordinal_selection_is_a_run_of_the_order"): 5.0,
    ("test_mondrian_compiled.py", "test_adult_workload_criteria_equal_the_reference"): 4.0,
    ("test_search.py", "test_optimal_equals_exhaustive"): 2.7,
    ("test_pareto.py", "test_adult_front_k_glm"): 2.7,
    ("test_research_value.py", "test_exact_searches_equal_the_exhaustive_sweep"): 2.5,
    ("test_sql_cli.py", "test_cli_releases_inside_the_engine"): 2.5,
    ("test_report_browser.py", "test_adult_report_from_the_command"): 2.3,
    ("test_engine_conformance.py", "test_adult_sample_of_nodes"): 2.0,
    ("test_research_value.py", "test_adult_as_morton_configured_it"): 2.0,
    ("test_cli.py", "test_demo_prints_a_verified_release"): 2.0,
    ("test_sql.py", "test_release_written_in_sql_equals_the_in_memory_release"): 1.5,
    ("test_bad_input.py", "test_subprocess_has_no_traceback"): 1.3,
    ("test_mondrian_compiled.py", "test_compiled_trees_equal_the_reference"): 0.7,
    ("test_docs_examples.py", "test_example_runs"): 1.0,
}
SLOW_SECONDS = 2.0
#: Modules that are slow as a whole (every test runs the CLI in a fresh process).
SLOW_MODULES = frozenset({"test_docs_examples.py"})

SPARK_FIXTURES = frozenset({"spark", "spark_stderr", "spark_and_stderr"})
POSTGRES_FIXTURES = frozenset({"pg_schema", "pg", "adult_pg", "small_pg"})
BROWSER_FIXTURES = frozenset({"browser"})
#: What a test that opens a schema of its own (not through a fixture) writes.
POSTGRES_CALLS = ("PgSchema(", "PostgresBackend(PG_URL")
#: Parameter values that name an engine (conformance and CLI tests are parametrized by them).
ENGINE_PARAMS = {"numpy": None, "duckdb": None, "duckdb-frame": None, "duckdb-csv": None,
                 "postgres": "postgres", "postgresql": "postgres", "spark": "spark"}


def _module(item: pytest.Item) -> str:
    return Path(str(item.fspath)).name


def _seconds(item: pytest.Item) -> float:
    name = getattr(item, "originalname", item.name)
    return SECONDS.get((_module(item), name), 0.0)


@functools.cache
def _function_source(function: Callable[..., Any]) -> str:
    """A test function's source, read once for all its parametrizations."""
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return ""


def _source(item: pytest.Item) -> str:
    function = getattr(item, "function", None)
    return _function_source(function) if function is not None else ""


def _engines(item: pytest.Item) -> list[str | None]:
    """The services of the engines ``item`` is parametrized with (None for an engine that needs none)."""
    callspec = getattr(item, "callspec", None)
    return [ENGINE_PARAMS[v] for v in (callspec.params.values() if callspec else ())
            if isinstance(v, str) and v in ENGINE_PARAMS]


def _services(item: pytest.Item) -> set[str]:
    """The services ``item`` needs: spark, postgres, browser."""
    found: set[str] = set()
    fixtures = set(getattr(item, "fixturenames", ()))
    named = _engines(item)
    if named:  # parametrized by engine: this parametrization's engine decides
        found.update(n for n in named if n is not None)
        fixtures -= {"engine_factory", "adult_backend"}
    if fixtures & SPARK_FIXTURES or _module(item).startswith("test_spark"):
        found.add("spark")
    if fixtures & BROWSER_FIXTURES:
        found.add("browser")
    if fixtures & POSTGRES_FIXTURES or (not named and any(c in _source(item) for c in POSTGRES_CALLS)):
        found.add("postgres")
    return found


#: Tests that share what a process does once (module file name, function name or None for the whole module):
#: the source tree parsed for the layering checks; the compiled judge, a kernel only these tests call, which
#: no warm-up compiles; the docs' examples' fork server (tests/forkserver.py).  One worker runs each set, so
#: it is done once per run, not once per worker.
SHARED_WORK: dict[tuple[str, str | None], str] = {
    ("test_layering.py", None): "parsed-sources",
    ("test_docs_examples.py", None): "docs-fork-server",
    ("test_mondrian_compiled.py", "test_compiled_judge_equals_the_model"): "compiled-judge",
    ("test_mondrian_compiled.py", "test_entropy_at_exactly_log_l_is_diverse"): "compiled-judge",
}
#: Seconds a test of a group counts for scheduling when SECONDS does not know it.
GROUP_TEST_SECONDS = {"spark-session": 1.0, "browser-session": 1.0}


def _group(item: pytest.Item) -> str | None:
    """The worker group of ``item``: the session's Spark (one JVM per run), the session's browser (one Chromium),
    or work its tests share (SHARED_WORK)."""
    fixtures = set(getattr(item, "fixturenames", ()))
    if fixtures & SPARK_FIXTURES or "spark" in _engines(item):  # an engine factory asks for the fixture later
        return "spark-session"
    if fixtures & BROWSER_FIXTURES:
        return "browser-session"
    module = _module(item)
    return SHARED_WORK.get((module, getattr(item, "originalname", item.name)), SHARED_WORK.get((module, None)))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every test its markers; on an xdist worker, write the groups and put the longest work first."""
    groups: dict[str, str] = {}
    for item in items:
        for service in sorted(_services(item)):
            item.add_marker(getattr(pytest.mark, service))
        if _seconds(item) >= SLOW_SECONDS or _module(item) in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        group = _group(item)
        if group is not None:
            groups[item.nodeid] = group
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None or not config.getvalue("loadgroup"):
        return  # one process, or xdist's own load scheduling (its first batches suit the collection order)
    if "anonset_groups" in workerinput:  # for the controller's scheduler (GroupScheduling)
        target = Path(workerinput["anonset_groups"]) / f"{workerinput['workerid']}.json"
        target.with_suffix(".tmp").write_text(json.dumps(groups), encoding="utf-8")
        target.with_suffix(".tmp").replace(target)
    # a unit is what a worker is handed at once: a group (its tests a second each unless known), or one test
    unit_seconds: dict[str, float] = {}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        unit = groups.get(item.nodeid, item.nodeid)
        unit_seconds[unit] = unit_seconds.get(unit, 0.0) + (_seconds(item) or GROUP_TEST_SECONDS.get(unit, 0.0))
        first.setdefault(unit, index)
    keys = {}
    for index, item in enumerate(items):
        unit = groups.get(item.nodeid, item.nodeid)
        keys[id(item)] = (-unit_seconds[unit], first[unit], index)
    items.sort(key=lambda item: keys[id(item)])


# xdist's own --dist loadgroup reads the groups from test ids that it rewrites, which pytest 9.2 no longer
# lets it do (pytest-dev/pytest-xdist#1386: the tests are then spread as if ungrouped); the workers write
# their groups to a folder instead, and the controller's scheduler reads them.
@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Controller, with ``--dist loadgroup``: tell each worker where to write the groups of its collection."""
    if node.config.getoption("dist") != "loadgroup":
        return
    folder = getattr(node.config, "anonset_groups", None)
    if folder is None:
        folder = node.config.anonset_groups = tempfile.mkdtemp(prefix="anonset-test-groups-")
    node.workerinput["anonset_groups"] = folder


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Controller, with ``--dist loadgroup``: a group goes to one worker; units in the workers' order."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        _groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._groups is None:  # every worker has written its file before the first scheduling
                folder = Path(getattr(config, "anonset_groups", ""))
                files = sorted(folder.glob("*.json")) if folder.name else []
                self._groups = json.loads(files[0].read_text(encoding="utf-8")) if files else {}
            return self._groups.get(nodeid, nodeid)

    config.option.loadscopereorder = False  # keep the workers' order: the longest work first
    return GroupScheduling(config, log)


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = getattr(config, "anonset_groups", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
