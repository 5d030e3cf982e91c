"""Survey risk: key frequencies (fk, Fk), individual risk (approximate, exact) and SUDA2, on synthetic samples.

A seeded synthetic sample: eight categorical quasi-identifiers of 2 to 40
values each, skewed, a sampling weight between 1 and 200 per record, and
optionally 5% of the values missing (a missing value matches any value, as
sdcMicro counts it).  Prints the seconds of each step (median of ``--repeat``
warm runs, after one run that compiles) beside the load average.  Then SUDA2
(minimal sample uniques up to size 4, and of every size) over the same eight
quasi-identifiers on ``--suda-rows`` records without missing values.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np
from _report import header, load

from anonset.risk.suda2 import suda2
from anonset.risk.survey import global_risk, individual_risk, key_frequencies

SIZES = (2, 5, 7, 10, 16, 20, 30, 40)


def _sample(rows: int, missing: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    codes = np.column_stack([np.minimum(rng.zipf(1.6, rows) - 1, size - 1) for size in SIZES]).astype(np.int64)
    if missing:
        codes[rng.random(codes.shape) < missing] = -1
    return codes, rng.uniform(1, 200, rows)


def _median(step: Callable[[], object], repeat: int) -> float:
    step()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--suda-rows", type=int, default=100_000)
    args = parser.parse_args()
    header(__file__)
    for missing in (0.0, 0.05):
        codes, weights = _sample(args.rows, missing)
        frequencies = key_frequencies(codes, weights)
        patterns = len(np.unique(codes >= 0, axis=0))
        frequency_s = _median(partial(key_frequencies, codes, weights), args.repeat)
        approx_s = _median(partial(individual_risk, frequencies, "approx"), args.repeat)
        exact_s = _median(partial(individual_risk, frequencies, "exact"), args.repeat)
        expected, share = global_risk(individual_risk(frequencies))
        print(f"{args.rows:,} records, {missing:.0%} missing ({patterns} patterns): fk/Fk {frequency_s:.2f} s,"
              f" individual risk approx {approx_s:.2f} s, exact {exact_s:.2f} s; sample uniques {frequencies.n1:,},"
              f" expected re-identifications {expected:,.1f} ({share:.3%})  {load()}", flush=True)
    codes, _ = _sample(args.suda_rows, 0.0)
    for size in (4, None):
        seconds = _median(partial(suda2, codes, size), args.repeat)
        result = suda2(codes, size)
        print(f"SUDA2, {args.suda_rows:,} records, 8 quasi-identifiers, MSUs up to size {size or 8}: {seconds:.2f} s;"
              f" {int(np.count_nonzero(result.scores)):,} records with a score, {int(result.msu_counts.sum()):,}"
              f" MSUs  {load()}", flush=True)


if __name__ == "__main__":
    main()
