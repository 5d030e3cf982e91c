"""Workload-aware Mondrian (LeFevre, DeWitt and Ramakrishnan, KDD 2006): Figures 8 and 11, Adult, LSD, speed.

Every model figure comes from :func:`anonset.evaluation.evaluate`, the paper's protocol: the recoding
is learned on the training records only (through the Anonymizer, so every training release is
re-checked by anonset's independent verifier), the test records are placed down the fitted tree,
regions become 2·d numbers, and the same scikit-learn model is trained on the recoded and on the
original training records.  It prints tables; nothing is asserted.

Sections (``--sections``, default all):

- ``fig8``: Figure 8, once with ``elevel`` generalized through its hierarchy as Figure 6 says, and once
  with ``elevel`` declared ordinal (``--elevel``).  Agrawal et al.'s generator, functions 2, 4, 6 and 7; per trial a
  1,000-record training set and an independently drawn 1,000-record test set with the same label
  function (for 2, 4 and 6 its constants drawn at random per trial, as the authors did; 7 fixed);
  k = 25; decision tree, naive Bayes, random forest, linear SVM on the original data, on Median
  Mondrian and on InfoGain Mondrian releases.  Mean and standard deviation over the trials, and how
  often InfoGain beat / tied / lost to Median (paired, same trial), with a paired t-test.  A trial
  whose training set has one class only (possible with random constants) is skipped and counted.
- ``fig11``: Figure 11.  Imprecision (equation 5) of Function 2's three rectangles (Figure 6's
  constants, :func:`anonset.datasets.agrawal.function2_predicates`) over the training partition,
  1,000 records as in the paper, k in 5 .. 250: Median Mondrian on all nine attributes, Median
  Mondrian restricted to age and salary (weight 0 on the others), Selection Mondrian (the label
  column left out, so it hands regions over to median), and, for reference, InfoGain Mondrian with
  the label (membership of the rectangles' union) as target.  Mean over ``--fig11-trials`` datasets.
- ``adult``: ``adult.csv`` (30,162 records, target salary-class), 10-fold, k in 5 .. 100, Median vs
  InfoGain: decision-tree (and naive-Bayes) accuracy, conditional entropy of the class given the
  training partition, average class size (Figures 9a, d, e), and their correlation with accuracy.
  Quasi-identifiers: all eight predictors; age numeric; education as its years of schooling
  (numeric, the paper's "Education (years)"; the years are UCI's education-num of ``adult.data``,
  one per education value); the six others through the trees in ``taxonomies/``.
- ``regression``: ``adult.data`` (30,162 complete records, the eight quasi-identifiers of
  ``benchmarks/mondrian.py``), target hours-per-week, 10-fold, LSD vs Median: mean absolute error
  of linear regression and a regression tree (Figure 9i), beside constant predictors (training mean, median).
- ``speed``: every criterion on Adult, k = 10, strict and relaxed — median, InfoGain and selection
  (``age`` 40-60 and ``sex`` Male, then InfoGain) on ``adult.csv`` (target salary-class), LSD on
  ``adult.data`` (target hours-per-week) — each by the compiled path and by the Python loop over
  regions (the reference implementation, the compiled paths switched off as the tests do); then Median
  and InfoGain Mondrian, k = 10, strict and relaxed, on 1,000,000 synthetic records with eight
  quasi-identifiers: the patient register of ``benchmarks/mondrian.py`` (median only: it has no
  target) and Agrawal's generator without ``hvalue`` (function 2's label the target).  Seconds of
  :func:`anonset.methods.mondrian.regions.mondrian` alone (the kernels loaded from numba's cache
  before the timings) and peak memory above the resident size before the call
  (``benchmarks/mondrian.py``'s ``measure``), with the 1-minute load average.

    .venv/bin/python benchmarks/workload_aware.py            # full: 100 trials per elevel declaration, about 17 minutes
    .venv/bin/python benchmarks/workload_aware.py --quick    # 5 trials, 3 folds, 100,000 rows
    .venv/bin/python benchmarks/workload_aware.py --sections fig8,fig11 --trials 20
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from anonset import KAnonymity, Requirements
from anonset.core.dataset import AttributeSpec, AttributeType, Dataset, Role
from anonset.datasets import adult_morton, agrawal, agrawal_attributes
from anonset.datasets.agrawal import function2_predicates
from anonset.datasets.reference import read_adult_raw
from anonset.evaluation import evaluate, split_rows
from anonset.hierarchy import read_taxonomy
from anonset.methods.mondrian.regions import mondrian
from anonset.metrics.imprecision import imprecision

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mondrian as mondrian_bench  # benchmarks/mondrian.py: measure, python_loop, synthetic
from _report import header, load

ADULT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult"
CLASSIFIERS = ("decision_tree", "naive_bayes", "random_forest", "linear_svm")
FUNCTIONS = (2, 4, 6, 7)
#: Taxonomy files of adult.csv's categorical quasi-identifiers.
TAXONOMIES = {"sex": "sex", "race": "race", "marital-status": "marital_status", "native-country": "native_country",
              "workclass": "workclass", "occupation": "occupation"}


def mean_std(values: Sequence[float] | np.ndarray) -> str:
    a = np.asarray(values, dtype=np.float64)
    return f"{a.mean():.4f} ± {a.std(ddof=1) if len(a) > 1 else 0.0:.4f}"


# ---------------------------------------------------------------- Figure 8
def fig8(trials: int, elevel: str, k: int = 25) -> None:
    how = {"hierarchy": "elevel through its hierarchy (Figure 6)", "ordinal": "elevel ordinal (not the paper's)"}
    print(f"\n## Figure 8, {how[elevel]}: Agrawal functions 2, 4, 6, 7; 1,000 training + 1,000 test records per"
          f" trial, k = {k}, {trials} trials; accuracy mean ± std over the trials")
    attrs = agrawal_attributes(elevel)
    requirements = Requirements([KAnonymity(k)])
    print(f"{'fn':>2} {'model':14} {'original':>17} {'median Mondrian':>17} {'InfoGain Mondrian':>17}"
          f" {'IG>med / = / <':>15} {'paired t p':>10}")
    for f in FUNCTIONS:
        scores: dict[str, dict[str, list[float]]] = {c: {m: [] for m in CLASSIFIERS}
                                                     for c in ("original", "median", "infogain")}
        majority: list[float] = []
        entropy: dict[str, list[float]] = {"median": [], "infogain": []}
        size: dict[str, list[float]] = {"median": [], "infogain": []}
        skipped = 0
        seed = 0
        done = 0
        started = time.perf_counter()
        while done < trials:
            seed += 1
            train = agrawal(1000, f, seed=10_000 * f + seed, random_constants=f != 7)
            if train["group"].nunique() < 2:
                skipped += 1
                continue
            test = agrawal(1000, f, seed=10_000_000 + 10_000 * f + seed, constants=train.attrs["constants"])
            majority.append(float((test["group"] == train["group"].mode()[0]).mean()))
            for criterion in ("median", "infogain"):
                result = evaluate(train, attrs, requirements=requirements, method="mondrian",
                                  method_options={"criterion": criterion}, test=test, models=CLASSIFIERS, seed=seed)
                for row in result.rows:
                    scores[criterion][row["model"]].append(row["anonymized"])
                    if criterion == "median":
                        scores["original"][row["model"]].append(row["original"])
                entropy[criterion].append(result.splits[0]["conditional_entropy"])
                size[criterion].append(result.splits[0]["average_class_size"])
            done += 1
        for m in CLASSIFIERS:
            ig, med = np.asarray(scores["infogain"][m]), np.asarray(scores["median"][m])
            wins, ties, losses = int((ig > med).sum()), int((ig == med).sum()), int((ig < med).sum())
            p = float(stats.ttest_rel(ig, med).pvalue) if len(ig) > 1 and (ig != med).any() else float("nan")
            print(f"{f:>2} {m:14} {mean_std(scores['original'][m]):>17} {mean_std(med):>17} {mean_std(ig):>17}"
                  f" {f'{wins} / {ties} / {losses}':>15} {p:10.1e}")
        print(f"   majority class of the training set: {mean_std(majority)};"
              f" conditional entropy (bits) median {mean_std(entropy['median'])}, InfoGain"
              f" {mean_std(entropy['infogain'])}; average class size median {np.mean(size['median']):.1f},"
              f" InfoGain {np.mean(size['infogain']):.1f}; {skipped} one-class training sets skipped;"
              f" {time.perf_counter() - started:.0f} s, {load()}", flush=True)


# ---------------------------------------------------------------- Figure 11
def fig11(trials: int, ks: Sequence[int], n_rows: int = 1000) -> None:
    predicates = function2_predicates()
    print(f"\n## Figure 11: imprecision of Function 2's three rectangles (Figure 6's constants) over the training"
          f" partition; {n_rows:,} records, mean over {trials} datasets")
    print("   rectangles: " + "; ".join(f"age {p['age'][0]:g}-{p['age'][1]:g}, salary {p['salary'][0]:g}-"
                                         f"{p['salary'][1]:g}" for p in predicates))
    plain = {name: spec for name, spec in agrawal_attributes().items() if name != "group"}
    labelled = agrawal_attributes()
    age_salary_only = {q: 0.0 for q in plain if q not in ("age", "salary")}
    variants: list[tuple[str, dict[str, Any]]] = [
        ("median", {}),
        ("median age+salary", {"weights": age_salary_only}),
        ("selection", {"criterion": "selection", "selections": predicates}),
        ("InfoGain (label)", {"criterion": "infogain"}),
    ]
    results: dict[tuple[int, str], list[float]] = {}
    true_sizes = []
    for t in range(trials):
        table = agrawal(n_rows, 2, seed=500 + t)
        ds_plain = Dataset(table.drop(columns="group"), plain, source="agrawal f2")
        ds_label = Dataset(table, labelled, source="agrawal f2 with label")
        true_sizes.append(int((table["group"] == "A").sum()))
        for k in ks:
            requirements = Requirements([KAnonymity(k)])
            for name, options in variants:
                ds = ds_label if name.startswith("InfoGain") else ds_plain
                tree = mondrian(ds, requirements, **options)
                total = float(imprecision(ds_plain, tree.row_class, predicates).sum())
                results.setdefault((k, name), []).append(total)
    print(f"   records satisfying the three predicates (|PR(T)| summed): mean {np.mean(true_sizes):.1f}")
    print(f"{'k':>5} " + " ".join(f"{name:>18}" for name, _ in variants))
    for k in ks:
        print(f"{k:>5} " + " ".join(f"{np.mean(results[(k, name)]):18.1f}" for name, _ in variants))


# ---------------------------------------------------------------- Adult classification
def adult_csv() -> Dataset:
    """``adult.csv`` with salary-class as target: age and education (years) numeric, the rest through taxonomies."""
    raw = read_adult_raw(ADULT / "adult.data")
    years = dict(zip(raw["education"], raw["education-num"], strict=True))
    table = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    table["education"] = table["education"].map(years)
    specs: dict[str, AttributeSpec] = {
        "age": AttributeSpec(role=Role.QUASI, type=AttributeType.NUMERIC),
        "education": AttributeSpec(role=Role.QUASI, type=AttributeType.NUMERIC),
    }
    for column, name in TAXONOMIES.items():
        specs[column] = AttributeSpec(role=Role.QUASI, hierarchy=read_taxonomy(ADULT / "taxonomies" / f"{name}.txt",
                                                                               column))
    specs["salary-class"] = AttributeSpec(role=Role.TARGET)
    return Dataset(table, specs, source=str(ADULT / "adult.csv"))


def adult(ks: Sequence[int], folds: int) -> None:
    ds = adult_csv()
    print(f"\n## Adult (adult.csv, {ds.n_rows:,} records, target salary-class), {folds}-fold; quasi-identifiers"
          f" {', '.join(ds.quasi)}")
    print(f"{'k':>4} {'criterion':9} {'tree (anonymized)':>18} {'tree (orig.)':>12} {'NB (anon.)':>10}"
          f" {'NB (orig.)':>10} {'H(C|P) bits':>11} {'avg size':>8} {'classes':>8} {'unplaced':>8} {'s':>5}")
    points: list[tuple[float, float, float]] = []
    for k in ks:
        for criterion in ("median", "infogain"):
            started = time.perf_counter()
            result = evaluate(ds, requirements=Requirements([KAnonymity(k)]), method="mondrian",
                              method_options={"criterion": criterion}, models=["decision_tree", "naive_bayes"],
                              folds=folds, seed=0)
            frame = result.to_frame()
            tree = frame[frame.model == "decision_tree"]
            nb = frame[frame.model == "naive_bayes"]
            s = result.summary()
            points.append((float(tree.anonymized.mean()), s["conditional_entropy"], s["average_class_size"]))
            print(f"{k:>4} {criterion:9} {mean_std(tree.anonymized.tolist()):>18} {tree.original.mean():12.4f}"
                  f" {nb.anonymized.mean():10.4f} {nb.original.mean():10.4f} {s['conditional_entropy']:11.4f}"
                  f" {s['average_class_size']:8.1f} {s['classes']:8.1f} {s['test_unplaced']:8.1f}"
                  f" {time.perf_counter() - started:5.0f}", flush=True)
    acc, ent, size = (np.array(v) for v in zip(*points, strict=True))
    print(f"   over these {len(points)} runs: Pearson r(tree accuracy, conditional entropy) ="
          f" {np.corrcoef(acc, ent)[0, 1]:.3f}, r(tree accuracy, average class size) ="
          f" {np.corrcoef(acc, size)[0, 1]:.3f};"
          f" Spearman {stats.spearmanr(acc, ent)[0]:.3f} and {stats.spearmanr(acc, size)[0]:.3f}")


# ---------------------------------------------------------------- Adult regression
def adult_hours() -> Dataset:
    """``adult.data`` as in ``benchmarks/mondrian.py`` with hours-per-week as numeric target."""
    ds = adult_morton(ADULT)
    specs = dict(ds.specs)
    specs["hours-per-week"] = AttributeSpec(role=Role.TARGET, type=AttributeType.NUMERIC)
    assert ds.table is not None
    return Dataset(ds.table, specs, source=ds.source)


def regression(ks: Sequence[int], folds: int) -> None:
    ds = adult_hours()
    assert ds.table is not None
    y = ds.table["hours-per-week"].astype(float).to_numpy()
    splits = split_rows(ds.n_rows, folds=folds)
    mean = [float(np.abs(y[test] - y[train].mean()).mean()) for train, test in splits]
    median = [float(np.abs(y[test] - np.median(y[train])).mean()) for train, test in splits]
    print(f"\n## Regression: adult.data ({ds.n_rows:,} records), target hours-per-week, {folds}-fold; mean absolute"
          f" error (hours); quasi-identifiers {', '.join(ds.quasi)}")
    print(f"   constant predictors: training mean {np.mean(mean):.4f}, training median {np.mean(median):.4f}")
    print(f"{'k':>4} {'criterion':9} {'linear (anon.)':>14} {'linear (orig.)':>14} {'tree (anon.)':>18}"
          f" {'tree (orig.)':>12} {'avg size':>8} {'s':>5}")
    for k in ks:
        for criterion in ("median", "lsd"):
            started = time.perf_counter()
            result = evaluate(ds, requirements=Requirements([KAnonymity(k)]), method="mondrian",
                              method_options={"criterion": criterion}, folds=folds, seed=0)
            frame = result.to_frame()
            lin = frame[frame.model == "linear_regression"]
            tree = frame[frame.model == "regression_tree"]
            print(f"{k:>4} {criterion:9} {lin.anonymized.mean():14.4f} {lin.original.mean():14.4f}"
                  f" {mean_std(tree.anonymized.tolist()):>18} {tree.original.mean():12.4f}"
                  f" {result.summary()['average_class_size']:8.1f} {time.perf_counter() - started:5.0f}", flush=True)


# ---------------------------------------------------------------- speed
def agrawal_eight(n_rows: int) -> Dataset:
    """Agrawal's generator, eight quasi-identifiers (``hvalue`` left out), function 2's label as target."""
    table = agrawal(n_rows, 2, seed=0).drop(columns="hvalue")
    specs = {name: spec for name, spec in agrawal_attributes().items() if name != "hvalue"}
    return Dataset(table, specs, source=f"agrawal({n_rows}) without hvalue")


#: The selection criterion's predicate in the speed runs on ``adult.csv`` (as in the configuration example).
ADULT_SELECTIONS = [{"age": [40, 60], "sex": ["Male"]}]


def speed(n_rows: int) -> None:
    print("\n## Speed: seconds of anonset.methods.mondrian.regions alone; peak MB above the resident size before"
          " the call; k = 10")
    print(f"{'data':26} {'criterion':9} {'path':8} {'variant':8} {'seconds':>8} {'peak MB':>8} {'classes':>8}"
          f" {'min':>5}")

    def line(label: str, ds: Dataset, criterion: str, strict: bool, path: str = "compiled") -> None:
        requirements = Requirements([KAnonymity(10)])
        options: dict[str, Any] = {"criterion": criterion, "strict": strict}
        if criterion == "selection":
            options["selections"] = ADULT_SELECTIONS
        if path == "python":
            with mondrian_bench.python_loop():
                tree, seconds, peak, how = mondrian_bench.measure(lambda: mondrian(ds, requirements, **options))
        else:
            tree, seconds, peak, how = mondrian_bench.measure(lambda: mondrian(ds, requirements, **options))
        sizes = np.bincount(tree.row_class)
        print(f"{label:26} {criterion:9} {path:8} {'strict' if strict else 'relaxed':8} {seconds:8.2f}"
              f" {peak:8.1f}{'' if how == 'rss' else '*'} {tree.n_classes:>8} {int(sizes.min()):>5}  {load()}",
              flush=True)

    adult_ds, hours = adult_csv(), adult_hours()
    runs = [("adult.csv", adult_ds, "median"), ("adult.csv", adult_ds, "infogain"),
            ("adult.csv", adult_ds, "selection"), ("adult.data (hours)", hours, "lsd")]
    for _, ds, criterion in runs:  # load every kernel from the cache (or compile it) outside the timings
        extra: dict[str, Any] = {"selections": ADULT_SELECTIONS} if criterion == "selection" else {}
        mondrian(ds, Requirements([KAnonymity(10)]), criterion=criterion, **extra)
    for label, ds, criterion in runs:
        for path in ("compiled", "python"):
            for strict in (True, False):
                line(label, ds, criterion, strict, path)
    del adult_ds, hours
    for label, build, criteria in ((f"patient register {n_rows // 1000}k", mondrian_bench.synthetic, ("median",)),
                                   (f"agrawal {n_rows // 1000}k (8 QIs)", agrawal_eight, ("median", "infogain"))):
        started = time.perf_counter()
        ds = build(n_rows)
        built = time.perf_counter() - started
        for criterion in criteria:
            for strict in (True, False):
                line(label, ds, criterion, strict)
        print(f"   {label}: quasi-identifiers {', '.join(ds.quasi)}; dataset built in {built:.1f} s")
        del ds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few trials, 3 folds, two k, 100,000 rows")
    parser.add_argument("--sections", default="fig8,fig11,adult,regression,speed")
    parser.add_argument("--trials", type=int, help="Figure 8 trials (default 100, quick 5)")
    parser.add_argument("--elevel", default="hierarchy,ordinal",
                        help="Figure 8's declarations of elevel, each its own table (hierarchy: the paper's)")
    parser.add_argument("--fig11-trials", type=int, help="Figure 11 datasets (default 20, quick 3)")
    parser.add_argument("--rows", type=int, help="rows of the speed runs (default 1,000,000, quick 100,000)")
    args = parser.parse_args()
    quick = args.quick
    trials = args.trials or (5 if quick else 100)
    fig11_trials = args.fig11_trials or (3 if quick else 20)
    rows = args.rows or (100_000 if quick else 1_000_000)
    ks = [10, 50] if quick else [5, 10, 25, 50, 100]
    folds = 3 if quick else 10
    sections = args.sections.split(",")
    header("benchmarks/workload_aware.py")
    started = time.perf_counter()
    if "fig8" in sections:
        for elevel in args.elevel.split(","):
            fig8(trials, elevel)
    if "fig11" in sections:
        fig11(fig11_trials, [5, 25, 100] if quick else [5, 10, 25, 50, 100, 250])
    if "adult" in sections:
        adult(ks, folds)
    if "regression" in sections:
        regression(ks, folds)
    if "speed" in sections:
        speed(rows)
    print(f"\ntotal {time.perf_counter() - started:.0f} s; at the end: {load()}")


if __name__ == "__main__":
    main()
