"""Local recoding on Adult: time, peak memory and utility of each clustering method, for several k.

Adult configured as Byun et al. and Xu et al. did (``adult.data``, 30,162 complete records; quasi-
identifiers age, workclass, education-num, marital-status, occupation, race, sex, native-country; age
and education-num numeric, the rest with the taxonomies in ``taxonomies/``).  For each method and k
the script prints the run time, the peak traced memory, GCP (NCP as a share of its maximum, ×100 =
the "NCP %" of published figures), Total-IL, discernibility and the class sizes; every release is
verified by anonset's independent re-check.  It prints; nothing is asserted.

    .venv/bin/python benchmarks/local_recoding.py [--k 5,10,25,50,100] [--methods k-member,xu-top-down]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from pathlib import Path

from anonset import Anonymizer, KAnonymity, Requirements
from anonset.datasets import adult_morton

ADULT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult"

# Peers measured on this machine (issue #4), k = 10, NCP %: Qiyuan Gong's public implementations.
PEERS = {
    "strict Mondrian": "11.24% in 0.19 s",
    "relaxed Mondrian": "15.85%",
    "Top-Down Greedy (Xu)": "13.35% in 33.6 s",
    "kNN clustering": "11.95% in 847 s",
    "k-member": "21.50% on the first 5,000 records in 136 s (full table projects to about 80 minutes)",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", default="5,10,25,50,100")
    parser.add_argument("--methods", default="k-member,xu-top-down")
    args = parser.parse_args()
    ds = adult_morton(ADULT)
    methods = args.methods.split(",")
    print(f"Adult: {ds.n_rows:,} records, quasi-identifiers {', '.join(ds.quasi)}")
    for method in methods:  # compile (numba, cached on disk) outside the timings
        Anonymizer({}, Requirements([KAnonymity(10)]), method=method).fit(ds)
    print(f"{'method':14} {'k':>4} {'seconds':>8} {'peak MB':>8} {'GCP %':>7} {'Total-IL':>10} {'DM':>12}"
          f" {'classes':>8} {'sizes':>9} verified")
    for k in (int(v) for v in args.k.split(",")):
        for method in methods:
            tracemalloc.start()
            started = time.perf_counter()
            release = Anonymizer({}, Requirements([KAnonymity(k)]), method=method).fit(ds).release_
            seconds = time.perf_counter() - started
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            m = release.metrics
            sizes = release.partition.sizes
            print(f"{method:14} {k:>4} {seconds:8.2f} {peak:8.1f} {100 * m['gcp']:7.2f} {m['total_il']:10.1f}"
                  f" {m['discernibility']:12.0f} {release.n_classes:>8} {sizes.min():>4}-{sizes.max():<4}"
                  f" {release.verified}")
    print("peers at k = 10 (NCP %, measured on this machine; issue #4):")
    for name, figure in PEERS.items():
        print(f"  {name}: {figure}")


if __name__ == "__main__":
    main()
