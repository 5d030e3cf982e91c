"""Median Mondrian: time, peak memory, classes and GCP on Adult and on a million synthetic records.

Adult as in ``benchmarks/local_recoding.py`` (``adult.data``, 30,162 complete records; quasi-identifiers
age, workclass, education-num, marital-status, occupation, race, sex, native-country; age and
education-num numeric, the rest through their taxonomies), k in 5, 10, 25, 50, 100, strict and
relaxed.  Then, at k = 10, ``adult-ordinal``: the same records with every categorical
quasi-identifier declared ``type: ordinal`` (order: its taxonomy's leaf order), so Mondrian cuts it at
thresholds and releases ranges of categories — how the peer implementation below treats categories
(cut as ordered codes, no hierarchy; NCP of a range is the share of the order it spans), so only
those rows compare with the peers' figures.  Then ``adult.csv`` as the
anonypy comparison was set up (ARX hierarchies, salary-class sensitive, NCP by lowest
common ancestor over the ARX hierarchies).  Then the synthetic patient
register with 1,000,000 records and eight quasi-identifiers (its six plus ``length_of_stay``,
numeric, and ``diagnosis`` with its hierarchy), k = 10, strict and relaxed; and, with a model beyond
k-anonymity (Mondrian's general kernel, which judges every per-class model), 100,000 records of the
register with its six quasi-identifiers, k = 10 and entropy 3-diversity on ``diagnosis`` — then the
same through the Python loop over regions, the reference implementation the kernel reproduces (the
compiled paths switched off, as the tests do; ``(python)`` in the first column).

Per run: seconds of :func:`anonset.methods.mondrian.regions` alone, its peak memory above the resident
size before the call (the process's high-water mark, reset through ``/proc/self/clear_refs``; on
systems without it, the peak traced by ``tracemalloc``, which misses the compiled kernel's arrays),
the classes, the smallest class, GCP (NCP as a share of its maximum, ×100 = "NCP %"), and whether
anonset's independent re-check of the rendered release passes, and the 1-minute load average.  It prints;
nothing is asserted.

    .venv/bin/python benchmarks/mondrian.py [--k 5,10,25,50,100] [--rows 1000000] [--skip-adult]
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import pandas as pd

from anonset import EntropyLDiversity, KAnonymity, Requirements
from anonset.core.dataset import AttributeSpec, AttributeType, Dataset, Role
from anonset.core.partition import partition_of_assignment
from anonset.datasets import adult_morton, patient_register_dataset
from anonset.datasets.synthetic import patient_register, patient_register_attributes
from anonset.hierarchy import read_hierarchy
from anonset.methods.mondrian import regions
from anonset.methods.mondrian.regions import MondrianTree, mondrian
from anonset.metrics import GCP
from anonset.privacy.base import PrivacyModel
from anonset.recheck.verify import verify_release
from anonset.release.release import render_partition

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import header, load

ADULT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult"

# Qiyuan Gong's public Mondrian implementations on Adult, k = 10, NCP %, measured once on the 2-core
# python-svc VM (not re-run here); they cut categorical attributes as ranges of integer codes, so compare
# them with the adult-ordinal rows.
PEERS = {"strict Mondrian": "11.24% in 0.19 s", "relaxed Mondrian": "15.85%"}


def _status(field: str) -> int | None:
    """A ``/proc/self/status`` field in bytes (None where there is no procfs)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def measure(run: Callable[[], MondrianTree]) -> tuple[MondrianTree, float, float, str]:
    """Run once: the tree, seconds, peak MB above the resident size before, and how the peak was taken."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)  # hand freed heap back, so new allocations raise the RSS
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset the high-water mark to the current resident size
        before = _status("VmRSS")
    except OSError:
        before = None
    if before is not None:
        started = time.perf_counter()
        tree = run()
        seconds = time.perf_counter() - started
        peak = (_status("VmHWM") or before) - before
        return tree, seconds, peak / 2**20, "rss"
    tracemalloc.start()
    started = time.perf_counter()
    tree = run()
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return tree, seconds, peak / 2**20, "traced"


@contextmanager
def python_loop() -> Iterator[None]:
    """Mondrian through its Python loop over regions, the reference implementation (compiled paths switched off)."""
    saved = regions.compiled_grow, regions.is_k_anonymity
    regions.compiled_grow = lambda *_: None
    regions.is_k_anonymity = lambda _: False
    try:
        yield
    finally:
        regions.compiled_grow, regions.is_k_anonymity = saved


def report(label: str, ds: Dataset, models: list[PrivacyModel], strict: bool, check: bool = True,
           reference: bool = False) -> None:
    """One line of figures for Mondrian on ``ds`` (``reference``: by the Python loop over regions)."""
    requirements = Requirements(models)
    with python_loop() if reference else nullcontext():
        tree, seconds, peak, how = measure(lambda: mondrian(ds, requirements, strict=strict))
    partition = partition_of_assignment(ds, tree.row_class)
    gcp = GCP().score(partition, ds)
    verified = "-"
    if check:
        verified = str(verify_release(render_partition(ds, partition), ds, requirements, ds.n_rows).ok)
    label = f"{label} (python)" if reference else label
    print(f"{label:25} {requirements.k:>4} {'strict' if strict else 'relaxed':8} {seconds:8.2f} {peak:8.1f} {how:6}"
          f" {tree.n_classes:>8} {int(partition.sizes.min()):>5} {100 * gcp:7.2f} {verified:8}  {load()}", flush=True)


def adult_ordinal() -> Dataset:
    """Adult as in ``adult_morton`` with every categorical quasi-identifier declared ``type: ordinal``.

    Their order is their taxonomy's leaf order, so Mondrian cuts them at thresholds like numbers and
    releases ranges of categories (``Adm-clerical..Prof-specialty``), as the peer cuts category codes.
    """
    ds = adult_morton(ADULT)
    specs = dict(ds.specs)
    for q in ("workclass", "marital-status", "occupation", "race", "sex", "native-country"):
        specs[q] = AttributeSpec(role=Role.QUASI, type=AttributeType.ORDINAL, hierarchy=specs[q].hierarchy)
    assert ds.table is not None
    return Dataset(ds.table, specs, source="adult, categories ordinal")


def anonypy_comparison() -> None:
    """``adult.csv`` as the anonypy comparison set it up, scored the same way.

    Eight quasi-identifiers with the ARX hierarchies of ``hierarchies/`` (age split by value),
    salary-class sensitive, k = 10; NCP is the lowest-common-ancestor NCP over the ARX hierarchies
    for every attribute, age included (GCP of the classes' LCAs, a share of its maximum).
    """
    table = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    quasi = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
    hierarchies = {q: read_hierarchy(ADULT / "hierarchies" / f"{q}.csv", q) for q in quasi}
    lca_specs = {q: AttributeSpec(role=Role.QUASI, hierarchy=hierarchies[q]) for q in quasi}
    lca_specs["salary-class"] = AttributeSpec(role=Role.SENSITIVE)
    specs = dict(lca_specs)
    specs["age"] = AttributeSpec(role=Role.QUASI, type=AttributeType.NUMERIC, hierarchy=hierarchies["age"])
    ds = Dataset(table, specs)
    lca = Dataset(table, lca_specs)
    print("anonypy's setting (adult.csv, ARX hierarchies, salary-class sensitive, k = 10; NCP by LCA):")
    for strict in (True, False):
        mondrian(ds, Requirements([KAnonymity(10)]), strict=strict)  # compile outside the timing
        started = time.perf_counter()
        tree = mondrian(ds, Requirements([KAnonymity(10)]), strict=strict)
        seconds = time.perf_counter() - started
        ncp = GCP().score(partition_of_assignment(lca, tree.row_class), lca)
        print(f"  anonset median Mondrian ({'strict' if strict else 'relaxed'}): {seconds:.3f} s,"
              f" {tree.n_classes:,} classes, NCP {ncp:.3f}; {load()}")
    print("  anonypy (measured once on the 2-core python-svc VM, not re-run here): 37 s, 1,998 classes, NCP 0.283")


def synthetic(n_rows: int) -> Dataset:
    """The patient register with eight quasi-identifiers (``length_of_stay`` and ``diagnosis`` added)."""
    table = patient_register(n_rows, seed=0)
    attrs = patient_register_attributes(table)
    attrs["length_of_stay"] = AttributeSpec(role=Role.QUASI, type=AttributeType.NUMERIC)
    attrs["diagnosis"] = AttributeSpec(role=Role.QUASI, hierarchy=attrs["diagnosis"].hierarchy)
    return Dataset(table, attrs, source=f"patient_register({n_rows}) with 8 quasi-identifiers")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", default="5,10,25,50,100")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--skip-adult", action="store_true")
    args = parser.parse_args()
    header("benchmarks/mondrian.py")
    print(f"{'data':25} {'k':>4} {'variant':8} {'seconds':>8} {'peak MB':>8} {'(peak)':6} {'classes':>8}"
          f" {'min':>5} {'GCP %':>7} verified")
    mondrian(synthetic(1000), Requirements([KAnonymity(10)]))  # load the compiled kernel outside the timings
    if not args.skip_adult:
        adult = adult_morton(ADULT)
        for k in (int(v) for v in args.k.split(",")):
            for strict in (True, False):
                report("adult", adult, [KAnonymity(k)], strict)
        ordinal = adult_ordinal()
        for strict in (True, False):
            report("adult-ordinal", ordinal, [KAnonymity(10)], strict)
        anonypy_comparison()
    started = time.perf_counter()
    ds = synthetic(args.rows)
    built = time.perf_counter() - started
    for strict in (True, False):
        report(f"synth {args.rows // 1000}k", ds, [KAnonymity(10)], strict, check=False)
    codes_mb = sum(ds.encoded[q].row_codes().nbytes for q in ds.quasi) / 2**20
    print(f"  {ds.n_rows:,} records, quasi-identifiers {', '.join(ds.quasi)}; dataset built in {built:.1f} s"
          f" ({codes_mb:.0f} MB of quasi-identifier codes)")
    generic = patient_register_dataset(100_000, seed=0)
    models: list[PrivacyModel] = [KAnonymity(10), EntropyLDiversity("diagnosis", 3)]
    mondrian(patient_register_dataset(1000, seed=0), Requirements(models))  # load the general kernel
    for reference in (False, True):
        for strict in (True, False):
            report("synth 100k l-div", generic, models, strict, reference=reference)
    print("peers on Adult at k = 10, categories cut as codes (NCP %; measured once on the 2-core python-svc VM):")
    for name, figure in PEERS.items():
        print(f"  {name}: {figure}")


if __name__ == "__main__":
    main()
