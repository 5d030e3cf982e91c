"""Local recoding on Adult: Byun et al.'s Figures 6–8, Xu et al.'s claims, the peers, and the 1M-row top-down run.

Adult configured as Byun et al. and Xu et al. did (``adult.data``, 30,162 complete records; quasi-
identifiers age, workclass, education-num, marital-status, occupation, race, sex, native-country; age
and education-num numeric, the rest with the taxonomies in ``taxonomies/``; ``income`` — the salary
class — is the class label for CM).  Every release goes through the Anonymizer, so every one is
verified by anonset's independent re-check (the ``ok`` column).  It prints; nothing is asserted.

Every timing line carries the 1-minute load average at its end (the machine may be shared).

Sections (``--sections``, default all but ``million``):

- ``byun``: Figures 6–8 — Total-IL, discernibility (DM) and CM of k-member, classification-aware
  k-member (``class_penalty``) and median Mondrian (strict), k in ``--k``.
- ``xu``: NCP (GCP × 100 = "NCP %") of xu-bottom-up (both merge rules: ``union``, the paper's, and
  ``increase``) and xu-top-down against median Mondrian, k in ``--k``.
- ``merge``: the two merge rules of xu-bottom-up on 30,000 synthetic records (the patient register's
  six quasi-identifiers), k in ``--k``.
- ``weights``: NCP per attribute at k = 10 for both Xu methods, without weights and with weight 10 on age.
- ``peers``: GCP and time at k = 10 of every method (Mondrian also with the categorical
  quasi-identifiers declared ordinal, as the peers cut categories) beside the peer figures.
- ``timing``: seconds of the whole fit at k = 10, median of 3 runs, for the three clustering methods.
- ``million``: xu-top-down on 250,000, 500,000 and 1,000,000 synthetic records (the patient
  register's six quasi-identifiers), k = 10, each in a fresh process: time and the process's peak
  resident memory (linear in n).

    .venv/bin/python benchmarks/local_recoding.py [--k 5,10,25,50,100] [--sections byun,xu,merge,weights,peers,timing]
    .venv/bin/python benchmarks/local_recoding.py --sections million
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from anonset import Anonymizer, KAnonymity, Requirements
from anonset.core.dataset import AttributeSpec, Dataset, Role
from anonset.datasets import adult_morton
from anonset.metrics import NCP
from anonset.release.release import Release

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header, load
from mondrian import adult_ordinal

ADULT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult"
CLASS_PENALTY = 1.0

# Qiyuan Gong's public implementations (github.com/qiyuangong), run on Adult with the same records and
# quasi-identifiers, k = 10, NCP %; measured once on the 2-core python-svc VM and not re-run by this script.
PEERS = {
    "strict Mondrian": ("11.24%", "0.19 s"),
    "relaxed Mondrian": ("15.85%", "–"),
    "Top-Down Greedy (Xu)": ("13.35%", "33.6 s"),
    "kNN clustering": ("11.95%", "847 s"),
    "k-member": ("21.50% (first 5,000 records)", "136 s (full table: about 80 minutes)"),
}


def adult_with_label() -> Dataset:
    """Adult as Byun et al. configured it, with the salary class as the target (CM's class label)."""
    ds = adult_morton(ADULT)
    specs: dict[str, Any] = dict(ds.specs)
    specs["income"] = AttributeSpec(role=Role.TARGET)
    assert ds.table is not None
    return Dataset(ds.table, specs, source=ds.source)


def run(ds: Dataset, method: str, k: int, **kwargs: Any) -> tuple[Release, float]:
    """Fit one method; the release and the seconds the whole fit took (method, rendering, scoring, re-check)."""
    started = time.perf_counter()
    release = Anonymizer({}, Requirements([KAnonymity(k)]), method=method, **kwargs).fit(ds).release_
    return release, time.perf_counter() - started


def byun(ds: Dataset, ks: list[int]) -> None:
    print(f"\n## Byun et al., Figures 6-8 (class_penalty = {CLASS_PENALTY:g} for the classification-aware variant)")
    print(f"{'k':>4} {'method':22} {'Total-IL':>10} {'DM':>12} {'CM':>7} {'seconds':>8} {'classes':>8} ok")
    variants: list[tuple[str, str, dict[str, Any]]] = [
        ("k-member", "k-member", {}),
        ("k-member, class-aware", "k-member", {"method_options": {"class_penalty": CLASS_PENALTY}}),
        ("median Mondrian", "mondrian", {}),
    ]
    for k in ks:
        for label, method, kwargs in variants:
            release, seconds = run(ds, method, k, **kwargs)
            m = release.metrics
            print(f"{k:>4} {label:22} {m['total_il']:10.1f} {m['discernibility']:12.0f} {m['cm']:7.4f}"
                  f" {seconds:8.2f} {release.n_classes:>8} {release.verified}  {load()}", flush=True)


XU_VARIANTS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("bottom-up (union)", "xu-bottom-up", {}),
    ("bottom-up (increase)", "xu-bottom-up", {"method_options": {"merge_cost": "increase"}}),
    ("top-down", "xu-top-down", {}),
    ("mondrian", "mondrian", {}),
)


def xu(ds: Dataset, ks: list[int]) -> None:
    print("\n## Xu et al.: NCP % (GCP x 100), seconds of the whole fit, class sizes")
    print(f"{'k':>4} " + " ".join(f"{label:>24}" for label, _, _ in XU_VARIANTS))
    for k in ks:
        cells = []
        for _, method, kwargs in XU_VARIANTS:
            release, seconds = run(ds, method, k, **kwargs)
            s = release.partition.sizes
            cells.append(f"{100 * release.metrics['gcp']:6.2f} ({seconds:5.1f} s) {s.min()}-{s.max()}")
            assert release.verified
        print(f"{k:>4} " + " ".join(f"{c:>24}" for c in cells) + f"  {load()}", flush=True)


def merge(ks: list[int]) -> None:
    """The two merge rules of xu-bottom-up on synthetic records."""
    from anonset.datasets import patient_register_dataset

    ds = patient_register_dataset(30_000, seed=1)
    print(f"\n## xu-bottom-up merge rules on {ds.n_rows:,} synthetic records (patient register; quasi-identifiers"
          f" {', '.join(ds.quasi)}): NCP %")
    print(f"{'k':>4} {'union':>8} {'increase':>8} {'increase / union':>17}")
    for k in ks:
        union, _ = run(ds, "xu-bottom-up", k)
        increase, _ = run(ds, "xu-bottom-up", k, method_options={"merge_cost": "increase"})
        assert union.verified and increase.verified
        u, i = 100 * union.metrics["gcp"], 100 * increase.metrics["gcp"]
        print(f"{k:>4} {u:8.2f} {i:8.2f} {i / u:17.3f}", flush=True)


def per_attribute_ncp(release: Release, ds: Dataset) -> dict[str, float]:
    """Each quasi-identifier's share of NCP: its per-record certainty penalty averaged over the records (×100)."""
    ncp = NCP()
    part = release.partition
    return {q: 100 * float((ncp.class_costs(ds, q, part.values[q]) * part.sizes).sum()) / ds.n_rows
            for q in ds.quasi}


def weights(ds: Dataset) -> None:
    print("\n## Xu et al.: NCP per attribute (%, k = 10), without weights and with weight 10 on age")
    for method in ("xu-bottom-up", "xu-top-down"):
        plain, _ = run(ds, method, 10)
        heavy, _ = run(ds, method, 10, weights={"age": 10.0})
        a = per_attribute_ncp(plain, ds)
        b = per_attribute_ncp(heavy, ds)
        print(f"{method}:")
        print(f"  {'attribute':16} {'no weights':>10} {'age x10':>10}")
        for q in ds.quasi:
            print(f"  {q:16} {a[q]:10.2f} {b[q]:10.2f}")
        print(f"  {'unweighted GCP':16} {100 * plain.metrics['gcp']:10.2f} {100 * heavy.metrics['gcp']:10.2f}")


def peers(ds: Dataset) -> None:
    print("\n## k = 10 beside the peers (GCP x 100 = NCP %; time of the whole fit)")
    ordinal = adult_ordinal()
    runs: tuple[tuple[str, Dataset, str, dict[str, Any]], ...] = (
        ("xu-top-down", ds, "xu-top-down", {}),
        ("xu-bottom-up (union)", ds, "xu-bottom-up", {}),
        ("xu-bottom-up (increase)", ds, "xu-bottom-up", {"method_options": {"merge_cost": "increase"}}),
        ("k-member", ds, "k-member", {}),
        ("mondrian (strict)", ds, "mondrian", {}),
        ("mondrian (relaxed)", ds, "mondrian", {"method_options": {"strict": False}}),
        ("mondrian, ordinal (strict)", ordinal, "mondrian", {}),
        ("mondrian, ordinal (relaxed)", ordinal, "mondrian", {"method_options": {"strict": False}}),
    )
    for label, data, method, kwargs in runs:
        release, seconds = run(data, method, 10, **kwargs)
        print(f"  anonset {label:28} {100 * release.metrics['gcp']:6.2f}%  {seconds:6.2f} s  verified"
              f" {release.verified}  {load()}", flush=True)
    for name, (ncp, seconds_text) in PEERS.items():
        print(f"  peer {name:31} {ncp}  {seconds_text}")


def timing(ds: Dataset) -> None:
    print("\n## Seconds of the whole fit at k = 10, median of 3 runs")
    for label, method, kwargs in (("k-member", "k-member", {}), ("xu-bottom-up (union)", "xu-bottom-up", {}),
                                  ("xu-bottom-up (increase)", "xu-bottom-up",
                                   {"method_options": {"merge_cost": "increase"}}),
                                  ("xu-top-down", "xu-top-down", {})):
        times = [run(ds, method, 10, **kwargs)[1] for _ in range(3)]
        print(f"  {label:24} {statistics.median(times):6.2f} s (runs: {', '.join(f'{t:.2f}' for t in times)})"
              f"  {load()}", flush=True)


def million_run(n: int) -> None:
    """One size, in this process: time and peak resident memory of xu-top-down at k = 10."""
    from anonset.datasets import patient_register_dataset

    ds = patient_register_dataset(n, seed=1)
    run(patient_register_dataset(20_000, seed=2), "xu-top-down", 10)  # numba compile outside the measurement
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    release, seconds = run(ds, "xu-top-down", 10)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    s = release.partition.sizes
    print(f"  n = {n:>9,}: {seconds:7.1f} s, peak RSS {after / 1024:7.0f} MB ({before / 1024:.0f} MB before the fit),"
          f" GCP {100 * release.metrics['gcp']:.2f}%, {release.n_classes:,} classes of {s.min()}-{s.max()},"
          f" verified {release.verified}; {load()}", flush=True)


def million() -> None:
    print("\n## xu-top-down on synthetic records (patient register, six quasi-identifiers), k = 10;"
          " each size in a fresh process", flush=True)
    for n in (250_000, 500_000, 1_000_000):
        subprocess.run([sys.executable, __file__, "--rows", str(n)], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", default="5,10,25,50,100")
    parser.add_argument("--sections", default="byun,xu,merge,weights,peers,timing")
    parser.add_argument("--rows", type=int, help="run xu-top-down on this many synthetic rows only (used by million)")
    args = parser.parse_args()
    if args.rows:
        million_run(args.rows)
        return
    ks = [int(v) for v in args.k.split(",")]
    sections = args.sections.split(",")
    header("benchmarks/local_recoding.py")
    if sections != ["million"]:
        ds = adult_with_label()
        print(f"Adult: {ds.n_rows:,} records, quasi-identifiers {', '.join(ds.quasi)}; class label income")
        for method in ("k-member", "xu-top-down", "xu-bottom-up", "mondrian"):  # numba compile outside timings
            run(ds, method, 10)
    if "byun" in sections:
        byun(ds, ks)
    if "xu" in sections:
        xu(ds, ks)
    if "merge" in sections:
        merge(ks)
    if "weights" in sections:
        weights(ds)
    if "peers" in sections:
        peers(ds)
    if "timing" in sections:
        timing(ds)
    if "million" in sections:
        million()
    print(f"at the end: {load()}")


if __name__ == "__main__":
    main()
