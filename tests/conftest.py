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
"""

from __future__ import annotations

import os
import secrets
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
    return ctx.stack.enter_context(NumpyEngine(ds, request, cache_cells=cache_cells)), ds


def _duckdb_frame(ctx: EngineContext, table: pd.DataFrame, attributes: dict[str, Any], request: StatsRequest,
                  **options: int) -> tuple[Engine, Dataset]:
    ds = Dataset(table, attributes)
    backend = ctx.stack.enter_context(DuckDBBackend.from_dataframe(table))
    return ctx.stack.enter_context(SqlEngine(ds, request, backend, "data", **options)), ds


def _duckdb_csv(ctx: EngineContext, table: pd.DataFrame, attributes: dict[str, Any], request: StatsRequest,
                **options: int) -> tuple[Engine, Dataset]:
    path = ctx.tmp_path / f"table{secrets.token_hex(3)}.csv"
    write_table(table, path, delimiter=";")
    ds = Dataset(read_table(path, ";"), attributes, source=str(path))
    backend = ctx.stack.enter_context(DuckDBBackend.from_file(path, ";"))
    return ctx.stack.enter_context(SqlEngine(ds, request, backend, "data", **options)), ds


def _postgres(ctx: EngineContext, table: pd.DataFrame, attributes: dict[str, Any], request: StatsRequest,
              **options: int) -> tuple[Engine, Dataset]:
    schema = ctx.postgres()
    ref = schema.load(table)
    backend = ctx.stack.enter_context(PostgresBackend(schema.url))
    ds = dataset_from_table(backend, ref, attributes)  # no row is read into Python
    return ctx.stack.enter_context(SqlEngine(ds, request, backend, ref, **options)), ds


def _spark(ctx: EngineContext, table: pd.DataFrame, attributes: dict[str, Any], request: StatsRequest, *,
           cache_cells: int, direct_rows: int) -> tuple[Engine, Dataset]:
    from anonset.engine.spark.engine import SparkEngine
    from anonset.engine.spark.source import count_frame, read_frame

    spark = ctx.spark()
    path = ctx.tmp_path / f"table{secrets.token_hex(3)}.csv"
    write_table(table, path, delimiter=";")
    frame = read_frame(spark, path=path, delimiter=";")
    counts = count_frame(frame, attributes, request, str(path))  # no record reaches the driver
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
def spark() -> Iterator[Any]:
    """A local Spark session for the whole test session (local[2]); skips without pyspark or Java, fails in CI."""
    from support import require_spark

    yield require_spark()


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
