"""Re-identification risk: time of every measure on a million-record class table, and the Adult figures.

The class table: 1,000,000 records (at most) in classes whose sizes are Zipf draws of exponent 2.2
(seed 0), kept while their running total stays within the records: about 295,000 classes, two
thirds of them sample uniques, and a long tail of large classes.  Per step: the seconds (best of
``--repeat``) of checking the sizes and counting their frequencies of frequencies
(``ClassSizes.of``), of all sample-based measures
(``sample_risk``), of each population-uniqueness model (Pitman, Zayatz, SNB) at sampling fractions
0.01 and 0.5, and of the whole ``population_uniqueness`` (all three models and the decision rule).
Then the figures of ``adult.csv`` (nine quasi-identifiers, read as strings) beside ARX's.  It prints;
nothing is asserted.

    .venv/bin/python benchmarks/risk.py [--records 1000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header, load

from anonset.risk.classes import ClassSizes
from anonset.risk.pitman import pitman_uniques
from anonset.risk.population import population_uniqueness
from anonset.risk.sample import sample_risk
from anonset.risk.snb import snb_uniques
from anonset.risk.zayatz import zayatz_uniques

ADULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "adult" / "adult.csv"


def best(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    """Best wall time of ``repeat`` calls, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def synthetic_sizes(records: int) -> np.ndarray:
    """Zipf(2.2) class sizes holding at most ``records`` records."""
    sizes = np.random.default_rng(0).zipf(2.2, records)
    return sizes[np.cumsum(sizes) <= records]


def fmt(value: float | None) -> str:
    return "n/a (did not converge)" if value is None else f"{value:.16g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    header("benchmarks/risk.py")

    sizes = synthetic_sizes(args.records)
    print(f"\nsynthetic class table: {int(sizes.sum()):,} records, {sizes.size:,} classes, "
          f"{int(np.sum(sizes == 1)):,} sample uniques, {np.unique(sizes).size:,} distinct class sizes")
    t, cs = best(lambda: ClassSizes.of(sizes), args.repeat)
    assert isinstance(cs, ClassSizes)
    print(f"  {'ClassSizes.of (check, frequencies of frequencies)':<52} {t * 1e3:9.2f} ms   {load()}")
    t, _ = best(lambda: sample_risk(cs), args.repeat)
    print(f"  {'sample_risk (all sample-based measures)':<52} {t * 1e3:9.2f} ms   {load()}")
    for pi in (0.01, 0.5):
        big_n = cs.n_records / pi
        models: tuple[tuple[str, Callable[[ClassSizes, float, float], float | None]], ...] = (
            ("pitman", lambda c, p, n: pitman_uniques(c, n)),
            ("zayatz", lambda c, p, n: zayatz_uniques(c, n)),
            ("snb", snb_uniques))
        for name, model in models:
            t, u = best(lambda m=model, p=pi, n=big_n: m(cs, p, n), args.repeat)  # type: ignore[misc]
            frac = None if u is None else float(u) / big_n  # type: ignore[arg-type]
            print(f"  {f'{name}, pi = {pi}':<52} {t * 1e3:9.2f} ms   fraction {fmt(frac)}   {load()}")
        t, pu = best(lambda p=pi: population_uniqueness(cs, sampling_fraction=p), args.repeat)  # type: ignore[misc]
        print(f"  {f'population_uniqueness, pi = {pi} (all + rule)':<52} {t * 1e3:9.2f} ms   "
              f"rule takes {pu.chosen}   {load()}")  # type: ignore[attr-defined]

    if not ADULT.exists():
        print(f"\nadult.csv not found at {ADULT}: Adult figures skipped")
        return
    import pandas as pd

    table = pd.read_csv(ADULT, sep=";", dtype=str, keep_default_na=False)
    adult = table.groupby(list(table.columns)).size().to_numpy()
    risk = sample_risk(adult, thresholds=(0.2, 0.05))
    print(f"\nadult.csv, nine quasi-identifiers: {risk.records:,} records, {risk.classes:,} classes")
    print(f"  average risk                 {risk.average_risk:.16g}   (ARX 0.6465751607983555)")
    print(f"  highest risk                 {risk.highest_risk:.16g}")
    print(f"  records at highest risk      {risk.records_at_highest_risk:.16g}")
    print(f"  sample uniques               {risk.sample_uniques:.16g}")
    print(f"  records above 0.2            {risk.records_above[0.2]:.16g}")
    print(f"  records above 0.05           {risk.records_above[0.05]:.16g}")
    for pi in (0.01, 0.1, 0.5):
        pu = population_uniqueness(adult, sampling_fraction=pi)
        print(f"  pi = {pi}: pitman {fmt(pu.pitman)}, zayatz {fmt(pu.zayatz)}, snb {fmt(pu.snb)}; "
              f"rule takes {pu.chosen}: {fmt(pu.decision_rule)}")
    print("  (ARX at pi = 0.01: the rule takes Pitman, 0.1446083531167384)")
    adult_b1(table)


def adult_b1(table: object) -> None:
    """Before/after of configuration b1 (all nine columns quasi-identifying with ARX's hierarchies, k = 5, 1%)."""
    from anonset import Anonymizer, KAnonymity, Requirements, read_hierarchy

    hierarchies = ADULT.parent / "hierarchies"
    attributes = {q: {"role": "quasi", "hierarchy": read_hierarchy(hierarchies / f"{q}.csv")}
                  for q in table.columns}  # type: ignore[attr-defined]
    release = Anonymizer(attributes, Requirements([KAnonymity(5)], max_suppression=0.01)).fit(table).release_
    risk = release.summary()["risk"]
    print("\nadult.csv, configuration b1 (k = 5, 1% suppression, optimal Loss), before -> after:")
    for key in ("records", "records_excluded", "classes", "highest_risk", "average_risk",
                "records_at_highest_risk", "sample_uniques"):
        print(f"  {key:<26} {risk['input'][key]:>22.10g} -> {risk['release'][key]:.10g}")
    for threshold in risk["input"]["records_above"]:
        print(f"  {'records above ' + threshold:<26} {risk['input']['records_above'][threshold]:>22.10g} ->"
              f" {risk['release']['records_above'][threshold]:.10g}")


if __name__ == "__main__":
    main()
