"""Local suppression on Adult, as a user runs it: a fresh ``anonset anonymize`` process per run, beside ``optimal``.

The table: ``../shared/data/adult/adult.csv`` (30,162 records), eight quasi-identifiers (sex, age,
race, marital-status, education, native-country, workclass, occupation) with their hierarchies from
the same folder.  For each k: ``local-suppression`` (values blanked, no record suppressed) and
``optimal`` with a 1% record-suppression budget (generalization, the suppressed records all ``*``),
each in a fresh process.  Printed per run: the wall seconds of the process, the load average, the
values blanked (local suppression) or the levels and records suppressed (optimal), the Loss and the
share of original values each release keeps (cells neither blanked nor generalized).  Nothing is
asserted.

    .venv/bin/python benchmarks/local_suppression.py [--k 2 5 10]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from _report import header, load

ADULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "adult"
QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation")


def _config(folder: Path, method: str, k: int) -> Path:
    lines = [f"input: {{path: {ADULT / 'adult.csv'}, delimiter: ';'}}", "attributes:"]
    for q in QUASI:
        kind = ", type: numeric" if q == "age" else ""
        lines.append(f"  {q}: {{role: quasi{kind}, hierarchy: {ADULT / 'hierarchies' / (q + '.csv')}}}")
    lines.append("  salary-class: {role: insensitive}")
    budget = ", max_suppression: 0.01" if method == "optimal" else ""
    lines += [f"privacy: {{k: {k}{budget}}}", f"method: {{name: {method}}}", f"output: {{path: {method}-{k}.csv}}"]
    path = folder / f"{method}-{k}.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="+", default=[2, 5, 10])
    args = parser.parse_args()
    header("benchmarks/local_suppression.py")
    if not (ADULT / "adult.csv").exists():
        raise SystemExit(f"reference data not found at {ADULT}")
    original = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    anonset = str(Path(sys.executable).with_name("anonset"))
    print(f"{'method':<18} {'k':>3} {'seconds':>8}  {'load':<18} {'kept values':>11}  what was given up")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for k in args.k:
            for method in ("local-suppression", "optimal"):
                config = _config(work, method, k)
                started = time.perf_counter()
                done = subprocess.run([anonset, "anonymize", str(config), "-q", "--summary", str(work / "s.json")],
                                      cwd=work, capture_output=True, text=True, check=False)
                seconds = time.perf_counter() - started
                if done.returncode:
                    print(f"{method:<18} {k:>3} failed: {done.stderr.strip().splitlines()[-1]}")
                    continue
                summary = json.loads((work / "s.json").read_text())
                released = pd.read_csv(work / f"{method}-{k}.csv", sep=";", dtype=str, keep_default_na=False)
                kept = float((released[list(QUASI)] == original[list(QUASI)]).to_numpy().mean())
                if method == "local-suppression":
                    cells = summary["suppressed_cells"]
                    parts = ", ".join(f"{q} {n:,}" for q, n in cells.items() if n)
                    given = f"{sum(cells.values()):,} values blanked ({parts})"
                else:
                    levels = ", ".join(f"{q} {v}" for q, v in summary["levels"].items() if v)
                    given = f"levels {levels}; {summary['suppressed_rows']:,} records suppressed"
                print(f"{method:<18} {k:>3} {seconds:>8.2f}  {load():<18} {kept:>11.1%}  {given};"
                      f" loss {summary['metrics']['loss']:.4f}")


if __name__ == "__main__":
    main()
