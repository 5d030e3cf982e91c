"""What distribution costs Mondrian: distributed Mondrian on Spark against Mondrian on one machine.

The synthetic patient register (``patient_register(rows, seed=0)``, its standard specs: age numeric,
sex, zip, race, marital status, education as quasi-identifiers; the patient ids passed through so
the released rows can be matched to the input), median Mondrian, strict, k = 10:

- ``single machine``: :class:`anonset.Anonymizer` with ``method="mondrian"`` on the whole table;
- ``spark, P = n``: distributed Mondrian (:mod:`anonset.distributed.mondrian`) on Spark
  ``local[2]`` with ``fragments: n`` (the default on this machine is 6: three per core), reading the
  table as a CSV file; the default ``sample_rows`` (1,000,000) holds the whole table, so the first
  cuts are cut on every record;
- ``spark, P = n, sample m``: the largest P with ``sample_rows: m``, so the first cuts are cut on a
  sample (as on a table larger than a million records);
- ``(local ranges)``: the largest P with each fragment normalizing ranges by its own span instead of
  the table's (``global_ranges=False``), to show what that correction buys.

Per run: the fragments (after merging), the classes of the release, its Loss, GCP (NCP over its
maximum) and discernibility as the run's summary reports them (for Spark: added up from the
fragments' partial sums), the mean relative error of 1,000 random 2-dimensional count queries of
selectivity 0.1 (:func:`anonset.evaluation.queries.query_accuracy`; for Spark the released part files
are read back and matched to the input by patient id), the run's seconds (for Spark the
distributed release alone: sampling, cuts, fragments, writing, re-check; the session and the table's
profile are started once before) and the 1-minute load average.  As a cross-check, the Spark release's
GCP is also recomputed from the part files; the two must agree.  It prints; nothing is asserted.

    .venv/bin/python benchmarks/distributed_mondrian.py [--rows 200000,1000000] [--fragments 1,2,6,24]
        [--samples 100000,10000]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonset import Anonymizer, KAnonymity, Requirements
from anonset.core.dataset import AttributeSpec, Dataset, Role
from anonset.core.partition import Partition, partition_of_assignment
from anonset.datasets.synthetic import patient_register, patient_register_attributes
from anonset.evaluation.queries import query_accuracy, random_workload
from anonset.metrics import GCP

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header, load

K = 10
COLUMNS = ("run", "fragments", "classes", "Loss", "GCP", "discernibility", "query error", "seconds", "load")


def _row(run: str, fragments: int, classes: int, metrics: dict[str, Any], error: float, seconds: float) -> str:
    one = load().split()[1].split("/")[0]
    return (f"| {run} | {fragments} | {classes:,} | {metrics['loss']:.4f} | {metrics['gcp']:.4f} |"
            f" {metrics['discernibility']:.4g} | {error:.4f} | {seconds:.1f} | {one} |")


def _released_partition(folder: Path, whole: Dataset, ids: pd.Series) -> Partition:
    """The classes of the part files Spark wrote (records with identical released quasi-identifiers), in input order."""
    released = pd.concat([pd.read_csv(p, dtype=str, keep_default_na=False) for p in sorted(folder.glob("part-*.csv"))],
                         ignore_index=True)
    position = pd.Series(np.arange(len(ids)), index=ids.to_numpy())
    rows = position.loc[released["patient_id"].to_numpy()].to_numpy()
    classes = released.groupby(list(whole.quasi), sort=False).ngroup().to_numpy(dtype=np.int64)
    row_class = np.empty(len(ids), dtype=np.int64)
    row_class[rows] = classes
    return partition_of_assignment(whole, row_class)


def run(rows: int, fragment_counts: list[int], samples: list[int], folder: Path) -> None:
    from anonset.distributed.mondrian import release_mondrian_on_spark
    from anonset.engine.spark.session import spark_session
    from anonset.engine.spark.source import dataset_from_frame, read_frame

    table = patient_register(rows, seed=0)
    attributes = dict(patient_register_attributes(table))
    attributes["patient_id"] = AttributeSpec(role=Role.INSENSITIVE)  # passed through: released rows matched by it
    requirements = Requirements([KAnonymity(K)])
    whole = Dataset(table, attributes, source="register")
    workload = random_workload(whole, 1000, 2, 0.1, seed=0)
    print(f"\n{rows:,} records, k = {K}\n")
    print("| " + " | ".join(COLUMNS) + " |")
    print("|---|" + "--:|" * (len(COLUMNS) - 2) + "--:|", flush=True)

    started = time.perf_counter()
    release = Anonymizer(attributes, requirements, method="mondrian").fit(whole).release_
    seconds = time.perf_counter() - started
    error = query_accuracy(whole, release.partition, workload).mean
    print(_row("single machine", 1, release.n_classes, dict(release.metrics), error, seconds), flush=True)

    path = folder / f"register-{rows}.csv"
    table.to_csv(path, index=False)
    spark = spark_session("local[2]")
    frame = read_frame(spark, path=str(path))
    profiled = dataset_from_frame(frame, attributes, str(path))
    most = max(fragment_counts)
    runs = ([(p, None, True) for p in fragment_counts] + [(most, n, True) for n in samples if n < rows]
            + [(most, None, False)])
    for fragments, sample_rows, global_ranges in runs:
        output = folder / f"out-{rows}-{fragments}-{sample_rows}-{int(global_ranges)}.csv"
        shutil.rmtree(output, ignore_errors=True)
        model = Anonymizer(attributes, requirements, method="mondrian",
                           method_options={"fragments": fragments, "sample_rows": sample_rows})
        started = time.perf_counter()
        distributed, _ = release_mondrian_on_spark(frame, profiled, model, str(output), global_ranges=global_ranges)
        seconds = time.perf_counter() - started
        partition = _released_partition(output, whole, table["patient_id"])
        error = query_accuracy(whole, partition, workload).mean
        name = (f"spark, P = {fragments}" + ("" if sample_rows is None else f", sample {sample_rows:,}")
                + ("" if global_ranges else " (local ranges)"))
        print(_row(name, distributed.search.to_json()["fragments"], distributed.n_classes,
                   dict(distributed.metrics), error, seconds), flush=True)
        recomputed = GCP().score(partition, whole)
        if abs(recomputed - distributed.metrics["gcp"]) > 1e-9:
            print(f"  GCP from the part files {recomputed:.6f} differs from the summary's"
                  f" {distributed.metrics['gcp']:.6f}", flush=True)
        shutil.rmtree(output, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="200000,1000000", help="table sizes, comma-separated")
    parser.add_argument("--fragments", default="1,2,6,24", help="fragment counts P, comma-separated")
    parser.add_argument("--samples", default="100000,10000",
                        help="sample sizes below the table's (sample_rows), run with the largest P, comma-separated")
    args = parser.parse_args()
    header("benchmarks/distributed_mondrian.py")
    with tempfile.TemporaryDirectory(prefix="anonset-dm-") as tmp:
        for rows in (int(r) for r in args.rows.split(",")):
            run(rows, [int(p) for p in args.fragments.split(",")], [int(n) for n in args.samples.split(",")], Path(tmp))
    print(f"\nat end: {load()}")


if __name__ == "__main__":
    main()
