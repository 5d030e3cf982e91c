"""A Parquet file larger than the process's memory, anonymized by the DuckDB engine within a kernel-enforced limit.

Writes a synthetic register (:func:`anonset.datasets.large.write_large_register`: five
quasi-identifiers, a diagnosis and an incompressible notes column) of ``--rows`` records under
``--workdir``, then runs one ``anonset anonymize`` process (``engine: duckdb``, optimal search,
k = 5, 1% budget, DuckDB told ``memory_limit`` = a third of the limit and to spill to the work
folder) inside a memory cgroup of its own limited to ``--limit-mib`` (cgroup v1; needs root).  A
process that exceeds the limit is killed by the kernel (exit 137).  Prints the file size against
the limit, the run's exit code, its stage times, the process's peak resident set size, the cgroup's
peak (process plus the page cache it caused) and the load average.  Nothing is asserted.  Usage::

    .venv/bin/python benchmarks/out_of_core.py [--rows 21000000] [--limit-mib 1024] [--workdir /tmp/anonset-ooc]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from _report import header, load

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support import run_with_memory_limit  # tests/ is not a package: on the path above

CONFIG = """input: {{path: {table}}}
attributes:
  patient_id:     {{role: identifier}}
  age:            {{role: quasi, type: numeric, hierarchy: {{builder: intervals, widths: [5, 10, 20, 40]}}}}
  sex:            {{role: quasi, hierarchy: {{builder: flat}}}}
  race:           {{role: quasi, hierarchy: {{builder: flat}}}}
  marital_status: {{role: quasi, hierarchy: {{builder: flat}}}}
  education:      {{role: quasi, hierarchy: {{builder: flat}}}}
  diagnosis:      {{role: sensitive}}
  zip:            {{role: insensitive}}
  notes:          {{role: insensitive}}
privacy: {{k: 5, max_suppression: 0.01}}
method: {{name: optimal}}
engine: duckdb
duckdb: {{memory_limit: {duckdb_mib}MB, threads: 2, temp_directory: spill, preserve_insertion_order: false}}
output: {{path: released.parquet}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=21_000_000)
    parser.add_argument("--limit-mib", type=int, default=1024)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/anonset-ooc"))
    args = parser.parse_args()
    header("benchmarks/out_of_core.py")
    from anonset.datasets.large import write_large_register

    args.workdir.mkdir(parents=True, exist_ok=True)
    table = args.workdir / f"register_{args.rows}.parquet"
    if not table.exists():
        started = time.perf_counter()
        write_large_register(table, args.rows)
        print(f"wrote {table} in {time.perf_counter() - started:.1f} s; {load()}", flush=True)
    limit = args.limit_mib * 2**20
    size = table.stat().st_size
    print(f"table: {args.rows:,} records, {size / 2**20:,.0f} MiB = {size / limit:.2f} x the {args.limit_mib} MiB"
          " limit", flush=True)
    for stale in ("released.parquet", "spill", "summary.json"):
        path = args.workdir / stale
        if path.is_dir():
            shutil.rmtree(path)
        path.unlink(missing_ok=True)
    (args.workdir / "run.yaml").write_text(CONFIG.format(table=table, duckdb_mib=args.limit_mib // 3),
                                           encoding="utf-8")
    anonset = str(Path(sys.executable).with_name("anonset"))
    before = load()
    started = time.perf_counter()
    proc, cgroup_peak, rss_peak = run_with_memory_limit([anonset, "anonymize", "run.yaml", "-q", "--summary",
                                                        "summary.json"], limit, args.workdir, timeout=3600)
    wall = time.perf_counter() - started
    print(f"anonymize: exit {proc.returncode}, {wall:.1f} s; peak RSS {rss_peak / 2**20:,.0f} MiB, cgroup peak"
          f" {cgroup_peak / 2**20:,.0f} MiB (limit {args.limit_mib} MiB); {before} -> {load()}", flush=True)
    if proc.returncode != 0:
        print(proc.stderr[-2000:])
        return
    summary = json.loads((args.workdir / "summary.json").read_text(encoding="utf-8"))
    stages = ", ".join(f"{k} {v:.2f}" for k, v in summary["stage_seconds"].items())
    print(f"  stages: {stages}; {summary['classes']:,} classes, {summary['suppressed_rows']:,} suppressed,"
          f" levels {summary['levels']}; release {(args.workdir / 'released.parquet').stat().st_size / 2**20:,.0f}"
          " MiB", flush=True)


if __name__ == "__main__":
    main()
