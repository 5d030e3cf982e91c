"""Parallel kernels on a busy machine: xu-bottom-up's wall time alone and beside a CPU-bound process.

xu-bottom-up (the method whose merge search runs in parallel) anonymizes the
first ``--rows`` records of the shared Adult table (seven quasi-identifiers with
their hierarchies, k = 10) in a fresh process, four ways: quiet with the thread
count anonset chooses, and beside one busy-looping process with the count
anonset chooses (the free cores) and with every core (``ANONSET_THREADS`` = the
core count, numba's own default).  It prints wall and CPU seconds and the load
average at each start; nothing is asserted.

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
import sys, time, resource
import pandas as pd
from anonset import Anonymizer, KAnonymity, Requirements, read_hierarchy
adult, rows = sys.argv[1], int(sys.argv[2])
table = pd.read_csv(adult + '/adult.csv', sep=';', dtype=str, keep_default_na=False).head(rows)
quasi = sys.argv[3].split(',')
attrs = {q: {'role': 'quasi', 'hierarchy': read_hierarchy(adult + '/hierarchies/' + q + '.csv')} for q in quasi}
from anonset.methods.threads import thread_count
threads = thread_count()
start, cpu = time.perf_counter(), time.process_time()
Anonymizer(attrs, Requirements([KAnonymity(10)]), method='xu-bottom-up').fit(table[quasi])
print(f'{time.perf_counter() - start:.2f} {time.process_time() - cpu:.2f} {threads}')
"""


def run(rows: int, threads: str | None) -> str:
    env = dict(os.environ)
    env.pop("ANONSET_THREADS", None)
    if threads is not None:
        env["ANONSET_THREADS"] = threads
    out = subprocess.run([sys.executable, "-c", CHILD, str(ADULT), str(rows), ",".join(QUASI)], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    return f"wall {out[0]:>7} s   CPU {out[1]:>7} s   threads {out[2]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    header("benchmarks/parallel.py")
    cores = len(os.sched_getaffinity(0))
    print(f"\nxu-bottom-up, Adult first {args.rows:,} records, k = 10, {cores} cores")
    run(args.rows, "1")  # warm the compiled kernels' cache
    print(f"  quiet, anonset's choice          {run(args.rows, None)}   {load()}")
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(2)
        print(f"  busy, anonset's choice           {run(args.rows, None)}   {load()}")
        print(f"  busy, every core ({cores} threads)     {run(args.rows, str(cores))}   {load()}")
    finally:
        busy.kill()


if __name__ == "__main__":
    main()
