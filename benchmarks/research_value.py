"""Research value (Morton et al.): reproduction figures and engine timings for docs/research_value.md.

Sections (each can be selected with --sections):

* ``golden``  — the paper's worked example (RV = 0.0054) and Table 1's race rules (0.75).
* ``adult``   — Adult as Morton configured it (adult.data, 30,162 records, 8 quasi-identifiers,
  lattice of 4,320 strings), k = 3, 5, 10: the best string of an exhaustive examination and what
  rv-global, rv-local, rv-hybrid and rv-partitioned find, with frequency sets computed and time.
* ``root``    — Adult's exhaustive optimum with the root level worth zero (the paper's rule) and with the
  root valued by the formula (given as per-level RVs): the strings, their research value, roots, ARX
  loss, classes and discernibility, and where rv-local ends.
* ``scaling`` — the wide synthetic survey with 12 to 28 quasi-identifiers: plain rv-global against
  rv-partitioned (time, peak traced memory, frequency sets, whether the search completed).
* ``engines`` — rv-global through the numpy engine, DuckDB and PostgreSQL on Adult and on a
  1,000,000-row synthetic register: time per frequency set and in total (setup reported apart).

It prints; nothing is asserted.  ``.venv/bin/python benchmarks/research_value.py [--sections ...]``
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeType, Dataset
from anonset.core.partition import Partition
from anonset.datasets import adult_morton, patient_register_dataset, wide_survey_dataset
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import AnonsetError
from anonset.hierarchy import Hierarchy
from anonset.methods.full_domain.research_value import (
    rv_global,
    rv_hybrid,
    rv_local,
    rv_partitioned,
)
from anonset.methods.full_domain.search import exhaustive_search
from anonset.metrics.class_metrics import Discernibility
from anonset.metrics.loss import Loss
from anonset.metrics.research_value import DoNotMix, KeepBoundary, ResearchValue, cramers_v_weights
from anonset.privacy import KAnonymity, Requirements

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT.parent / "shared" / "data" / "adult"
PG_URL = "postgresql://postgres@127.0.0.1:5432/test"


def golden() -> None:
    leaves = [str(v) for v in range(1, 51)]
    group = ["1-10"] * 10 + ["11-25"] * 15 + ["26-50"] * 25
    h = Hierarchy.from_rows("x", [[v, g, "*"] for v, g in zip(leaves, group, strict=True)])
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.integers(1, 11, 25), rng.integers(11, 26, 45), rng.integers(26, 51, 55)]).astype(str)
    ds = Dataset(pd.DataFrame({"x": values}), {"x": {"role": "quasi", "type": "numeric", "hierarchy": h}})
    rv = ResearchValue(weights={"x": 0.2}, rules={"x": [KeepBoundary(11, 50), KeepBoundary(5, 50)]}).tables(ds)[0]
    print(f"worked example: RV at level 1 = {rv[1]:.6f} (paper: 0.0054)")
    rows = [["White", "White", "*"], ["Hispanic", "Hispanic-Black", "*"], ["Black", "Hispanic-Black", "*"],
            ["Asian", "Asian", "*"]]
    race = Dataset(pd.DataFrame({"race": ["White", "Hispanic", "Black", "Asian"]}),
                   {"race": {"role": "quasi", "hierarchy": Hierarchy.from_rows("race", rows)}})
    rules = [DoNotMix(("White", "Hispanic"), 5), DoNotMix(("White", "Black"), 20),
             DoNotMix(("Hispanic", "Black"), 10), DoNotMix(("Hispanic", "Asian"), 5)]
    metric = ResearchValue(weights={"race": 1.0}, rules={"race": rules})
    ratio = metric.tables(race)[0][1] / (3 / 4)  # RV_1 = 1 · |A_1|/|A_0| · ΣDR_1/ΣDR_0, |A_1|/|A_0| = 3/4
    print(f"Table 1: mixing Hispanic and Black leaves ΣDR_1/ΣDR_0 = {ratio:.2f} (paper: 30/40 = 0.75)")
    weighted = ResearchValue(weights={"x": 0.2}, rules={"x": [KeepBoundary(11, 30), KeepBoundary(5, 10)]})
    print(f"worked example, rules of importance 30 (kept) and 10 (lost): RV at level 1 ="
          f" {weighted.tables(ds)[0][1]:.6f} (0.2 · 125/2300 · 30/40; counting rules would give 0.005435)")
    white_black = Dataset(pd.DataFrame({"race": ["White", "Hispanic", "Black", "Asian"]}), {"race": {
        "role": "quasi", "hierarchy": Hierarchy.from_rows("race", [["White", "White-Black", "*"],
                                                                   ["Black", "White-Black", "*"],
                                                                   ["Hispanic", "Hispanic", "*"],
                                                                   ["Asian", "Asian", "*"]])}})
    merged = ResearchValue(weights={"race": 1.0}, rules={"race": rules}).tables(white_black)[0][1] / (3 / 4)
    print(f"Table 1's rules, White and Black merged: ΣDR_1/ΣDR_0 = {merged:.2f} (20/40; counting rules: 3/4)")


def _run(search: Any, ds: Dataset, req: Requirements, metric: ResearchValue, engine: Any = None,
         **options: Any) -> dict[str, Any]:
    tracemalloc.start()
    started = time.perf_counter()
    try:
        result = search(ds, engine or NumpyEngine(ds, req.request), req, metric, **options)
        outcome = {"levels": ",".join(map(str, result.levels)), "rv": result.score,
                   "fsets": result.details.get("frequency_sets", result.checks),
                   "complete": result.details.get("complete", True),
                   "successes": len(result.details.get("success_list", [])) or 1}
    except AnonsetError as exc:
        outcome = {"levels": f"({type(exc).__name__}: {str(exc)[:70]})", "rv": float("nan"), "fsets": 0,
                   "complete": False, "successes": 0}
    outcome["seconds"] = time.perf_counter() - started
    outcome["peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return outcome


def adult() -> None:
    ds = adult_morton(ADULT)
    print(f"Adult (adult.data, {ds.n_rows:,} records, quasi-identifiers {', '.join(ds.quasi)}), auto weights,"
          " no rules; lattice 4,320 strings")
    print(f"{'k':>3} {'search':15} {'best string':20} {'RV':>8} {'freq. sets':>10} {'share':>6} {'seconds':>8}")
    for k in (3, 5, 10):
        req = Requirements([KAnonymity(k)])
        metric = ResearchValue()
        metric.tables(ds)
        for name, search in (("exhaustive", exhaustive_search), ("rv-global", rv_global), ("rv-local", rv_local),
                             ("rv-hybrid", rv_hybrid), ("rv-partitioned", rv_partitioned)):
            r = _run(search, ds, req, metric)
            print(f"{k:>3} {name:15} {r['levels']:20} {r['rv']:8.4f} {r['fsets']:>10} {r['fsets'] / 4320:6.1%}"
                  f" {r['seconds']:8.3f}")


def _formula_root(ds: Dataset) -> ResearchValue:
    """RV with the root level valued by the formula (w/|A_0| categorical, w/leaves numeric), given as levels."""
    paper = ResearchValue()
    weights = cramers_v_weights(ds)
    levels = {}
    for j, (q, table) in enumerate(zip(ds.quasi, paper.tables(ds), strict=True)):
        h = ds.require_hierarchy(q)
        if ds.specs[q].type is AttributeType.NUMERIC:
            share = 1.0 / h.n_leaves  # Σ_0 N·R = n; at the root N = n and R = every leaf
        else:
            share = 1.0 / int((ds.encoded[q].counts() > 0).sum())  # |A_root| / |A_0|
        levels[q] = [*table[:-1], weights[j] * share]
    return ResearchValue(levels=levels)


def root_rule() -> None:
    ds = adult_morton(ADULT)
    print("Root level worth zero (the paper) or valued by the formulas: the exhaustive optimum"
          " on Adult, auto weights, no rules")
    print(f"{'k':>3} {'root':8} {'best string':18} {'RV, zero root':>13} {'roots':>5} {'loss':>7} {'classes':>7}"
          f" {'discernibility':>14}  rv-local string")
    paper = ResearchValue()
    top = np.array([h.max_level for h in ds.hierarchies])
    for k in (3, 5, 10):
        req = Requirements([KAnonymity(k)])
        for name, metric in (("zero", paper), ("formula", _formula_root(ds))):
            best = exhaustive_search(ds, NumpyEngine(ds, req.request), req, metric)
            partition = Partition.from_node(ds.quasi, best.stats, best.verdict.kept)
            rv = float(paper.node_values(ds, np.array([best.levels]))[0])
            local = rv_local(ds, NumpyEngine(ds, req.request), req, metric)
            print(f"{k:>3} {name:8} {','.join(map(str, best.levels)):18} {rv:13.4f}"
                  f" {int((np.array(best.levels) == top).sum()):>5} {Loss().score(partition, ds):7.4f}"
                  f" {len(best.stats.sizes):>7}"
                  f" {Discernibility().score(partition, ds):14,.0f}  {','.join(map(str, local.levels))}"
                  f" (RV {local.score:.4f})")


def scaling(budget: int) -> None:
    print(f"wide synthetic survey, 50,000 records, k = 5, 2% suppression, equal weights;"
          f" rv-partitioned: subsets of 6, budget {budget:,} frequency sets")
    print(f"{'QIs':>4} {'lattice':>16} {'search':15} {'RV':>8} {'freq. sets':>10} {'complete':>8}"
          f" {'seconds':>8} {'peak MB':>8}")
    for d in (12, 16, 24, 28):
        ds = wide_survey_dataset(50_000, d, seed=0)
        req = Requirements([KAnonymity(5)], 0.02)
        metric = ResearchValue(weights={q: 1.0 for q in ds.quasi})
        metric.tables(ds)
        size = 3 ** d
        for name, search, options in (("rv-global", rv_global, {"max_frequency_sets": budget}),
                                      ("rv-partitioned", rv_partitioned,
                                       {"subset_size": 6, "max_frequency_sets": budget})):
            r = _run(search, ds, req, metric, **options)
            note = "" if r["successes"] else "  " + r["levels"]
            print(f"{d:>4} {size:>16,} {name:15} {r['rv']:8.3f} {r['fsets']:>10} {r['complete']!s:>8}"
                  f" {r['seconds']:8.2f} {r['peak_mb']:8.1f}{note}")


def _pg_load(frame: pd.DataFrame) -> tuple[Any, str]:
    import psycopg

    con = psycopg.connect(PG_URL, autocommit=True)
    schema = f"anonset_bench_{secrets.token_hex(4)}"
    con.execute(f'CREATE SCHEMA "{schema}"')
    cols = ", ".join(f'"{c}" text' for c in frame.columns)
    con.execute(f'CREATE TABLE "{schema}"."data" ({cols})')
    with con.cursor() as cur, cur.copy(f'COPY "{schema}"."data" FROM STDIN (FORMAT csv)') as copy:
        copy.write(frame.to_csv(index=False, header=False, lineterminator="\n"))
    con.execute(f'ANALYZE "{schema}"."data"')
    return con, schema


def engines() -> None:
    from anonset.engine.sql.duckdb import DuckDBBackend
    from anonset.engine.sql.engine import SqlEngine
    from anonset.engine.sql.postgres import PostgresBackend
    from anonset.engine.sql.profile import dataset_from_table

    tables = {
        "Adult (Morton)": (adult_morton(ADULT), 5),
        "register 1M": (patient_register_dataset(1_000_000, seed=0), 5),
    }
    print(f"{'table':16} {'engine':11} {'setup s':>8} {'search s':>9} {'freq. sets':>10} {'ms per set':>10}"
          f" {'rows to Python':>14} {'best string'}")
    for label, (ds, k) in tables.items():
        req = Requirements([KAnonymity(k)])
        attributes = {name: spec for name, spec in ds.specs.items()}
        frame = ds.table
        assert frame is not None
        runs: list[tuple[str, Any, Any]] = []
        started = time.perf_counter()
        runs.append(("numpy", ds, NumpyEngine(ds, req.request)))
        setup = {"numpy": time.perf_counter() - started}
        started = time.perf_counter()
        duck = DuckDBBackend.from_dataframe(frame)
        duck_ds = dataset_from_table(duck, duck.table, attributes)
        runs.append(("duckdb", duck_ds, SqlEngine(duck_ds, req.request, duck, duck.table)))
        setup["duckdb"] = time.perf_counter() - started
        con = None
        try:
            con, schema = _pg_load(frame)
            started = time.perf_counter()
            pg = PostgresBackend(PG_URL)
            pg_ds = dataset_from_table(pg, (schema, "data"), attributes)
            runs.append(("postgresql", pg_ds, SqlEngine(pg_ds, req.request, pg, (schema, "data"))))
            setup["postgresql"] = time.perf_counter() - started
        except Exception as exc:
            print(f"PostgreSQL not measured: {' '.join(str(exc).split())[:100]}")
        try:
            for name, data, engine in runs:
                metric = ResearchValue()
                metric.tables(data, engine)
                started = time.perf_counter()
                result = rv_global(data, engine, req, metric)
                seconds = time.perf_counter() - started
                fsets = result.details["frequency_sets"]
                fetched = getattr(getattr(engine, "backend", None), "rows_fetched", None)
                per_set = 1000 * seconds / fsets
                print(f"{label:16} {name:11} {setup[name]:8.2f} {seconds:9.3f} {fsets:>10} {per_set:10.2f}"
                      f" {fetched if fetched is not None else '-':>14} {','.join(map(str, result.levels))}")
        finally:
            if con is not None:
                con.execute(f'DROP SCHEMA "{schema}" CASCADE')
                con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", default="golden,adult,root,scaling,engines")
    parser.add_argument("--budget", type=int, default=5000, help="frequency-set budget of the scaling runs")
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {platform.platform()}, {os.cpu_count()} CPUs, Python"
          f" {platform.python_version()}, load average {os.getloadavg()[0]:.2f} at the start")
    if "golden" in sections:
        golden()
    if "adult" in sections:
        adult()
    if "root" in sections:
        root_rule()
    if "scaling" in sections:
        scaling(args.budget)
    if "engines" in sections:
        engines()
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
