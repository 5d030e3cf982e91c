"""First run after installing: every method's whole ``anonset anonymize`` process, cold and warm.

A fresh installation has no compiled kernels yet: numba compiles each kernel
the first time a process calls it and keeps the machine code in its cache.
This script reproduces that state per method by pointing ``NUMBA_CACHE_DIR``
at an empty directory (so nothing compiled before counts), then runs the same
command a second time against the now-filled cache.  The difference is what
a new user (or a fresh CI machine) pays once.

Data: the shared Adult table (30,162 records, ARX's layout and hierarchies),
quasi-identifiers sex, age, race, marital-status, education, native-country,
workclass, salary-class; occupation sensitive.  Each method gets a config of
its own (below); the release is written to a temporary directory.  Every
line gives the wall seconds of the cold and the warm process, their
difference, and the 1-minute load average at the start of the cold run.
Then the same after ``anonset compile`` (what ``make`` runs once after
installing) has filled an empty cache: its own time, and each method's first
and second process.  Nothing is asserted.

    .venv/bin/python benchmarks/cold_start.py [--methods optimal,xu-top-down] [--skip-cold] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header, load

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT.parent / "shared" / "data" / "adult"
ANONSET = Path(sys.executable).parent / "anonset"
QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class")

#: method label -> (method section, privacy section, extra roles)
RUNS: dict[str, tuple[str, str, dict[str, str]]] = {
    "optimal": ("{name: optimal, metric: loss}", "{k: 5, max_suppression: 0.01}", {}),
    "optimal + t-closeness": ("{name: optimal, metric: loss}",
                              "{k: 5, max_suppression: 0.01, t_closeness: {attribute: occupation, t: 0.2}}", {}),
    "exhaustive": ("{name: exhaustive, metric: loss}", "{k: 5, max_suppression: 0.01}", {}),
    "rv-global": ("{name: rv-global}", "{k: 5, max_suppression: 0.01}", {}),
    "rv-local": ("{name: rv-local}", "{k: 5, max_suppression: 0.01}", {}),
    "rv-hybrid": ("{name: rv-hybrid}", "{k: 5, max_suppression: 0.01}", {}),
    "rv-partitioned": ("{name: rv-partitioned, subset_size: 4}", "{k: 5, max_suppression: 0.01}", {}),
    "pareto-exhaustive": ("{name: pareto-exhaustive, objectives: [k, glm]}", "{k: 5, max_suppression: 0.01}", {}),
    "pareto-ea": ("{name: pareto-ea, objectives: [k, glm], population: 25, iterations: 30}",
                  "{k: 5, max_suppression: 0.01}", {}),
    "mondrian (median)": ("{name: mondrian}", "{k: 10}", {}),
    "mondrian (infogain)": ("{name: mondrian, criterion: infogain}", "{k: 10}", {"occupation": "target"}),
    "mondrian (median) + entropy l-diversity": ("{name: mondrian}",
                                               "{k: 10, l_diversity: {attribute: occupation, l: 3,"
                                               " variant: entropy}}", {}),
    "k-member": ("{name: k-member}", "{k: 10}", {}),
    "xu-top-down": ("{name: xu-top-down}", "{k: 10}", {}),
    "xu-bottom-up": ("{name: xu-bottom-up}", "{k: 10}", {}),
}


def write_config(workdir: Path, label: str) -> Path:
    """A YAML config of one run: the Adult table, its hierarchies, the run's method and privacy."""
    method, privacy, roles = RUNS[label]
    lines = ["input:", f'  path: "{ADULT / "adult.csv"}"', "  delimiter: ';'", "attributes:"]
    for q in QUASI:
        lines += [f"  {q}:", "    role: quasi", f'    hierarchy: "{ADULT / "hierarchies" / (q + ".csv")}"']
    lines += ["  occupation:", f"    role: {roles.get('occupation', 'sensitive')}"]
    slug = "".join(c if c.isalnum() else "-" for c in label)
    lines += [f"privacy: {privacy}", f"method: {method}", "output:", f'  path: "{workdir / (slug + ".csv")}"']
    path = workdir / f"{slug}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def timed_run(config: Path, cache: Path) -> float:
    """Wall seconds of one ``anonset anonymize`` process with numba's cache in ``cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    output = config.with_suffix(".csv")
    output.unlink(missing_ok=True)
    started = time.perf_counter()
    done = subprocess.run([str(ANONSET), "anonymize", str(config)], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{config.name}: anonset exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default=",".join(RUNS), help="comma-separated labels of RUNS")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--skip-cold", action="store_true", help="only the runs after `anonset compile`")
    args = parser.parse_args()
    header("benchmarks/cold_start.py")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="anonset-cold-"))
    workdir.mkdir(parents=True, exist_ok=True)
    labels = args.methods.split(",")
    configs = {label: write_config(workdir, label) for label in labels}
    warm: dict[str, float] = {}
    if not args.skip_cold:
        print("\n## Without `anonset compile`: each method's first process against an empty cache, then again")
        print(f"{'run':<40} {'cold s':>7} {'warm s':>7} {'cold - warm':>11}   load at the cold start")
        for label in labels:
            cache = fresh_cache(workdir)
            at_start = load()
            cold = timed_run(configs[label], cache)
            warm[label] = timed_run(configs[label], cache)
            print(f"{label:<40} {cold:>7.2f} {warm[label]:>7.2f} {cold - warm[label]:>11.2f}   {at_start}",
                  flush=True)
    print("\n## After `anonset compile` (what `make` runs after installing): each method's first process")
    cache = fresh_cache(workdir)
    at_start = load()
    started = time.perf_counter()
    subprocess.run([str(ANONSET), "compile", "--quiet"], env=dict(os.environ, NUMBA_CACHE_DIR=str(cache)),
                   check=True, capture_output=True)
    print(f"anonset compile into an empty cache: {time.perf_counter() - started:.1f} s   {at_start}")
    print(f"{'run':<40} {'first s':>7} {'second s':>8} {'first - second':>14}   load at the first run")
    for label in labels:
        at_start = load()
        first = timed_run(configs[label], cache)
        second = timed_run(configs[label], cache)
        print(f"{label:<40} {first:>7.2f} {second:>8.2f} {first - second:>14.2f}   {at_start}", flush=True)
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)


def fresh_cache(workdir: Path) -> Path:
    """An empty directory for numba's cache (what a fresh installation has)."""
    cache = workdir / "numba-cache"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir()
    return cache


if __name__ == "__main__":
    main()
