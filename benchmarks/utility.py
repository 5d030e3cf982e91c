"""Utility checks any release can be put through: aggregate-query accuracy and pattern survival.

Sections (``--sections``, default all):

- ``adult``: ``adult.data`` (30,162 complete records, the eight quasi-identifiers of ``adult_morton``,
  target the salary class), releases of ``--methods`` (default optimal, k-member, xu-top-down, mondrian)
  at ``--k`` (default 5, 10, 25, 50) through the Anonymizer.  Per release: the query accuracy of
  ``--queries`` random range-count queries (dimension ``--dimension``, selectivity ``--selectivity``:
  mean and median relative error, share of queries off by more than 10%) and pattern survival (decision
  tree accuracy on held-out raw records, grown on the release and on the raw data; the attributes of
  both trees' first three levels and their overlap).  ``--kmember-rows`` limits k-member to the first
  records (default: all; it took seconds per k on the full table here).
- ``speed``: ``--queries`` queries over a Mondrian release (k = 10) of ``--rows`` synthetic patient-register
  records (default 1,000,000): seconds to draw the workload, to answer it on the raw records, and to
  estimate it on the release.  Nothing is asserted.

    .venv/bin/python benchmarks/utility.py
    .venv/bin/python benchmarks/utility.py --sections speed
    .venv/bin/python benchmarks/utility.py --sections adult --k 10 --methods mondrian
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from anonset import KAnonymity, Requirements
from anonset.anonymizer import Anonymizer
from anonset.core.dataset import AttributeSpec, Dataset, Role
from anonset.datasets import adult_morton, patient_register_dataset
from anonset.evaluation.patterns import pattern_survival
from anonset.evaluation.queries import estimated_counts, query_accuracy, random_workload, true_counts

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header, load

ADULT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult"


def adult(rows: int | None = None) -> Dataset:
    """Adult as ``adult_morton`` configures it, with the salary class (``income``) as the target."""
    ds = adult_morton(ADULT)
    specs: dict[str, Any] = dict(ds.specs)
    specs["income"] = AttributeSpec(role=Role.TARGET)
    assert ds.table is not None
    table = ds.table if rows is None else ds.table.iloc[:rows].reset_index(drop=True)
    return Dataset(table, specs, source=ds.source if rows is None else f"{ds.source} (first {rows} records)")


def adult_grid(args: argparse.Namespace) -> None:
    print(f"\n## Adult: {args.queries} queries, dimension {args.dimension}, selectivity {args.selectivity};"
          " decision tree on salary class, 30% held out (seed 0)")
    print(f"{'method':12} {'k':>3} {'rows':>6} {'classes':>7} {'mean':>7} {'median':>7} {'>10%':>6}"
          f" {'acc rel':>7} {'acc raw':>7} {'overlap':>7} {'fit s':>6} {'check s':>7}  release splits | raw splits")
    full = adult()
    for method in args.methods.split(","):
        ds = adult(args.kmember_rows) if method == "k-member" else full
        for k in (int(v) for v in args.k.split(",")):
            started = time.perf_counter()
            release = Anonymizer({}, Requirements([KAnonymity(k)]), method=method, seed=0).fit(ds).release_
            fitted = time.perf_counter() - started
            partition = release.partition
            started = time.perf_counter()
            q = query_accuracy(ds, partition, n_queries=args.queries, dimension=args.dimension,
                               selectivity=args.selectivity, seed=0)
            p = pattern_survival(ds, partition, "income", seed=0)
            checked = time.perf_counter() - started
            print(f"{method:12} {k:>3} {ds.n_rows:>6} {partition.n_classes:>7} {q.mean:7.3f} {q.median:7.3f}"
                  f" {q.share_above:6.1%} {p.release_score:7.4f} {p.raw_score:7.4f} {p.overlap:7.2f} {fitted:6.1f}"
                  f" {checked:7.1f}  {','.join(p.release_splits)} | {','.join(p.raw_splits)}  {load()}", flush=True)


def speed(args: argparse.Namespace) -> None:
    print(f"\n## Speed: {args.queries} queries (dimension {args.dimension}, selectivity {args.selectivity}) over a"
          f" Mondrian k = 10 release of {args.rows:,} patient-register records")
    ds = patient_register_dataset(args.rows, seed=0)
    started = time.perf_counter()
    partition = Anonymizer({}, Requirements([KAnonymity(10)]), method="mondrian", seed=0).fit(ds).release_.partition
    print(f"release: {partition.n_classes:,} classes in {time.perf_counter() - started:.1f} s  {load()}", flush=True)
    started = time.perf_counter()
    workload = random_workload(ds, args.queries, args.dimension, args.selectivity, seed=0)
    drawn = time.perf_counter() - started
    started = time.perf_counter()
    true = true_counts(ds, workload)
    answered = time.perf_counter() - started
    started = time.perf_counter()
    estimated = estimated_counts(ds, partition, workload)
    estimated_s = time.perf_counter() - started
    errors = np.abs(estimated - true) / np.maximum(true, 1)
    print(f"workload {drawn:.2f} s, raw answers {answered:.2f} s, release estimates {estimated_s:.2f} s,"
          f" total {drawn + answered + estimated_s:.2f} s; mean relative error {errors.mean():.4f}  {load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sections", default="adult,speed")
    parser.add_argument("--methods", default="optimal,k-member,xu-top-down,mondrian")
    parser.add_argument("--k", default="5,10,25,50")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--dimension", type=int, default=2)
    parser.add_argument("--selectivity", type=float, default=0.1)
    parser.add_argument("--kmember-rows", type=int, default=None)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    header("benchmarks/utility.py")
    sections = args.sections.split(",")
    if "speed" in sections:
        speed(args)
    if "adult" in sections:
        adult_grid(args)


if __name__ == "__main__":
    main()
