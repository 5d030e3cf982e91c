"""``anonset init`` on a one-million-record CSV: the seconds of a fresh process, three times.

The table is generated here (seeded, nothing is read from elsewhere) with the
columns a new user typically has: a record number (``id``, ``P0000001``), a
person's name (first and last name drawn from short lists), ``age`` (18-90),
``birth_date`` (ISO dates 1935-2006), ``zip`` (five-digit codes, some with a
leading zero), ``sex``, ``diagnosis`` (30 categories) and ``income`` (skewed,
log-normal).  Each run is a new Python process, as a user's ``anonset init``
would be, started through the command object (the command is also reachable
as ``anonset init`` once registered)::

    python -c "from anonset.commands.init import init; init()" DATA.csv -o CONFIG.yaml

Every line gives the wall seconds of one process and the load averages at its
start (on a 2-core machine a 1-minute load above 2 means the run had to wait).
The generated config is checked to load (``anonset.config.load_config``).
Nothing is asserted.

    .venv/bin/python benchmarks/init_speed.py [--rows 1000000] [--runs 3] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header

FIRST = ["Anna", "Ben", "Carla", "David", "Emma", "Felix", "Greta", "Hugo", "Ida", "Jonas", "Karin", "Leo",
         "Mia", "Noah", "Olga", "Paul", "Rosa", "Sven", "Tina", "Uwe", "Vera", "Walter", "Yara", "Zoe"]
LAST = ["Meier", "Schmidt", "Keller", "Weber", "Huber", "Fischer", "Brunner", "Baumann", "Frei", "Gerber",
        "Moser", "Widmer", "Graf", "Wyss", "Roth", "Suter", "Kunz", "Marti", "Sutter", "Lehmann", "Kaiser",
        "Zimmermann", "Bachmann", "Hofer", "Egli", "Steiner", "Vogel", "Frey", "Bieri", "Kessler"]
DIAGNOSES = [f"{chapter}{number:02d}" for chapter in "EFIJKM" for number in (10, 11, 20, 45, 50)]


def make_table(path: Path, rows: int, seed: int = 0) -> None:
    """Write the benchmark's CSV of ``rows`` records to ``path`` (same seed, same file)."""
    rng = np.random.default_rng(seed)
    numbers = pc.cast(pa.array(np.arange(1, rows + 1)), pa.string())
    ids = pc.binary_join_element_wise("P", pc.utf8_lpad(numbers, 7, "0"), "")
    first = pa.array(FIRST).take(pa.array(rng.integers(0, len(FIRST), rows)))
    last = pa.array(LAST).take(pa.array(rng.integers(0, len(LAST), rows)))
    initial = pa.array([chr(c) for c in range(65, 91)]).take(pa.array(rng.integers(0, 26, rows)))
    names = pc.binary_join_element_wise(first, pc.binary_join_element_wise(initial, ".", ""), last, " ")
    age = pc.cast(pa.array(rng.integers(18, 91, rows)), pa.string())
    start = np.datetime64("1935-01-01").astype(np.int64)
    days = rng.integers(start, np.datetime64("2006-12-31").astype(np.int64), rows).astype(np.int32)
    birth = pc.cast(pa.array(days, pa.date32()), pa.string())
    areas = pa.array(rng.integers(0, 60, rows) * 1000 + rng.integers(0, 400, rows))
    zips = pc.utf8_lpad(pc.cast(areas, pa.string()), 5, "0")
    sex = pa.array(["F", "M"]).take(pa.array(rng.integers(0, 2, rows)))
    diagnosis = pa.array(DIAGNOSES).take(pa.array(rng.integers(0, len(DIAGNOSES), rows)))
    income = pc.cast(pa.array(np.round(rng.lognormal(10.8, 0.6, rows) / 100) * 100, pa.float64()).cast(pa.int64()),
                     pa.string())
    table = pa.table({"id": ids, "name": names, "age": age, "birth_date": birth, "zip": zips, "sex": sex,
                      "diagnosis": diagnosis, "income": income})
    pacsv.write_csv(table, path, pacsv.WriteOptions(quoting_style="none"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None, help="folder for the table (default: a temporary one)")
    args = parser.parse_args()
    header("benchmarks/init_speed.py")
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        data = Path(tmp) / "patients.csv"
        began = time.perf_counter()
        make_table(data, args.rows)
        print(f"table: {args.rows:,} records, {data.stat().st_size / 2**20:.1f} MiB,"
              f" generated in {time.perf_counter() - began:.1f} s")
        code = "from anonset.commands.init import init; init()"
        for run in range(1, args.runs + 1):
            config = Path(tmp) / f"config-{run}.yaml"
            one, five, fifteen = os.getloadavg()
            began = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", code, str(data), "-o", str(config)],
                                  capture_output=True, text=True)
            seconds = time.perf_counter() - began
            status = "ok" if done.returncode == 0 else f"exit {done.returncode}: {done.stderr.strip()}"
            print(f"run {run}: {seconds:.2f} s  (load at start {one:.2f}/{five:.2f}/{fifteen:.2f})  {status}",
                  flush=True)
        from anonset.config import load_config

        cfg = load_config(Path(tmp) / "config-1.yaml")
        print(f"config loads: {len(cfg.attributes)} columns, quasi-identifiers: {', '.join(cfg.quasi_columns())}")
        print(f"at end: load {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
