"""What ARX's "practical monotonicity" assumption would buy and cost anonset.

With a suppression budget, l-diversity and t-closeness are not monotone: a
node can be infeasible while a more specific one is feasible.  ARX can assume
otherwise ("practical monotonicity").  anonset never does by default; this
script measures, on Adult configurations d, e1 and e2 (occupation sensitive,
k = 5, 1% suppression) and on random tables, how many checks the assumption
saves and how often it changes the answer.  It prints; nothing is asserted.

    .venv/bin/python benchmarks/practical_monotonicity.py [--random 400]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from anonset.core.dataset import Dataset
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import InfeasibleError
from anonset.hierarchy import read_hierarchy
from anonset.io.tables import read_table
from anonset.methods.full_domain.search import optimal_search
from anonset.metrics import Loss
from anonset.privacy import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    Requirements,
    TCloseness,
)

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT.parent / "shared" / "data" / "adult"
sys.path.insert(0, str(ROOT / "tests"))
from support import random_table

sys.path.insert(0, str(ROOT / "benchmarks"))
from _report import header, load


def _adult() -> Dataset:
    table = read_table(ADULT / "adult.csv", ";")
    attrs: dict = {c: {"role": "quasi", "hierarchy": read_hierarchy(ADULT / "hierarchies" / f"{c}.csv")}
                   for c in table.columns}
    attrs["occupation"] = {"role": "sensitive"}
    return Dataset(table, attrs, source="adult.csv")


def _timed(ds: Dataset, req: Requirements, assume: bool, repeats: int = 3):
    times = []
    result = None
    for _ in range(repeats + 1):
        started = time.perf_counter()
        result = optimal_search(ds, NumpyEngine(ds, req.request), req, Loss(), assume_practical_monotonicity=assume)
        times.append(time.perf_counter() - started)
    return result, statistics.median(times[1:])


def adult_rows() -> None:
    ds = _adult()
    configs = {
        "d distinct l=3": DistinctLDiversity("occupation", 3),
        "e1 entropy l=3": EntropyLDiversity("occupation", 3),
        "e2 t=0.2": TCloseness("occupation", 0.2),
    }
    print("config          exact: ms  checks  levels              | assumed: ms  checks  levels              same"
          "  load")
    for name, model in configs.items():
        req = Requirements([KAnonymity(5), model], 0.01)
        req.validate(ds)
        exact, t_exact = _timed(ds, req, False)
        assumed, t_assumed = _timed(ds, req, True)
        levels_e = ",".join(map(str, exact.levels))
        levels_a = ",".join(map(str, assumed.levels))
        print(f"{name:15} {t_exact * 1000:9.0f}  {exact.checks:6}  {levels_e:18}  | {t_assumed * 1000:11.0f}"
              f"  {assumed.checks:6}  {levels_a:18}  {'yes' if exact.levels == assumed.levels else 'NO ':4}  {load()}")


def random_rows(n: int) -> None:
    outcomes = {"same": 0, "worse optimum": 0, "false infeasible": 0, "both infeasible": 0}
    worst = 0.0
    for seed in range(n):
        rng = np.random.default_rng(seed)
        table, hierarchies = random_table(rng, int(rng.integers(30, 200)), int(rng.integers(2, 5)))
        attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
        attrs["s"] = {"role": "sensitive"}
        ds = Dataset(table, attrs)
        extra = [EntropyLDiversity("s", float(rng.uniform(1.5, 3))), TCloseness("s", float(rng.uniform(0.1, 0.4))),
                 DistinctLDiversity("s", 3)][seed % 3]
        req = Requirements([KAnonymity(int(rng.integers(2, 5))), extra], float(rng.choice([0.02, 0.05, 0.1])))
        req.validate(ds)
        results = []
        for assume in (False, True):
            try:
                results.append(optimal_search(ds, NumpyEngine(ds, req.request), req, Loss(),
                                              assume_practical_monotonicity=assume))
            except InfeasibleError:
                results.append(None)
        exact, assumed = results
        if exact is None and assumed is None:
            outcomes["both infeasible"] += 1
        elif assumed is None:
            outcomes["false infeasible"] += 1
        elif exact is not None and exact.levels == assumed.levels:
            outcomes["same"] += 1
        else:
            outcomes["worse optimum"] += 1
            assert exact is not None
            worst = max(worst, assumed.score - exact.score)
    print(f"random tables (k + l-diversity or t-closeness, 2-10% budget), {n} seeds: {outcomes};"
          f" largest Loss increase {worst:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=400, help="random tables to try")
    args = parser.parse_args()
    header("benchmarks/practical_monotonicity.py")
    print("times: median of 3 runs after a warm-up, each with a fresh engine\n")
    adult_rows()
    random_rows(args.random)


if __name__ == "__main__":
    main()
