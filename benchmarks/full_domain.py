"""Benchmark the exact full-domain search against ARX 3.9.2 on the Adult table.

Every configuration of ``CONFIGS`` is measured the way the ARX figures were:
the data and hierarchies are loaded once (timed separately), then each repeat
builds a fresh :class:`~anonset.engine.NumpyEngine` and runs
:func:`~anonset.methods.full_domain.search.optimal_search` with the Loss metric.
Engine construction plus search is the search time.  One warm-up run comes
first, so numba's compilation / on-disk cache load is not counted; the median
of the repeats is reported beside ARX's median, together with the optimum,
its Loss, the suppressed records and the nodes checked.  Each Adult row is
also timed in a fresh process of its own: after loading, the first engine +
search of that process, which loads the compiled kernels from numba's cache
(what a user's one-off run pays).

The scaled tables (mix10, mix33) are built with ``make_mix.py`` from the
shared Adult directory into a temporary directory (never into the project) and
each is measured in a child process of its own, so the peak resident set size
(``ru_maxrss``) belongs to that configuration alone.

Finally the whole ``anonset anonymize CONFIG`` command is timed on
configuration b1 (process start, YAML parsing, reading, search, verification,
writing the release), median of three runs, and ``anonset --version``.

Timings are printed, never asserted.  Usage::

    python benchmarks/full_domain.py                  # everything (mix33 needs a few minutes)
    python benchmarks/full_domain.py --configs a,b1 --repeats 3
    python benchmarks/full_domain.py --no-mix --no-cli
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from anonset.core.dataset import AttributeSpec, Dataset
from anonset.core.hierarchy_csv import read_hierarchy
from anonset.engine.numpy.engine import NumpyEngine
from anonset.io.tables import read_table
from anonset.methods.full_domain.search import exhaustive_search, lattice_of, optimal_search
from anonset.metrics import Loss
from anonset.privacy import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    Requirements,
    TCloseness,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header as print_header
from _report import load

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
ADULT_DIR = SHARED / "data" / "adult"
ADULT = ADULT_DIR / "adult.csv"
HIERARCHIES = ADULT_DIR / "hierarchies"
MAKE_MIX = ADULT_DIR / "make_mix.py"
COLUMNS = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass",
           "occupation", "salary-class")
SENSITIVE = "occupation"
MIX = {"mix10": (10, 301_620), "mix33": (33, 995_346)}  # name -> (factor, expected rows)
CLI_CONFIG = "b1"
TARGET_RATIO = 0.25  # the share of ARX's time every Adult row should stay within
MIX33_RSS_TARGET_GB = 1.0


@dataclass(frozen=True)
class Config:
    """One benchmark row and ARX 3.9.2's figures for it (in-process medians after warm-up, measured on a
    2-core virtual machine of the same kind; constants, not re-measured by this script)."""

    name: str
    description: str
    k: int
    suppression: float
    model: tuple[str, float] | None  # extra model on occupation: ("distinct"|"entropy", l) or ("t", t)
    data: str  # "adult", "mix10" or "mix33"
    arx_ms: float
    arx_levels: tuple[int, ...]
    arx_loss: float
    arx_nodes: int
    arx_rss_gb: float | None = None


#: ARX 3.9.2's in-process ``anonymize()`` medians (ms): measured side by side with anonset on a quiet 2-core VM
#: of this kind (load about 1), after two warm-ups in the same JVM, median of 5; mix33's comes from an earlier,
#: busier run on the same kind of VM.
CONFIGS = [
    Config("a", "k=5, no suppression", 5, 0.0, None, "adult",
           112, (0, 4, 1, 1, 3, 2, 2, 1, 0), 0.57315, 181),
    Config("b1", "k=5, 1%", 5, 0.01, None, "adult",
           1422, (0, 3, 1, 1, 2, 2, 1, 1, 0), 0.36241, 1160),
    Config("b2", "k=5, 5%", 5, 0.05, None, "adult",
           1806, (0, 3, 0, 0, 2, 1, 1, 2, 0), 0.24193, 1217),
    Config("c1", "k=10, 1%", 10, 0.01, None, "adult",
           1043, (0, 4, 0, 1, 3, 1, 1, 2, 0), 0.39121, 893),
    Config("c2", "k=100, 1%", 100, 0.01, None, "adult",
           295, (0, 4, 1, 2, 1, 2, 1, 2, 0), 0.54496, 400),
    Config("d", "k=5 + distinct l=3 on occupation, 1%", 5, 0.01, ("distinct", 3), "adult",
           773, (0, 3, 0, 2, 3, 1, 1, 0), 0.29929, 491),
    Config("e1", "k=5 + entropy l=3 on occupation, 1%", 5, 0.01, ("entropy", 3), "adult",
           853, (0, 3, 0, 1, 3, 2, 1, 0), 0.31832, 579),
    Config("e2", "k=5 + t=0.2 (equal) on occupation, 1%", 5, 0.01, ("t", 0.2), "adult",
           960, (1, 4, 1, 1, 3, 1, 2, 1), 0.81500, 1535),
    Config("mix10", "mix10 (301,620 rows), k=5, 1%", 5, 0.01, None, "mix10",
           20_722, (0, 3, 0, 1, 2, 1, 1, 1, 0), 0.20175, 997),
    Config("mix33", "mix33 (995,346 rows), k=5, 1%", 5, 0.01, None, "mix33",
           25_200, (0, 3, 0, 0, 2, 1, 1, 1, 0), 0.15334, 795, arx_rss_gb=1.58),
]
BY_NAME = {c.name: c for c in CONFIGS}


# --------------------------------------------------------------------------- loading
def load_dataset(path: Path, sensitive: bool) -> Dataset:
    """Read a ';'-separated Adult-layout table with all-default hierarchies.

    All nine columns are quasi-identifiers, or (``sensitive``) occupation is
    sensitive and the other eight are quasi-identifiers.
    """
    table = read_table(path, ";")
    attributes: dict[str, AttributeSpec] = {}
    for column in COLUMNS:
        if sensitive and column == SENSITIVE:
            attributes[column] = AttributeSpec(role="sensitive")
        else:
            hierarchy = read_hierarchy(HIERARCHIES / f"{column}.csv", name=column)
            attributes[column] = AttributeSpec(role="quasi", hierarchy=hierarchy)
    return Dataset(table, attributes, source=str(path))


def requirements(config: Config) -> Requirements:
    """The privacy models and suppression budget of a configuration."""
    models: list[PrivacyModel] = [KAnonymity(config.k)]
    if config.model is not None:
        kind, value = config.model
        if kind == "distinct":
            models.append(DistinctLDiversity(SENSITIVE, value))
        elif kind == "entropy":
            models.append(EntropyLDiversity(SENSITIVE, value))
        else:
            models.append(TCloseness(SENSITIVE, value, "equal"))
    return Requirements(models, config.suppression)


def timed_load(path: Path, sensitive: bool) -> tuple[Dataset, float]:
    """The dataset and the seconds its loading took (table, hierarchies, encoding)."""
    started = time.perf_counter()
    dataset = load_dataset(path, sensitive)
    dataset.qi_codes()
    return dataset, time.perf_counter() - started


# --------------------------------------------------------------------------- measuring
def run_once(dataset: Dataset, reqs: Requirements) -> tuple[float, float, float, Any]:
    """Fresh engine + optimal search; (total seconds, engine seconds, CPU seconds of this process, result)."""
    cpu = time.process_time()
    started = time.perf_counter()
    engine = NumpyEngine(dataset, reqs.request)
    built = time.perf_counter()
    result = optimal_search(dataset, engine, reqs, Loss())
    done = time.perf_counter()
    return done - started, built - started, time.process_time() - cpu, result


def measure(dataset: Dataset, config: Config, repeats: int) -> dict[str, Any]:
    """One warm-up run, then ``repeats`` timed runs; the median and the optimum found."""
    reqs = requirements(config)
    reqs.validate(dataset)
    run_once(dataset, reqs)  # warm-up: numba compile / cache load, first-touch allocations
    totals, engines, cpus = [], [], []
    result = None
    for _ in range(repeats):
        total, engine_s, cpu_s, result = run_once(dataset, reqs)
        totals.append(total)
        engines.append(engine_s)
        cpus.append(cpu_s)
    assert result is not None
    return {
        "name": config.name,
        "rows": dataset.n_rows,
        "median_ms": 1000 * statistics.median(totals),
        "engine_ms": 1000 * statistics.median(engines),
        "cpu_ms": 1000 * statistics.median(cpus),
        "runs_ms": [round(1000 * t, 1) for t in totals],
        "levels": [int(v) for v in result.levels],
        "loss": float(result.score),
        "suppressed": int(result.verdict.suppressed_rows),
        "checks": int(result.checks),
        "lattice": int(result.lattice_size),
        "load": load(),
    }


def max_rss_bytes() -> int:
    """Peak resident set size of this process (ru_maxrss is in KiB on Linux, bytes on macOS)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss if sys.platform == "darwin" else rss * 1024)


def child(name: str, path: Path, repeats: int) -> None:
    """Measure one scaled configuration in this (fresh) process and print JSON on the last line."""
    config = BY_NAME[name]
    dataset, load_s = timed_load(path, sensitive=False)
    rss_after_load = max_rss_bytes()
    out = measure(dataset, config, repeats)
    out.update(load_ms=1000 * load_s, rss_after_load=rss_after_load, rss_peak=max_rss_bytes())
    print(json.dumps(out))


def fresh_child(name: str) -> None:
    """In this fresh process: load Adult, then time the first engine + search (numba's cache loads in it)."""
    config = BY_NAME[name]
    dataset, _ = timed_load(ADULT, config.model is not None)
    reqs = requirements(config)
    reqs.validate(dataset)
    total, _, cpu, _ = run_once(dataset, reqs)
    print(json.dumps({"fresh_ms": 1000 * total, "fresh_cpu_ms": 1000 * cpu}))


def measure_fresh(name: str) -> dict[str, float]:
    """Run :func:`fresh_child` in a new interpreter and parse its report."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--fresh-child", name]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"fresh process for {name} failed ({proc.returncode}):\n{proc.stderr}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def mix_file(name: str, workdir: Path) -> Path:
    """The scaled table for ``name``, built with make_mix.py into ``workdir`` unless already there."""
    factor, _ = MIX[name]
    target = workdir / f"adult_{name}.csv"
    if not target.exists():
        partial = workdir / f".adult_{name}.csv.part"
        print(f"building {target} with make_mix.py {factor} ...", flush=True)
        subprocess.run(["python3", str(MAKE_MIX), str(factor), str(partial), str(ADULT)], check=True)
        os.replace(partial, target)
    return target


def measure_in_child(name: str, path: Path, repeats: int) -> dict[str, Any]:
    """Run :func:`child` in a subprocess and parse its report."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", name, "--mix-file", str(path),
           "--repeats", str(repeats)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"child for {name} failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cli_yaml(workdir: Path, config: Config) -> Path:
    """Write a YAML run configuration for ``config`` (all nine columns quasi) into ``workdir``."""
    lines = ["input:", f"  path: {json.dumps(str(ADULT))}", "  delimiter: ';'", "attributes:"]
    for column in COLUMNS:
        lines += [f"  {column}:", "    role: quasi",
                  f"    hierarchy: {json.dumps(str(HIERARCHIES / (column + '.csv')))}"]
    lines += ["privacy:", f"  k: {config.k}", f"  max_suppression: {config.suppression}",
              "method:", "  name: optimal", "  metric: loss",
              "output:", f"  path: {json.dumps(str(workdir / 'released_b1.csv'))}"]
    path = workdir / "b1.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def anonset_executable() -> Path:
    """The ``anonset`` command of this checkout's environment (else beside this interpreter)."""
    exe = ROOT / ".venv" / "bin" / "anonset"
    return exe if exe.exists() else Path(sys.executable).parent / "anonset"


def timed_process(command: list[str]) -> float:
    """Wall seconds of one process running ``command``."""
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def measure_cli(workdir: Path, runs: int = 3) -> tuple[list[float], list[float]]:
    """Whole-process wall-clock and CPU (user + system) seconds of ``anonset anonymize CFG`` on b1."""
    cfg = cli_yaml(workdir, BY_NAME[CLI_CONFIG])
    exe = anonset_executable()
    times, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run([str(exe), "anonymize", str(cfg)], capture_output=True, text=True,
                              check=False)
        times.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if proc.returncode != 0:
            raise RuntimeError(f"anonset anonymize failed ({proc.returncode}):\n{proc.stderr}")
    return times, cpus


def sweep_whole_lattice(dataset: Dataset, config: Config) -> dict[str, Any]:
    """Seconds of ``exhaustive_search`` (every node of the lattice rolled up and judged, no pruning)."""
    reqs = requirements(config)
    reqs.validate(dataset)
    cpu = time.process_time()
    started = time.perf_counter()
    result = exhaustive_search(dataset, NumpyEngine(dataset, reqs.request), reqs, Loss())
    return {"seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu,
            "checks": int(result.checks),
            "levels": [int(v) for v in result.levels], "load": load()}


def explain_checks(dataset: Dataset, config: Config, median_ms: float) -> dict[str, Any]:
    """Why a configuration needs the checks it needs.

    Over the whole lattice: the nodes whose k-anonymity part holds within the
    budget and whose Loss bound lies below the optimum.  No sound search can
    skip them when the other models are not monotone.  Of the nodes the
    optimal search checked: how many were of that kind and how many failed the
    k-anonymity part (the probes that rule out whole sets of more specific
    nodes).  The cost per check is the median search time over the checks.
    """
    reqs = requirements(config)
    reqs.validate(dataset)
    engine = NumpyEngine(dataset, reqs.request)
    checked: list[tuple[int, ...]] = []
    class_stats = engine.class_stats

    def recording(levels: tuple[int, ...]) -> Any:
        checked.append(tuple(int(v) for v in levels))
        return class_stats(levels)

    engine.class_stats = recording  # type: ignore[method-assign]
    result = optimal_search(dataset, engine, reqs, Loss())
    lattice = lattice_of(dataset)
    bounds = Loss().node_bounds(dataset, lattice.nodes)
    budget = reqs.budget_rows(dataset.n_rows)
    k_ok = {}
    probe = NumpyEngine(dataset, reqs.request)
    for node in lattice.nodes:
        levels = tuple(int(v) for v in node)
        sizes = probe.class_stats(levels).sizes
        k_ok[levels] = int(sizes[sizes < config.k].sum()) <= budget
    below = {tuple(int(v) for v in n) for n, b in zip(lattice.nodes, bounds, strict=True) if b < result.objective}
    must = [lv for lv in below if k_ok[lv]]
    # the bottom node is read once for the suppression bounds (the engine holds it): not a check
    checked_set = set(checked) - {lattice_of(dataset).bottom}
    return {
        "lattice": int(lattice.size), "optimum_loss": float(result.objective), "checks": int(result.checks),
        "k_ok_below_optimum": len(must),
        "checked_k_ok_below_optimum": len(checked_set & set(must)),
        "checked_k_fails": sum(1 for lv in checked_set if not k_ok[lv]),
        "checked_other": len(checked_set - set(must)) - sum(1 for lv in checked_set if not k_ok[lv]),
        "ms_per_check": median_ms / max(1, result.checks),
    }


# --------------------------------------------------------------------------- reporting
def machine() -> dict[str, str]:
    """Facts about the machine and the environment."""
    import numba
    import pandas

    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"nproc": str(os.cpu_count()), "cpu": cpu, "platform": platform.platform(),
            "python": platform.python_version(), "numpy": np.__version__, "pandas": pandas.__version__,
            "numba": numba.__version__}


def yes(flag: bool) -> str:
    return "yes" if flag else "no"


def row_of(config: Config, r: dict[str, Any]) -> list[str]:
    ratio = r["median_ms"] / config.arx_ms
    diff = abs(r["loss"] - config.arx_loss)
    return [
        config.name,
        f"{r['median_ms']:,.0f}",
        f"{r['cpu_ms']:,.0f}",
        f"{config.arx_ms:,.0f}",
        f"{ratio:.2f}",
        yes(r["median_ms"] <= config.arx_ms * TARGET_RATIO),
        f"{r['fresh_ms']:,.0f} ({r['fresh_ms'] / config.arx_ms:.2f})" if "fresh_ms" in r else "-",
        ",".join(map(str, r["levels"])),
        yes(tuple(r["levels"]) == config.arx_levels),
        f"{r['loss']:.5f}",
        f"{diff:.1e}",
        f"{r['suppressed']:,}",
        f"{r['checks']:,} / {config.arx_nodes:,} of {r['lattice']:,}",
    ]


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


def gb(n: int) -> str:
    return f"{n / 1e9:.2f} GB"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default=",".join(c.name for c in CONFIGS),
                        help="comma-separated rows to run (default: all): "
                             + ", ".join(c.name for c in CONFIGS))
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per row (default 5)")
    parser.add_argument("--no-mix", action="store_true", help="skip mix10 and mix33")
    parser.add_argument("--no-cli", action="store_true", help="skip the whole-process CLI timing")
    parser.add_argument("--no-sweep", action="store_true", help="skip the exhaustive 12,960-node sweep")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "anonset-bench",
                        help="where scaled tables and CLI files go (default: <tmp>/anonset-bench)")
    parser.add_argument("--json", type=Path, help="also write the raw results to this file")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--mix-file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--fresh-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.child:
        child(args.child, args.mix_file, args.repeats)
        return
    if args.fresh_child:
        fresh_child(args.fresh_child)
        return

    names = [n.strip() for n in args.configs.split(",") if n.strip()]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        parser.error(f"unknown config(s) {', '.join(unknown)}; choose from {', '.join(BY_NAME)}")
    selected = [BY_NAME[n] for n in names if not (args.no_mix and BY_NAME[n].data in MIX)]
    args.workdir.mkdir(parents=True, exist_ok=True)

    info = machine()
    print_header("benchmarks/full_domain.py")
    print(f"data: {ADULT}; {args.repeats} timed repeats after one warm-up, median reported\n")

    results: dict[str, dict[str, Any]] = {}
    extra: dict[str, Any] = {}
    loads: dict[str, float] = {}
    datasets: dict[bool, Dataset] = {}
    for config in selected:
        if config.data == "adult":
            sensitive = config.model is not None
            if sensitive not in datasets:
                datasets[sensitive], load_s = timed_load(ADULT, sensitive)
                loads["adult, 8 QIs + occupation sensitive" if sensitive else "adult, 9 QIs"] = 1000 * load_s
            results[config.name] = measure(datasets[sensitive], config, args.repeats)
            results[config.name].update(measure_fresh(config.name))
        else:
            path = mix_file(config.data, args.workdir)
            r = measure_in_child(config.name, path, args.repeats)
            expected = MIX[config.data][1]
            if r["rows"] != expected:
                print(f"warning: {path} has {r['rows']:,} rows, expected {expected:,}")
            loads[f"{config.name} ({r['rows']:,} rows, in its child process)"] = r["load_ms"]
            results[config.name] = r
        r = results[config.name]
        fresh = f"; in a fresh process {r['fresh_ms']:,.0f} ms" if "fresh_ms" in r else ""
        print(f"  {config.name}: median {r['median_ms']:,.0f} ms (engine build {r['engine_ms']:,.0f} ms);"
              f" runs {r['runs_ms']}; median CPU time {r['cpu_ms']:,.0f} ms{fresh}; {r['load']}", flush=True)

    print("\nload (read table + hierarchies + encode), not included in the search time:")
    for what, ms in loads.items():
        print(f"  {what}: {ms:,.0f} ms")

    print("\nsearch time = fresh NumpyEngine + optimal_search, metric Loss (wall clock; CPU time of the process"
          " beside it); ratio = anonset / ARX")
    header = ["config", "anonset ms", "anonset CPU ms", "ARX ms", "ratio", f"<= {TARGET_RATIO} ARX",
              "fresh process ms (ratio)", "anonset optimum",
              "same as ARX", "anonset Loss", "|diff| Loss", "suppressed", "nodes anonset / ARX of lattice"]
    print_table(header, [row_of(c, results[c.name]) for c in selected])

    mixes = [c for c in selected if c.data in MIX]
    if mixes:
        print("\npeak RSS (ru_maxrss of the child process that loaded and searched that table):")
        rows = []
        for c in mixes:
            r = results[c.name]
            target = (yes(r["rss_peak"] <= MIX33_RSS_TARGET_GB * 1e9) + f" (<= {MIX33_RSS_TARGET_GB} GB)"
                      if c.name == "mix33" else "-")
            rows.append([c.name, gb(r["rss_peak"]), gb(r["rss_after_load"]),
                         f"{c.arx_rss_gb:.2f} GB" if c.arx_rss_gb else "-", target])
        print_table(["config", "anonset peak RSS", "peak after load", "ARX peak RSS", "<= 1.0 GB"], rows)

    if not args.no_sweep and "adult, 9 QIs" in loads:
        sweep = sweep_whole_lattice(datasets[False], BY_NAME["b1"])
        print(f"\nexhaustive search (every node of the 12,960-node lattice, b1's requirements, fresh engine):"
              f" {sweep['seconds']:.2f} s (CPU time {sweep['cpu_seconds']:.2f} s) for {sweep['checks']:,} checks;"
              f" {sweep['load']}")
        extra["exhaustive_b1"] = sweep

    if "e2" in results:
        why = explain_checks(datasets[True], BY_NAME["e2"], results["e2"]["median_ms"])
        print(f"\nwhere e2's checks go: optimum Loss {why['optimum_loss']:.5f}; of the {why['lattice']:,} nodes,"
              f" {why['k_ok_below_optimum']:,} satisfy k-anonymity within the budget and have a Loss bound below"
              f" the optimum (each must be judged); the search checked {why['checks']:,} nodes:"
              f" {why['checked_k_ok_below_optimum']:,} of those, {why['checked_k_fails']:,} that fail k-anonymity"
              f" (probes that rule out the nodes below them), {why['checked_other']:,} others;"
              f" {why['ms_per_check']:.3f} ms per check (median search time / checks)")
        extra["e2_checks"] = why

    cli: list[float] = []
    cli_cpu: list[float] = []
    if not args.no_cli:
        cli, cli_cpu = measure_cli(args.workdir)
        med = statistics.median(cli)
        print(f"\nCLI `anonset anonymize` on {CLI_CONFIG} (whole process, incl. start-up, reading, verification,"
              f" writing): runs {', '.join(f'{t:.2f}' for t in cli)} s; median {med:.2f} s;"
              f" CPU time {', '.join(f'{t:.2f}' for t in cli_cpu)} s; {load()}")
        version = [timed_process([str(anonset_executable()), "--version"]) for _ in range(3)]
        print(f"`anonset --version` (whole process): runs {', '.join(f'{t:.2f}' for t in version)} s; {load()}")

    if args.json:
        args.json.write_text(json.dumps({"machine": info, "repeats": args.repeats, "loads_ms": loads,
                                         "results": results, "cli_seconds": cli, "cli_cpu_seconds": cli_cpu,
                                         **extra}, indent=2) + "\n")


if __name__ == "__main__":
    main()
