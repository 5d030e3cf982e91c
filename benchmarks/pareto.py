"""Property based generalizations on Adult: the exact front's time, PBG-EA's time, and Dewri et al.'s tables.

Adult as in the ARX configurations (``adult.csv``, 30,162 records, the shared
hierarchies): occupation is the sensitive attribute, salary-class the class
label of CM (and otherwise a quasi-identifier, as in the paper), η = 1% of the
records.  Lattices: 12,960 nodes with all nine columns quasi-identifiers,
4,320 with occupation sensitive, 2,160 when salary-class is the CM label too.

1. Timing (a warm-up run first, then the median of ``--repeats`` runs, each
   with a fresh NumpyEngine built inside the timed call): the exact front of
   the 12,960-node lattice for {k, S_k, GLM} and one PBG-EA run with the
   paper's parameters on the same lattice and on the 4,320-node one for
   {k, l, GLM}, each with the load average after its runs; then the engine's
   time for every node in two visiting orders, and the resident memory while
   the 12,960 nodes are evaluated in random order.
2. Tables 1(b) and 2(b): for each objective set, the exact front M (every
   node), then PBG-EA with ``--seeds`` seeds (population 25, 100 iterations,
   p_cross 0.8, p_mut 1/#QI, ε all ones — for CM ε = 1/n, one record): mean and
   variance of CE, RR and the nodes evaluated.
3. Table 2(a): the ε vectors of the paper for {k, GLM} and {k, l, GLM}.
4. What it takes to reach RR >= 0.94 (the paper's figure for {k, GLM}) and
   CE <= 1e-3 with at most 10% of the lattice evaluated: PBG-EA with other
   population sizes and iteration counts.

Timings are printed, never asserted; the tables are printed as Markdown.  Usage::

    python benchmarks/pareto.py            # everything, 20 seeds (several minutes)
    python benchmarks/pareto.py --quick    # 5 seeds, one timed repeat, no parameter sweep
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
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from anonset.core.dataset import AttributeSpec, Dataset
from anonset.core.hierarchy_csv import read_hierarchy
from anonset.core.stats import StatsRequest
from anonset.engine.numpy.engine import NumpyEngine
from anonset.io.tables import read_table
from anonset.methods.pareto.dominance import box_representatives
from anonset.methods.pareto.evolutionary import pareto_ea
from anonset.methods.pareto.exhaustive import pareto_exhaustive
from anonset.methods.pareto.objectives import NodeEvaluator, ParetoResult
from anonset.methods.pareto.quality import assess

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header
from _report import load as load_average

ROOT = Path(__file__).resolve().parents[1]
ADULT_DIR = ROOT.parent / "shared" / "data" / "adult"
ADULT = ADULT_DIR / "adult.csv"
HIERARCHIES = ADULT_DIR / "hierarchies"
COLUMNS = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass",
           "occupation", "salary-class")
SENSITIVE = "occupation"
LABEL = "salary-class"
ETA = 0.01
EXACT_TARGET_S = 5.0
EA_TARGET_S = 2.0


@dataclass(frozen=True)
class ObjectiveSet:
    """One row of the paper's Tables 1(b) / 2(b) and its published figures."""

    objectives: tuple[str, ...]
    layout: str  # "sensitive" (4,320 nodes) or "label" (2,160 nodes)
    paper_ce: tuple[float, float] | None  # mean, variance
    paper_rr: tuple[float, float] | None
    paper_nodes: tuple[int, float]  # average evaluations, share of the paper's lattice (%)


SETS = [
    ObjectiveSet(("k", "glm"), "sensitive", (3.7e-4, 6.5e-9), (0.94, 8e-4), (916, 5.1)),
    ObjectiveSet(("k", "l", "glm"), "sensitive", (3.3e-4, 1.1e-7), (0.93, 1.1e-3), (946, 5.3)),
    ObjectiveSet(("s_k", "glm"), "sensitive", (5.7e-4, 2.5e-7), (0.84, 1.7e-3), (1136, 6.3)),
    ObjectiveSet(("s_k", "s_l", "glm"), "sensitive", (6.6e-4, 2.0e-7), (0.83, 1.4e-3), (1197, 6.7)),
    ObjectiveSet(("k", "glm", "cm"), "label", None, None, (1073, 11.9)),
]

# Table 2(a): ε vectors and the paper's CE / RR (mean, variance).  The converted table lists three
# result pairs for {k, l, GLM} but only two ε vectors, (10, 4, 1000) and (50, 6, 10000); the first
# vector, (5, 2, 100), is our guess by analogy with the {k, GLM} rows.
EPSILONS: list[tuple[tuple[str, ...], tuple[float, ...], tuple[float, float], tuple[float, float], str]] = [
    (("k", "glm"), (5, 100), (4.3e-4, 2.6e-7), (0.95, 1.6e-3), ""),
    (("k", "glm"), (10, 1000), (1.6e-4, 8.0e-8), (0.98, 8.2e-4), ""),
    (("k", "glm"), (50, 10000), (1.7e-4, 1.1e-8), (1.0, 0.0), ""),
    (("k", "l", "glm"), (5, 2, 100), (4.9e-3, 2.5e-7), (0.92, 1.2e-3), "ε guessed"),
    (("k", "l", "glm"), (10, 4, 1000), (7.4e-3, 9.3e-7), (0.92, 7.0e-4), ""),
    (("k", "l", "glm"), (50, 6, 10000), (1.8e-2, 8.2e-6), (0.88, 1.7e-3), ""),
]

#: (population, iterations) settings tried against the targets, besides the paper's 25 × 100.
SWEEP = ((25, 60), (25, 80), (10, 150), (10, 200), (15, 150))


# --------------------------------------------------------------------------- loading
def load(layout: str) -> Dataset:
    """Adult with all nine columns quasi (``all``), occupation sensitive (``sensitive``), or
    occupation sensitive and salary-class the class label (``label``)."""
    table = read_table(ADULT, ";")
    attributes: dict[str, AttributeSpec] = {}
    for column in COLUMNS:
        if column == SENSITIVE and layout != "all":
            attributes[column] = AttributeSpec(role="sensitive")
        elif column == LABEL and layout == "label":
            attributes[column] = AttributeSpec(role="target")
        else:
            attributes[column] = AttributeSpec(role="quasi", hierarchy=read_hierarchy(
                HIERARCHIES / f"{column}.csv", name=column))
    dataset = Dataset(table, attributes, source=str(ADULT))
    dataset.qi_codes()
    return dataset


def default_epsilon(objectives: Sequence[str], n_rows: int) -> list[float]:
    """The paper's "all ones", with one record (1/n) for CM, which is a share."""
    return [1.0 / n_rows if o == "cm" else 1.0 for o in objectives]


def fresh_request(objectives: Sequence[str]) -> StatsRequest:
    """The statistics an engine must carry for these objectives."""
    return StatsRequest(histograms=frozenset({SENSITIVE})) if {"l", "s_l"} & set(objectives) else StatsRequest()


# --------------------------------------------------------------------------- measuring
def timed(run: Callable[[], ParetoResult], repeats: int) -> tuple[list[float], list[float], ParetoResult]:
    """A warm-up call, then ``repeats`` timed calls; (wall-clock and CPU seconds per call, last result)."""
    result = run()
    times, cpus = [], []
    for _ in range(repeats):
        cpu = time.process_time()
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return times, cpus, result


def seeds_of(dataset: Dataset, engine: NumpyEngine, exact: ParetoResult, objectives: Sequence[str],
             epsilon: Sequence[float], seeds: int, **kwargs: Any) -> dict[str, Any]:
    """PBG-EA with seeds 0 .. seeds-1 against the exact front: mean and variance of CE, RR, nodes."""
    ce, rr, nodes, front, seconds = [], [], [], [], []
    for seed in range(seeds):
        found = pareto_ea(dataset, engine, objectives, eta=ETA, epsilon=epsilon, seed=seed, **kwargs)
        quality = assess(found, exact, epsilon)
        ce.append(quality.convergence_error)
        rr.append(quality.representation_ratio)
        nodes.append(found.nodes_evaluated)
        front.append(len(found.front))
        seconds.append(found.seconds)
    return {"ce_positive": int(np.sum(np.asarray(ce) > 0)), "ce_median": float(np.median(ce)),
            "ce_positive_range": (float(min((c for c in ce if c > 0), default=0.0)), float(max(ce))),
            "ce": (float(np.mean(ce)), float(np.var(ce))), "rr": (float(np.mean(rr)), float(np.var(rr))),
            "nodes": (float(np.mean(nodes)), float(np.var(nodes))), "share": float(np.mean(nodes)) / exact.lattice_size,
            "front": float(np.mean(front)), "seconds": float(np.mean(seconds)), "rr_min": float(np.min(rr)),
            "ce_max": float(np.max(ce)), "share_max": float(np.max(nodes)) / exact.lattice_size}


def marked_boxes(exact: ParetoResult, epsilon: Sequence[float]) -> int:
    """Non-dominated ε-boxes of the exact front (the denominator of RR)."""
    return len(box_representatives(exact.values, exact.maximize, np.asarray(epsilon, dtype=np.float64)))


def current_rss_mb() -> float:
    """Resident set size of this process now (not the peak), in MB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def memory_by_nodes(dataset: Dataset, objectives: Sequence[str], marks: Sequence[int]) -> list[tuple[int, float]]:
    """Resident memory after evaluating the first ``marks`` nodes of the lattice in a seeded random order
    (the worst order for the engine's roll-up cache); (nodes evaluated, MB) pairs, 0 = before."""
    evaluator = NodeEvaluator(dataset, objectives, eta=ETA)
    nodes = evaluator.lattice.nodes[np.random.default_rng(0).permutation(evaluator.lattice.size)]
    out = [(0, current_rss_mb())]
    for i, node in enumerate(nodes, start=1):
        evaluator.evaluate(node)
        if i in marks or i == len(nodes):
            out.append((i, current_rss_mb()))
    return out


def memory_in_child() -> list[tuple[int, float]]:
    """:func:`memory_by_nodes` in a fresh process, so memory this one already holds does not hide it."""
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--memory-child"], capture_output=True,
                          text=True, check=True)
    return [tuple(pair) for pair in json.loads(proc.stdout.strip().splitlines()[-1])]


def engine_seconds_by_order(dataset: Dataset) -> dict[str, float]:
    """Seconds a fresh engine needs for the class statistics of every node, in the lattice's
    lexicographic order (each node rolls up from its predecessor) and by height."""
    nodes = NodeEvaluator(dataset, ("k", "glm"), eta=ETA).lattice.nodes
    orders = {"lexicographic": np.lexsort(nodes.T[::-1]),
              "by height": np.argsort(nodes.sum(axis=1), kind="stable")}
    out = {}
    for name, order in orders.items():
        engine = NumpyEngine(dataset, StatsRequest())
        cpu = time.process_time()
        started = time.perf_counter()
        for node in nodes[order]:
            engine.class_stats(tuple(int(v) for v in node))
        out[name] = time.perf_counter() - started
        out[name + " (CPU)"] = time.process_time() - cpu
    return out


# --------------------------------------------------------------------------- reporting
def frac(mean_var: tuple[float, float], fmt: str) -> str:
    """``mean / variance`` as the paper prints it."""
    return f"{mean_var[0]:{fmt}} / {mean_var[1]:.1e}"


def names(objectives: Sequence[str]) -> str:
    """{k, ℓ, GLM} style."""
    pretty = {"k": "k", "l": "ℓ", "s_k": "S_k", "s_l": "S_ℓ", "glm": "GLM", "cm": "CM"}
    return "{" + ", ".join(pretty[o] for o in objectives) + "}"


def markdown(header: list[str], rows: list[list[str]]) -> None:
    """Print a Markdown table."""
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(" --- " for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def machine() -> str:
    """CPU and versions, one line."""
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}, numpy {np.__version__}"


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MB."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return (rss if sys.platform == "darwin" else rss * 1024) / 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="PBG-EA runs per row (default 20)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs after the warm-up (default 3)")
    parser.add_argument("--quick", action="store_true", help="5 seeds, 1 timed repeat, no parameter sweep")
    parser.add_argument("--json", type=Path, help="also write the raw figures to this file")
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--timing-only", action="store_true",
                        help="only the timings, the visiting orders and the memory (section 1)")
    args = parser.parse_args(argv)
    if args.memory_child:
        print(json.dumps(memory_by_nodes(load("all"), ("k", "s_k", "glm"), (500, 2000, 6000))))
        return
    seeds = 5 if args.quick else args.seeds
    repeats = 1 if args.quick else args.repeats
    if seeds < 1 or repeats < 1:
        parser.error("--seeds and --repeats must be at least 1")
    if not ADULT.exists():
        parser.error(f"Adult not found at {ADULT}")
    out: dict[str, Any] = {"machine": machine(), "seeds": seeds, "repeats": repeats}
    header("benchmarks/pareto.py")
    print(f"data: {ADULT}; η = {ETA:g} of the records; {seeds} PBG-EA seeds per row\n")

    datasets = {layout: load(layout) for layout in ("all", "sensitive", "label")}

    # ------------------------------------------------------------------ 1. timing
    timing_rows = []
    timings: dict[str, Any] = {}
    cases: list[tuple[str, str, tuple[str, ...], str, float]] = [
        ("exact front", "all", ("k", "s_k", "glm"), "exact", EXACT_TARGET_S),
        ("PBG-EA (25 × 100)", "all", ("k", "s_k", "glm"), "ea", EA_TARGET_S),
        ("exact front", "sensitive", ("k", "l", "glm"), "exact", EXACT_TARGET_S),
        ("PBG-EA (25 × 100)", "sensitive", ("k", "l", "glm"), "ea", EA_TARGET_S),
    ]
    for label, layout, objectives, kind, _target in cases:
        ds = datasets[layout]
        eps = default_epsilon(objectives, ds.n_rows)

        def run(ds: Dataset = ds, objectives: tuple[str, ...] = objectives, kind: str = kind,
                eps: list[float] = eps) -> ParetoResult:
            if kind == "exact":
                return pareto_exhaustive(ds, None, objectives, eta=ETA)
            return pareto_ea(ds, None, objectives, eta=ETA, epsilon=eps, seed=0)

        times, cpus, result = timed(run, repeats)
        median = statistics.median(times)
        timings[f"{label} {layout} {','.join(objectives)}"] = {"seconds": times, "cpu_seconds": cpus,
                                                                "nodes": result.nodes_evaluated,
                                                                "front": len(result.front)}
        timing_rows.append([label, f"{result.lattice_size:,}", names(objectives), f"{median:.2f}",
                            f"{statistics.median(cpus):.2f}",
                            ", ".join(f"{t:.2f}" for t in times), f"{result.nodes_evaluated:,}",
                            f"{len(result.front)}", load_average()])
    out["timing"] = timings
    print("## Timing (fresh NumpyEngine inside each call, median after a warm-up)\n")
    markdown(["search", "lattice", "objectives", "median s", "median CPU s", "runs s", "nodes evaluated", "front",
              "load after the runs"], timing_rows)

    order_s = engine_seconds_by_order(datasets["all"])
    out["engine_order"] = order_s
    print("Class statistics of all 12,960 nodes by a fresh engine: "
          + ", ".join(f"{name} order {order_s[name]:.2f} s (CPU {order_s[name + ' (CPU)']:.2f} s)"
                      for name in ("lexicographic", "by height")) + f"; {load_average()}\n")

    memory = memory_in_child()
    out["memory"] = memory
    print("Resident memory of a fresh process (Adult loaded) while evaluating the 12,960 nodes for {k, S_k, GLM}"
          " in random order: " + ", ".join(f"{mb:.0f} MB after {n:,} nodes" for n, mb in memory) + "\n")

    if args.timing_only:
        if args.json:
            args.json.write_text(json.dumps(out, indent=1, default=str), encoding="utf-8")
        return

    # ------------------------------------------------------------------ 2. Tables 1(b) and 2(b)
    exacts: dict[tuple[str, ...], ParetoResult] = {}
    engines: dict[str, NumpyEngine] = {}
    table_rows, node_rows = [], []
    sets_out = {}
    for row in SETS:
        ds = datasets[row.layout]
        if row.layout not in engines:
            engines[row.layout] = NumpyEngine(ds, StatsRequest(histograms=frozenset({SENSITIVE})))
        engine = engines[row.layout]
        exact = pareto_exhaustive(ds, engine, row.objectives, eta=ETA)
        exacts[row.objectives] = exact
        eps = default_epsilon(row.objectives, ds.n_rows)
        figures = seeds_of(ds, engine, exact, row.objectives, eps, seeds)
        figures["exact_front"] = len(exact.front)
        figures["marked_boxes"] = marked_boxes(exact, eps)
        sets_out[",".join(row.objectives)] = figures
        paper_ce = frac(row.paper_ce, ".1e") if row.paper_ce else "–"
        paper_rr = frac(row.paper_rr, ".2f") if row.paper_rr else "–"
        table_rows.append([names(row.objectives), f"{exact.lattice_size:,}",
                           f"{len(exact.front)} / {figures['marked_boxes']}", f"{figures['front']:.1f}",
                           frac(figures["ce"], ".1e"), paper_ce, frac(figures["rr"], ".3f"), paper_rr])
        node_rows.append([names(row.objectives), f"{figures['nodes'][0]:.0f} ({100 * figures['share']:.1f}%)",
                          f"{100 * figures['share_max']:.1f}%",
                          f"{row.paper_nodes[0]:,} ({row.paper_nodes[1]:.1f}%)", f"{figures['seconds']:.2f}",
                          load_average()])
    out["sets"] = sets_out
    print(f"## Table 1(b): CE and RR of PBG-EA (mean / variance over {seeds} seeds; ε all ones, CM 1/n)\n")
    markdown(["objectives", "lattice", "exact front: nodes / non-dominated boxes", "archive size", "CE",
              "CE paper", "RR", "RR paper"], table_rows)
    print("Seeds with CE > 0: " + "; ".join(
        f"{names(row.objectives)} {sets_out[','.join(row.objectives)]['ce_positive']} of {seeds}"
        f" (CE {sets_out[','.join(row.objectives)]['ce_positive_range'][0]:.3f}"
        f"–{sets_out[','.join(row.objectives)]['ce_positive_range'][1]:.3f}),"
        f" median CE {sets_out[','.join(row.objectives)]['ce_median']:.1e}" for row in SETS) + "\n")
    print(f"## Table 2(b): distinct nodes evaluated (mean over {seeds} seeds)\n")
    markdown(["objectives", "anonset", "anonset max", "paper (of 17,920; CM 8,960)", "s per run", "load"],
             node_rows)

    # ------------------------------------------------------------------ 3. Table 2(a)
    eps_rows = []
    eps_out = {}
    for objectives, eps_vec, paper_ce2, paper_rr2, note in EPSILONS:
        ds = datasets["sensitive"]
        exact = exacts[objectives]
        figures = seeds_of(ds, engines["sensitive"], exact, objectives, eps_vec, seeds)
        figures["marked_boxes"] = marked_boxes(exact, eps_vec)
        eps_out[f"{','.join(objectives)} {eps_vec}"] = figures
        eps_rows.append([names(objectives), ", ".join(f"{e:g}" for e in eps_vec), f"{figures['marked_boxes']}",
                         f"{figures['front']:.1f}", frac(figures["ce"], ".1e"),
                         frac(paper_ce2, ".1e") + (f" ({note})" if note else ""), frac(figures["rr"], ".3f"),
                         frac(paper_rr2, ".2f"), f"{figures['nodes'][0]:.0f} ({100 * figures['share']:.1f}%)"])
    out["epsilon"] = eps_out
    print(f"## Table 2(a): discretization vectors (mean / variance over {seeds} seeds)\n")
    markdown(["objectives", "ε", "non-dominated boxes", "archive size", "CE", "CE paper", "RR", "RR paper",
              "nodes"], eps_rows)

    # ------------------------------------------------------------------ 4. iterations sweep
    if not args.quick:
        sweep_rows = []
        sweep_out = {}
        for row in SETS:
            ds = datasets[row.layout]
            exact = exacts[row.objectives]
            eps = default_epsilon(row.objectives, ds.n_rows)
            for population, iterations in SWEEP:
                figures = seeds_of(ds, engines[row.layout], exact, row.objectives, eps, seeds,
                                   population=population, iterations=iterations)
                sweep_out[f"{','.join(row.objectives)} {population}x{iterations}"] = figures
                met = figures["rr"][0] >= 0.94 and figures["ce"][0] <= 1e-3 and figures["share"] <= 0.10
                sweep_rows.append([names(row.objectives), f"{population} × {iterations}", frac(figures["ce"], ".1e"),
                                   f"{figures['ce_max']:.1e}", frac(figures["rr"], ".3f"),
                                   f"{figures['rr_min']:.3f}",
                                   f"{figures['nodes'][0]:.0f} ({100 * figures['share']:.1f}%)",
                                   "yes" if met else "no"])
                print(f"  swept {names(row.objectives)} {population} × {iterations}", file=sys.stderr, flush=True)
        out["sweep"] = sweep_out
        print(f"## Other population × iterations (mean / variance over {seeds} seeds; worst seed beside)\n")
        markdown(["objectives", "population × iterations", "CE", "CE worst", "RR", "RR worst", "nodes (share)",
                  "all three met (means)"], sweep_rows)

    print(f"peak RSS of the whole benchmark process: {peak_rss_mb():.0f} MB")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
