"""What each privacy model costs the optimal search on Adult, against the same search with k-anonymity alone.

Adult with ARX's hierarchies, Loss, 1% suppression, k = 5; eight
quasi-identifiers and occupation sensitive for the models that judge a
sensitive attribute, all nine quasi-identifying for estimated k-map (its
baseline is 5-anonymity on the nine), and a seeded 10% sample of Adult, all
nine quasi-identifying, for k-map and δ-presence against Adult as the
population, read into Arrow as a configuration's ``population: PATH`` is
(baseline: 5-anonymity on the sample).  For each model: the
optimum's levels, the nodes the search judged, and the seconds of validating
the models (which encodes a population table) and searching (median of
``--repeat`` warm runs, one warm-up run first, so numba's compilation is not
counted).  It prints; nothing is asserted.

    .venv/bin/python benchmarks/privacy_models.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from anonset.core.dataset import Dataset
from anonset.engine.numpy.engine import NumpyEngine
from anonset.hierarchy import read_hierarchy
from anonset.io.tables import read_arrow_table, read_table
from anonset.methods.full_domain.search import SearchResult, optimal_search
from anonset.metrics import Loss
from anonset.privacy import (
    BetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    DistinctLDiversity,
    KAnonymity,
    KMap,
    PopulationKMap,
    PrivacyModel,
    Requirements,
    TCloseness,
)

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT.parent / "shared" / "data" / "adult"
sys.path.insert(0, str(ROOT / "benchmarks"))

from _report import header, load

ORDER = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
         "salary-class"]

#: The tables: all nine columns quasi-identifying, occupation sensitive, or a seeded 10% sample of Adult (nine).
TABLES = ("adult, 9", "adult, 8 + occupation", "10% sample, 9")

#: name -> (table, the models beside nothing else); the first case of each table is its baseline
CASES: dict[str, tuple[str, Callable[[object], list[PrivacyModel]]]] = {
    "5-anonymity (9 quasi-identifiers)": ("adult, 9", lambda _: [KAnonymity(5)]),
    "5-map, US population (9)": ("adult, 9", lambda _: [KMap(5, population_size=317_238_626,
                                                            estimator="zero_truncated_poisson")]),
    "5-anonymity (8, occupation sensitive)": ("adult, 8 + occupation", lambda _: [KAnonymity(5)]),
    "+ distinct 3-diversity": ("adult, 8 + occupation", lambda _: [KAnonymity(5), DistinctLDiversity("occupation", 3)]),
    "+ 0.2-closeness": ("adult, 8 + occupation", lambda _: [KAnonymity(5), TCloseness("occupation", 0.2)]),
    "+ basic 2-likeness": ("adult, 8 + occupation", lambda _: [KAnonymity(5), BetaLikeness("occupation", 2.0)]),
    "+ enhanced 2-likeness": ("adult, 8 + occupation",
                              lambda _: [KAnonymity(5), BetaLikeness("occupation", 2.0, "enhanced")]),
    "+ 1.5-disclosure": ("adult, 8 + occupation", lambda _: [KAnonymity(5), DeltaDisclosure("occupation", 1.5)]),
    "5-anonymity, 10% sample (9)": ("10% sample, 9", lambda _: [KAnonymity(5)]),
    "5-map in Adult, 10% sample (9)": ("10% sample, 9", lambda adult: [PopulationKMap(5, adult, "adult.csv")]),
    "(0.05, 0.5)-presence in Adult, sample": ("10% sample, 9",
                                              lambda adult: [KAnonymity(2), DeltaPresence(0.05, 0.5, adult,
                                                                                          "adult.csv")]),
}


def _dataset(table: object, sensitive: bool) -> Dataset:
    attributes: dict = {c: {"role": "quasi", "hierarchy": read_hierarchy(ADULT / "hierarchies" / f"{c}.csv")}
                        for c in ORDER}
    if sensitive:
        attributes["occupation"] = {"role": "sensitive"}
    return Dataset(table, attributes, source="adult.csv")


def _search(dataset: Dataset, models: list[PrivacyModel]) -> tuple[SearchResult, float]:
    requirements = Requirements(models, 0.01)
    started = time.perf_counter()  # validating counts: it encodes a population table
    requirements.validate(dataset)
    result = optimal_search(dataset, NumpyEngine(dataset, requirements.request), requirements, Loss())
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="warm runs per model (the median is printed)")
    args = parser.parse_args()
    header(__file__)
    table = read_table(ADULT / "adult.csv", ";")
    population = read_arrow_table(ADULT / "adult.csv", ";")  # as a config's population: PATH reads it
    sample = table.sample(frac=0.1, random_state=0).reset_index(drop=True)
    datasets = {"adult, 9": _dataset(table, False), "adult, 8 + occupation": _dataset(table, True),
                "10% sample, 9": _dataset(sample, False)}
    print(f"{'requirements (k = 5, 1% suppression, Loss)':40} {'levels':28} {'Loss':>8} {'checks':>7} {'s':>7}"
          f" {'vs k':>6}  load")
    baseline: dict[str, float] = {}
    for name, (kind, make) in CASES.items():
        dataset = datasets[kind]
        _search(dataset, make(population))  # compiles what this model's search needs
        runs = [_search(dataset, make(population)) for _ in range(args.repeat)]
        seconds = statistics.median(s for _, s in runs)
        result = runs[0][0]
        baseline.setdefault(kind, seconds)
        ratio = seconds / baseline[kind]
        levels = ",".join(str(v) for v in result.levels)
        print(f"{name:40} {levels:28} {result.score:8.4f} {result.checks:7d} {seconds:7.3f} {ratio:5.1f}x  {load()}",
              flush=True)


if __name__ == "__main__":
    main()
