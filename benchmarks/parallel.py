"""Parallel kernels on a busy machine: each one's wall time quiet, on one thread, and beside a CPU-bound process.

anonset has two parallel kernels: xu-bottom-up's merge search (its fit) and
the placement of new records by a clustering method's classes (the
transform of ``k-member``, ``xu-top-down`` and ``xu-bottom-up``).  Each is
timed in a fresh process on the first ``--rows`` records of the shared Adult
table (seven quasi-identifiers with their hierarchies, k = 10):

- xu-bottom-up's fit on those records;
- xu-top-down fitted on the first half, then the time of placing the second
  half (``Anonymizer.transform``).

Four ways each: quiet with the thread count anonset chooses, quiet on one
thread, and beside one busy-looping process with anonset's choice (the free
cores) and with every core (``ANONSET_THREADS`` = the core count, numba's own
default).  It prints wall and CPU seconds, the ratio to the quiet run, and
the load average at each start; nothing is asserted.

    .venv/bin/python benchmarks/parallel.py [--rows 10000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header, load

ADULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "adult"
QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass")

CHILD = """
import sys, time
import pandas as pd
from anonset import Anonymizer, KAnonymity, Requirements, read_hierarchy
adult, rows, kernel = sys.argv[1], int(sys.argv[2]), sys.argv[4]
table = pd.read_csv(adult + '/adult.csv', sep=';', dtype=str, keep_default_na=False).head(rows)
quasi = sys.argv[3].split(',')
attrs = {q: {'role': 'quasi', 'hierarchy': read_hierarchy(adult + '/hierarchies/' + q + '.csv')} for q in quasi}
from anonset.methods.threads import thread_count
threads = thread_count()
if kernel == 'fit':
    start, cpu = time.perf_counter(), time.process_time()
    Anonymizer(attrs, Requirements([KAnonymity(10)]), method='xu-bottom-up').fit(table[quasi])
else:
    half = len(table) // 2
    fitted = Anonymizer(attrs, Requirements([KAnonymity(10)]), method='xu-top-down',
                        on_violation='warn').fit(table[quasi].iloc[:half])
    start, cpu = time.perf_counter(), time.process_time()
    import warnings
    with warnings.catch_warnings():  # new records may leave a class short of k: a warning, not the point here
        warnings.simplefilter('ignore')
        fitted.transform(table[quasi].iloc[half:], return_release=True)
print(f'{time.perf_counter() - start:.2f} {time.process_time() - cpu:.2f} {threads}')
"""

KERNELS = {"fit": "xu-bottom-up fit (merge search)", "transform": "xu-top-down transform (placing new records)"}


def run(rows: int, kernel: str, threads: str | None) -> tuple[float, str]:
    """(wall seconds, printed line) of one fresh process."""
    env = dict(os.environ)
    env.pop("ANONSET_THREADS", None)
    if threads is not None:
        env["ANONSET_THREADS"] = threads
    out = subprocess.run([sys.executable, "-c", CHILD, str(ADULT), str(rows), ",".join(QUASI), kernel], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), f"wall {out[0]:>7} s   CPU {out[1]:>7} s   threads {out[2]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    header("benchmarks/parallel.py")
    cores = len(os.sched_getaffinity(0))
    for kernel, title in KERNELS.items():
        print(f"\n{title}, Adult first {args.rows:,} records, k = 10, {cores} cores")
        run(args.rows, kernel, "1")  # warm the compiled kernels' cache
        quiet, line = run(args.rows, kernel, None)
        print(f"  quiet, anonset's choice          {line}   {load()}")
        one, line = run(args.rows, kernel, "1")
        print(f"  quiet, one thread                {line}   x{one / quiet:.2f}   {load()}")
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            time.sleep(2)
            seconds, line = run(args.rows, kernel, None)
            print(f"  busy, anonset's choice           {line}   x{seconds / quiet:.2f}   {load()}")
            seconds, line = run(args.rows, kernel, str(cores))
            print(f"  busy, every core ({cores} threads)     {line}   x{seconds / quiet:.2f}   {load()}")
        finally:
            busy.kill()


if __name__ == "__main__":
    main()
