"""Every method on the same tables with the same requirements: time, classes, suppression, loss and risk.

The figures of docs/choosing.md.  Two tables:

* Adult (``adult.csv`` of the reference data, 30,162 records) with the README's attributes: seven
  quasi-identifiers through the shared hierarchy files (age numeric), occupation sensitive,
  salary-class insensitive;
* the built-in synthetic patient register (``anonset.datasets.patient_register``, 30,000 records,
  seed 0) with its own specs: six quasi-identifiers, diagnosis sensitive, length of stay passed
  through.

The requirements are 5-anonymity with at most 1% of the records suppressed.  The partitioning
methods (k-member, xu-*, mondrian) suppress nothing, so they run with 5-anonymity and no budget;
the trade-off methods (pareto-*) release the member of their front (objectives k and GLM) that
reaches k = 5 with the least GLM within the 1% budget.  The workload-aware Mondrian rows use InfoGain
on salary-class (Adult) and LSD on length of stay (register).

Each method is fitted once untimed (numba's kernels loaded, the dataset's caches filled), then once
timed: ``seconds`` is ``Anonymizer.fit`` on the encoded dataset (the method, rendering the release,
every metric, the independent re-check and the risk figures).  Reading and encoding the table are
not in it.  The risk columns are the release's (``release.risk['release']``): the highest and the
average prosecutor risk of the released classes, suppressed records left out.

Usage::

    .venv/bin/python benchmarks/methods_compared.py [--tables adult,register] [--register-rows 30000]
        [--adult-rows N] [--methods optimal,mondrian,...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from _report import header, load

from anonset import Anonymizer, Dataset, KAnonymity, Requirements, read_hierarchy
from anonset.datasets import patient_register, patient_register_attributes
from anonset.io.tables import read_table
from anonset.methods import registry
from anonset.methods.base import Family

ADULT = ROOT.parent / "shared" / "data" / "adult"
QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass")
MACHINE = "2-core, 24 GB python-svc virtual machine"


@dataclass
class Run:
    """One row of the table: a method (with a label for its options) on one table."""

    label: str
    method: str
    options: dict[str, Any] = field(default_factory=dict)


def adult_dataset(rows: int | None) -> Dataset:
    """Adult with the README's attributes (every quasi-identifier through its hierarchy file)."""
    table = read_table(ADULT / "adult.csv", delimiter=";")
    if rows is not None:
        table = table.head(rows)
    attributes: dict[str, Any] = {q: {"role": "quasi", "hierarchy": read_hierarchy(ADULT / "hierarchies" / f"{q}.csv")}
                                  for q in QUASI}
    attributes["age"]["type"] = "numeric"
    attributes["occupation"] = {"role": "sensitive"}
    attributes["salary-class"] = {"role": "insensitive"}
    return Dataset(table, attributes, source="adult.csv")


def register_dataset(rows: int) -> Dataset:
    """The synthetic patient register with its own attribute specs."""
    table = patient_register(rows, seed=0)
    return Dataset(table, patient_register_attributes(table), source=f"patient_register({rows})")


def runs(table: str, methods: list[str] | None) -> list[Run]:
    """Every registered method with its defaults, plus the workload-aware Mondrian of the table."""
    out = [Run(name, name) for name in registry.names()]
    if table == "adult":
        out.append(Run("mondrian (infogain)", "mondrian", {"criterion": "infogain", "targets": ["salary-class"]}))
    else:
        out.append(Run("mondrian (lsd)", "mondrian", {"criterion": "lsd", "targets": ["length_of_stay"]}))
    if methods:
        out = [r for r in out if r.method in methods]
    return out


def requirements_for(method: str) -> Requirements:
    """k = 5 with a 1% budget, or without one for the methods that suppress nothing."""
    if registry.get(method).family is Family.GROUPING:
        return Requirements([KAnonymity(5)])
    return Requirements([KAnonymity(5)], max_suppression=0.01)


def measure(dataset: Dataset, run: Run) -> str:
    """Fit once untimed and once timed; the table row."""
    def fit() -> Any:
        return Anonymizer({}, requirements_for(run.method), method=run.method, method_options=run.options,
                          seed=0).fit(dataset).release_

    fit()
    started = time.perf_counter()
    release = fit()
    seconds = time.perf_counter() - started
    m = release.metrics
    risk = (release.risk or {}).get("release") or {}
    budget = "no" if registry.get(run.method).family is Family.GROUPING else "1%"
    return (f"| {run.label} | {budget} | {seconds:.2f} | {release.n_classes:,} | {release.suppressed_rows:,} |"
            f" {m['loss']:.4f} | {m['ncp']:,.0f} | {m['discernibility']:,.0f} |"
            f" {risk.get('highest_risk', float('nan')):.3f} | {risk.get('average_risk', float('nan')):.4f} |"
            f" {load()} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="adult,register", help="adult, register or both")
    parser.add_argument("--adult-rows", type=int, default=None, help="the first N records of Adult (default: all)")
    parser.add_argument("--register-rows", type=int, default=30_000)
    parser.add_argument("--methods", default="", help="comma-separated method names (default: every method)")
    parser.add_argument("--machine", default=MACHINE, help="how the machine is named in the output")
    args = parser.parse_args()
    methods = [m for m in args.methods.split(",") if m] or None

    header("benchmarks/methods_compared.py")
    print(f"machine name: {args.machine}")
    print(f"load average (1, 5, 15 minutes): {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("requirements: 5-anonymity; budget 1% of the records (partitioning methods: no budget, they suppress"
          " nothing);\npareto-*: the least-GLM member of the {k, GLM} front with k >= 5 within the 1% budget")
    started = time.perf_counter()
    for table in args.tables.split(","):
        began = time.perf_counter()
        if table == "adult":
            dataset = adult_dataset(args.adult_rows)
        elif table == "register":
            dataset = register_dataset(args.register_rows)
        else:
            raise SystemExit(f"unknown table {table!r}; use adult or register")
        print(f"\n{dataset.source}: {dataset.n_rows:,} records; quasi-identifiers {', '.join(dataset.quasi)};"
              f" encoded in {time.perf_counter() - began:.2f} s\n")
        print("| method | budget | seconds | classes | suppressed | Loss | NCP | discernibility | highest risk"
              " | average risk | load after |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for run in runs(table, methods):
            print(measure(dataset, run), flush=True)
    print(f"\ntotal {time.perf_counter() - started:.0f} s; {load()}")


if __name__ == "__main__":
    main()
