"""Benchmark the SQL engine (DuckDB, PostgreSQL) against the numpy engine, frequency set by frequency set.

For each table a fixed list of lattice nodes (a seeded random sample, in
random order) is computed by a fresh engine of every kind; the time of each
``class_stats`` call is recorded.  Setting up is reported apart:

* ``load``    -- putting the table into the database (DuckDB: copying the
  DataFrame into a DuckDB table; PostgreSQL: ``COPY`` into a table of a
  scratch schema, then ``ANALYZE``).  numpy: none (the table is in memory).
* ``profile`` -- PostgreSQL only: the value counts the dataset is built from
  (:func:`anonset.engine.sql.profile.dataset_from_table`).
* ``setup``   -- engine construction: numpy's pass over the rows; the SQL
  engine's mapping-table uploads and the bottom class table built in the
  database.

Tables: Adult (8 quasi-identifiers, histogram of occupation) from
``../shared/data/adult`` when present, and the synthetic patient register
(:func:`anonset.datasets.patient_register`, default 1,000,000 rows, 6
quasi-identifiers), with and without the histogram of diagnosis.  Optionally
the whole optimal search on Adult (k=5, 1% suppression) per engine.

Timings are printed, never asserted.  Usage::

    python benchmarks/sql_engine.py
    python benchmarks/sql_engine.py --rows 200000 --nodes 100 --no-search
    python benchmarks/sql_engine.py --pg-url postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeSpec, Dataset
from anonset.core.stats import StatsRequest
from anonset.datasets import patient_register, patient_register_attributes
from anonset.engine.numpy.engine import NumpyEngine
from anonset.engine.sql.base import redact_url
from anonset.engine.sql.duckdb import DuckDBBackend
from anonset.engine.sql.engine import SqlEngine
from anonset.engine.sql.postgres import PostgresBackend
from anonset.engine.sql.profile import dataset_from_table
from anonset.hierarchy import read_hierarchy
from anonset.io.tables import read_table
from anonset.methods.full_domain.search import lattice_of, optimal_search
from anonset.metrics import Loss
from anonset.privacy import KAnonymity, Requirements

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header as print_header
from _report import load as load_average

ROOT = Path(__file__).resolve().parents[1]
ADULT_DIR = ROOT.parent / "shared" / "data" / "adult"
ADULT_QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class")
DEFAULT_PG_URL = os.environ.get("ANONSET_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")


@dataclass
class Case:
    """A table, its attribute specs and the statistics requested."""

    name: str
    table: pd.DataFrame
    attributes: dict[str, AttributeSpec]
    request: StatsRequest


@dataclass
class Measured:
    """Timings of one engine on one case."""

    engine: str
    load_s: float
    profile_s: float
    setup_s: float
    node_ms: list[float]
    classes: int
    rows_fetched: int | None
    bottom_s: float = 0.0


# --------------------------------------------------------------------------- cases
def adult_case() -> Case | None:
    """Adult with 8 quasi-identifiers and the histogram of occupation (None when the data are absent)."""
    if not (ADULT_DIR / "adult.csv").exists():
        return None
    table = read_table(ADULT_DIR / "adult.csv", ";")
    attrs = {c: AttributeSpec(role="quasi", hierarchy=read_hierarchy(ADULT_DIR / "hierarchies" / f"{c}.csv", name=c))
             for c in ADULT_QUASI}
    attrs["occupation"] = AttributeSpec(role="sensitive")
    return Case("adult (30,162 rows), histogram of occupation", table, attrs,
                StatsRequest(frozenset({"occupation"})))


def register_cases(n_rows: int) -> list[Case]:
    """The patient register, sizes only and with the histogram of diagnosis."""
    table = patient_register(n_rows)
    attrs = patient_register_attributes(table)
    return [
        Case(f"patient register ({n_rows:,} rows), sizes only", table, attrs, StatsRequest()),
        Case(f"patient register ({n_rows:,} rows), histogram of diagnosis", table, attrs,
             StatsRequest(frozenset({"diagnosis"}))),
    ]


def node_list(dataset: Dataset, n_nodes: int, seed: int) -> list[tuple[int, ...]]:
    """A seeded random sample of lattice nodes, in random order."""
    nodes = lattice_of(dataset).nodes
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(nodes), min(n_nodes, len(nodes)), replace=False)
    return [tuple(int(v) for v in nodes[i]) for i in pick]


# --------------------------------------------------------------------------- engines
def time_bottom_fetch(engine: Any) -> float:
    """Seconds to fetch the most specific node's class table (materialized at setup) into Python."""
    started = time.perf_counter()
    engine.class_stats(tuple(0 for _ in engine.hierarchies))
    return time.perf_counter() - started


def time_nodes(engine: Any, nodes: list[tuple[int, ...]]) -> tuple[list[float], int]:
    """Milliseconds per class_stats call, and the classes returned in total."""
    times: list[float] = []
    classes = 0
    for levels in nodes:
        started = time.perf_counter()
        stats = engine.class_stats(levels)
        times.append(1000 * (time.perf_counter() - started))
        classes += stats.n_classes
    return times, classes


def run_numpy(case: Case, dataset: Dataset, nodes: list[tuple[int, ...]]) -> Measured:
    """The reference engine (one warm-up construction first: numba compilation is not counted)."""
    NumpyEngine(dataset, case.request).class_stats(nodes[0])
    started = time.perf_counter()
    engine = NumpyEngine(dataset, case.request)
    setup = time.perf_counter() - started
    times, classes = time_nodes(engine, nodes)
    return Measured("numpy", 0.0, 0.0, setup, times, classes, None)


def run_duckdb(case: Case, dataset: Dataset, nodes: list[tuple[int, ...]]) -> Measured:
    """DuckDB with the table copied into a DuckDB table."""
    backend = DuckDBBackend()
    try:
        started = time.perf_counter()
        backend.con.register("frame", case.table)
        backend.con.execute('CREATE TABLE "data" AS SELECT * FROM frame')
        backend.con.unregister("frame")
        load = time.perf_counter() - started
        started = time.perf_counter()
        engine = SqlEngine(dataset, case.request, backend, "data")
        setup = time.perf_counter() - started
        times, classes = time_nodes(engine, nodes)
        fetched = backend.rows_fetched
        bottom = time_bottom_fetch(engine)
        engine.close()
        return Measured("duckdb", load, 0.0, setup, times, classes, fetched, bottom)
    finally:
        backend.close()


def run_postgres(case: Case, nodes: list[tuple[int, ...]], url: str) -> Measured:
    """PostgreSQL: COPY into a scratch schema, profile, build the engine, compute the nodes; drop the schema."""
    import psycopg

    schema = f"anonset_bench_{secrets.token_hex(4)}"
    con = psycopg.connect(url, autocommit=True)
    con.execute(f'CREATE SCHEMA "{schema}"')
    try:
        started = time.perf_counter()
        cols = ", ".join(f'"{c}" text' for c in case.table.columns)
        con.execute(f'CREATE TABLE "{schema}"."data" ({cols})')
        text = case.table.to_csv(index=False, header=False, lineterminator="\n")
        with con.cursor() as cur, cur.copy(f'COPY "{schema}"."data" FROM STDIN (FORMAT csv)') as copy:
            copy.write(text)
        con.execute(f'ANALYZE "{schema}"."data"')
        load = time.perf_counter() - started
        with PostgresBackend(url) as backend:
            started = time.perf_counter()
            dataset = dataset_from_table(backend, (schema, "data"), case.attributes)
            profile = time.perf_counter() - started
            started = time.perf_counter()
            engine = SqlEngine(dataset, case.request, backend, (schema, "data"))
            setup = time.perf_counter() - started
            times, classes = time_nodes(engine, nodes)
            fetched = backend.rows_fetched
            bottom = time_bottom_fetch(engine)
            engine.close()
        return Measured("postgresql", load, profile, setup, times, classes, fetched, bottom)
    finally:
        con.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        con.close()


def postgres_available(url: str) -> str | None:
    """None when the server answers, else the reason."""
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=5).close()
    except psycopg.Error as exc:
        return str(exc).strip().splitlines()[0]
    return None


# --------------------------------------------------------------------------- reporting
def report(case: Case, n_rows: int, results: list[Measured]) -> None:
    """Print one table of figures for a case."""
    print(f"\n== {case.name}: {len(results[0].node_ms)} nodes ==")
    base = statistics.mean(results[0].node_ms)
    header = (f"{'engine':<11}{'load s':>8}{'profile s':>10}{'setup s':>9}{'nodes s':>9}{'mean ms':>9}"
              f"{'median':>8}{'p90':>8}{'x numpy':>9}{'classes':>11}{'fetched':>11}{'bottom s':>10}")
    print(header)
    for r in results:
        mean = statistics.mean(r.node_ms)
        p90 = float(np.percentile(r.node_ms, 90))
        fetched = "-" if r.rows_fetched is None else f"{r.rows_fetched:,}"
        print(f"{r.engine:<11}{r.load_s:>8.2f}{r.profile_s:>10.2f}{r.setup_s:>9.2f}{sum(r.node_ms) / 1000:>9.2f}"
              f"{mean:>9.2f}{statistics.median(r.node_ms):>8.2f}{p90:>8.2f}{mean / base:>9.1f}"
              f"{r.classes:>11,}{fetched:>11}{r.bottom_s:>10.2f}")
    same = all(r.classes == results[0].classes for r in results)
    print(f"(after the nodes: {load_average()}; rows in table: {n_rows:,}; same number of classes from every"
          f" engine: {'yes' if same else 'NO'};"
          " 'fetched': rows fetched into Python during the nodes, profile included; 'bottom s': fetching"
          " the most specific class table once, for comparison)")


def search_figures(case: Case, url: str | None) -> None:
    """Optimal search on Adult, k=5, 1% suppression, through each engine (fresh engine per run)."""
    reqs = Requirements([KAnonymity(5)], 0.01)
    attrs = {**case.attributes, "occupation": AttributeSpec(role="quasi", hierarchy=read_hierarchy(
        ADULT_DIR / "hierarchies" / "occupation.csv", name="occupation"))}
    dataset = Dataset(case.table, attrs)
    print("\n== optimal search, Adult 9 quasi-identifiers, k=5, 1% suppression (config b1) ==")
    runners: list[tuple[str, Callable[[], tuple[Any, Any, Dataset]]]] = [
        ("numpy", lambda: (NumpyEngine(dataset, reqs.request), None, dataset)),
    ]

    def duck() -> tuple[Any, Any, Dataset]:
        backend = DuckDBBackend.from_dataframe(case.table)
        return SqlEngine(dataset, reqs.request, backend, "data"), backend, dataset

    runners.append(("duckdb", duck))
    if url is not None:
        import psycopg

        schema = f"anonset_bench_{secrets.token_hex(4)}"
        con = psycopg.connect(url, autocommit=True)
        con.execute(f'CREATE SCHEMA "{schema}"')
        cols = ", ".join(f'"{c}" text' for c in case.table.columns)
        con.execute(f'CREATE TABLE "{schema}"."data" ({cols})')
        with con.cursor() as cur, cur.copy(f'COPY "{schema}"."data" FROM STDIN (FORMAT csv)') as copy:
            copy.write(case.table.to_csv(index=False, header=False, lineterminator="\n"))

        def pg() -> tuple[Any, Any, Dataset]:
            backend = PostgresBackend(url)
            ds = dataset_from_table(backend, (schema, "data"), attrs)
            return SqlEngine(ds, reqs.request, backend, (schema, "data")), backend, ds

        runners.append(("postgresql", pg))
    NumpyEngine(dataset, reqs.request).class_stats(tuple(0 for _ in dataset.quasi))  # numba warm-up
    try:
        for name, make in runners:
            started = time.perf_counter()
            engine, backend, ds = make()
            built = time.perf_counter()
            result = optimal_search(ds, engine, reqs, Loss())
            done = time.perf_counter()
            fetched = "" if backend is None else f", rows fetched {backend.rows_fetched:,}"
            print(f"{name:<11} total {done - started:6.2f} s (engine {built - started:5.2f} s, search"
                  f" {done - built:5.2f} s), optimum {result.levels}, checks {result.checks},"
                  f" nodes computed {engine.nodes_computed}{fetched}; {load_average()}")
            if backend is not None:
                backend.close()
    finally:
        if url is not None:
            con.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of the synthetic register")
    parser.add_argument("--nodes", type=int, default=200, help="nodes per table")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pg-url", default=DEFAULT_PG_URL)
    parser.add_argument("--no-pg", action="store_true")
    parser.add_argument("--no-duckdb", action="store_true")
    parser.add_argument("--no-adult", action="store_true")
    parser.add_argument("--no-register", action="store_true")
    parser.add_argument("--no-search", action="store_true")
    args = parser.parse_args()

    url: str | None = None if args.no_pg else args.pg_url
    if url is not None:
        reason = postgres_available(url)
        if reason is not None:
            print(f"PostgreSQL not reachable at {redact_url(url)}: {reason} -- skipping PostgreSQL")
            url = None
    print_header("benchmarks/sql_engine.py")
    cases: list[Case] = []
    adult = None if args.no_adult else adult_case()
    if adult is not None:
        cases.append(adult)
    if not args.no_register:
        started = time.perf_counter()
        cases += register_cases(args.rows)
        print(f"generated the register in {time.perf_counter() - started:.1f} s")
    for case in cases:
        dataset = Dataset(case.table, case.attributes)
        nodes = node_list(dataset, args.nodes, args.seed)
        results = [run_numpy(case, dataset, nodes)]
        if not args.no_duckdb:
            results.append(run_duckdb(case, dataset, nodes))
        if url is not None:
            results.append(run_postgres(case, nodes, url))
        report(case, len(case.table), results)
    if adult is not None and not args.no_search:
        search_figures(adult, url)


if __name__ == "__main__":
    main()
