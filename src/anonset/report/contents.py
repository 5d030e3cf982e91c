"""Everything a release report shows, as JSON-ready data: built from the input, the released table and the run.

:func:`build_report` is the one source of the HTML report
(:mod:`anonset.report.html`) and of its JSON export.  It judges the release
afresh from the released values (the classes, the guarantees, the risk), so
a report of a file made elsewhere says the same as the report written beside
the run; the run's summary adds what only the run knows (the search, the
success list, the front, the metrics it computed, the timings).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset, Role
from anonset.core.partition import HierarchyNodes, Partition, partition_of_assignment
from anonset.errors import DataError
from anonset.metrics import reported_metrics
from anonset.metrics.descriptions import describe_metric
from anonset.privacy.base import Requirements
from anonset.release.release import SUPPRESSED
from anonset.release.verify import VerificationReport, classes_of_table, verify_release
from anonset.report.attributes import attribute_sections, suppressed_breakdown
from anonset.report.explain import alternatives, why_this_release
from anonset.risk.report import class_sizes_of_codes, risk_report
from anonset.risk.sample import DEFAULT_THRESHOLDS
from anonset.version import __version__

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["REPORT_FORMAT", "build_report", "check_release_columns"]

#: Version of the report's JSON layout (raised when a key changes meaning or goes away).
REPORT_FORMAT = 1


def check_release_columns(dataset: Dataset, released: pd.DataFrame, where: str) -> None:
    """A DataError unless ``released`` has the columns a release of ``dataset`` has (identifiers dropped)."""
    expected = [c for c in dataset.columns if dataset.specs[c].role is not Role.IDENTIFIER]
    missing = [c for c in expected if c not in released.columns]
    extra = [c for c in released.columns if c not in expected]
    if missing or extra:
        problem = (f"column {missing[0]!r} of the config's table is not in the release" if missing
                   else f"column {extra[0]!r} of the release is not a released column of the config's table")
        raise DataError(f"{where}: {problem} (release columns: {', '.join(map(str, released.columns))});"
                        " give the release this config produced")
    if len(released) > dataset.n_rows:
        raise DataError(f"{where}: the release has {len(released):,} records but the config's input has"
                        f" {dataset.n_rows:,}; give the release this config produced")


def build_report(dataset: Dataset, released: pd.DataFrame, requirements: Requirements,
                 summary: Mapping[str, Any] | None = None, *, partition: Partition | None = None,
                 family: str | None = None, method_summary: str = "", run: Mapping[str, Any] | None = None,
                 workload: Mapping[str, Any] | None = None, where: str = "release") -> dict[str, Any]:
    """The report of a release, as a JSON-ready mapping (the keys are documented in docs/report.md).

    Parameters
    ----------
    dataset : Dataset
        The input the release was made from, in memory.
    released : pandas.DataFrame
        The released records (suppressed ones marked ``*`` in every
        quasi-identifier, or dropped).
    requirements : Requirements
        The privacy models and the suppression budget of the run.
    summary : mapping, optional
        The run's summary (:meth:`anonset.release.release.Release.summary`);
        without it the report derives what it can from the released values.
    partition : Partition, optional
        The method's partition (spares re-deriving it from the released values).
    family : str, optional
        The method's family (``full-domain``, ``grouping``, ``front``).
    method_summary : str
        The method's one-line description.
    run : mapping, optional
        What the command knows of the run: ``config``, ``input`` (path,
        sha256), ``release`` (where it was written).
    workload : mapping, optional
        The config's ``evaluation`` section: its ``queries`` and ``patterns``
        checks are run on the release against the original records.
    where : str
        The release's name in error messages.
    """
    check_release_columns(dataset, released, where)
    verification = verify_release(released, dataset, requirements, dataset.n_rows)
    aligned = len(released) == dataset.n_rows
    suppressed = _suppressed_rows(released, dataset.quasi) if aligned and not verification.root_class_rows else None
    levels = _levels(summary, dataset, released, suppressed)
    if partition is None and aligned:
        partition = _partition(dataset, released, suppressed, levels)
    metrics = _metrics(summary, dataset, requirements, partition)
    k = requirements.k
    released_sizes = verification.released_sizes
    # the input's risk: the run measured it already; a report of a file measures it here
    before = ((summary or {}).get("risk") or {}).get("input") or risk_report(class_sizes_of_codes(dataset.qi_codes()))
    after = (risk_report(released_sizes, records_excluded=verification.suppressed_rows)
             if len(released_sizes) else None)
    method = summary["method"] if summary is not None else "unknown (no run summary given)"
    family = family or ("full-domain" if levels is not None else None)
    nearby = (alternatives(dataset, requirements, levels, (summary or {}).get("search", {}).get("optimized"))
              if family == "full-domain" and levels is not None and summary is not None else None)
    facts = dict(summary) if summary is not None else {
        "method": method, "requirements": requirements.describe(), "rows": dataset.n_rows,
        "classes": verification.classes, "min_class_size": verification.min_class_size,
        "suppressed_rows": verification.suppressed_rows, "search": {}}
    budget = requirements.budget_rows(dataset.n_rows)
    report: dict[str, Any] = {
        "format": REPORT_FORMAT,
        "generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "anonset": __version__,
        "run": _run_section(summary, run, method, dataset),
        "headline": _headline(dataset, verification.classes, verification.min_class_size,
                              verification.suppressed_rows, released_sizes, after, requirements),
        "guarantees": _guarantees(requirements, verification, budget, dataset.n_rows),
        "suppression": {
            "records": verification.suppressed_rows, "share": verification.suppressed_rows / max(dataset.n_rows, 1),
            "budget_records": budget, "budget_share": requirements.max_suppression,
            "dropped": not aligned,
            "breakdown": suppressed_breakdown(dataset, released, suppressed, levels, k),
        },
        "attributes": attribute_sections(dataset, released, partition, levels),
        "classes": _class_section(released_sizes, k),
        "risk": {"thresholds": [float(t) for t in DEFAULT_THRESHOLDS], "input": before, "release": after,
                 "k_threshold": 1.0 / k if k > 1 else None},
        "utility": [{"name": name, "value": value, "optimized": name == facts.get("search", {}).get("optimized"),
                     **describe_metric(name).to_json()} for name, value in metrics.items()],
        "utility_source": "the run's summary" if summary is not None else "recomputed from the released classes",
        "method": _method_section(facts, family),
        "why": why_this_release(facts, family or "", method_summary, nearby, budget),
        "alternatives": nearby,
        "workload": _workload(dataset, partition, workload),
        "warnings": list((summary or {}).get("warnings", [])),
    }
    return report


def _workload(dataset: Dataset, partition: Partition | None,
              workload: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The config's query-accuracy and pattern-survival checks run on the release, or None when none is set."""
    checks = {key: (workload or {}).get(key) for key in ("queries", "patterns")}
    if partition is None or not any(checks.values()):
        return None
    from anonset.evaluation import pattern_survival, query_accuracy

    out: dict[str, Any] = {}
    q = checks["queries"]
    if q:
        accuracy = query_accuracy(dataset, partition, n_queries=q["count"], dimension=q["dimension"],
                                  selectivity=q["selectivity"], seed=q["seed"], threshold=q["threshold"])
        out["queries"] = {**accuracy.summary(), "share_above": accuracy.share_above, "dimension": q["dimension"],
                          "selectivity": q["selectivity"], "threshold": q["threshold"]}
    p = checks["patterns"]
    if p:
        survival = pattern_survival(dataset, partition, p["target"], task=p["task"], test_fraction=p["test_fraction"],
                                    depth=p["depth"], seed=p["seed"])
        out["patterns"] = {**survival.summary(), "target": p["target"]}
    return out


def _suppressed_rows(released: pd.DataFrame, quasi: tuple[str, ...]) -> NDArray[np.bool_]:
    """Rows whose released quasi-identifiers are all ``*``."""
    mask = np.ones(len(released), dtype=np.bool_)
    for q in quasi:
        column = released[q]
        if isinstance(column.dtype, pd.CategoricalDtype):
            star = np.asarray(column.cat.categories.astype(str) == SUPPRESSED)
            codes = column.cat.codes.to_numpy()
            mask &= np.where(codes >= 0, star[np.maximum(codes, 0)], False)
        else:
            mask &= column.astype(str).to_numpy() == SUPPRESSED
    return mask


def _levels(summary: Mapping[str, Any] | None, dataset: Dataset, released: pd.DataFrame,
            suppressed: NDArray[np.bool_] | None) -> dict[str, int] | None:
    """The full-domain node of the release: from the summary, else the one its values show (or None)."""
    if summary is not None:
        levels = summary.get("levels")
        return None if levels is None else {str(q): int(v) for q, v in levels.items()}
    if suppressed is None:
        return None
    found = {}
    kept = ~suppressed
    for q in dataset.quasi:
        h = dataset.hierarchy(q)
        if h is None:
            return None
        codes = dataset.encoded[q].row_codes()[kept]
        written = released[q].astype(str).to_numpy()[kept]
        for level in range(h.n_levels):
            expected = h.labels[level].astype(str)[h.maps[level][codes]]
            if np.array_equal(expected, written):
                found[q] = level
                break
        else:
            return None
    return found


def _partition(dataset: Dataset, released: pd.DataFrame, suppressed: NDArray[np.bool_] | None,
               levels: Mapping[str, int] | None) -> Partition:
    """The partition the released values show: their classes, each generalized as released."""
    row_class = classes_of_table(released, dataset.quasi)
    if suppressed is not None and suppressed.any():
        row_class = np.where(suppressed, -1, row_class)
        kept = np.unique(row_class[row_class >= 0])
        renumber = np.full(int(row_class.max()) + 1, -1, dtype=np.int64)
        renumber[kept] = np.arange(len(kept))
        row_class = np.where(row_class >= 0, renumber[np.maximum(row_class, 0)], -1)
    if levels is None:
        return partition_of_assignment(dataset, row_class)
    sizes = np.bincount(row_class[row_class >= 0]).astype(np.int64)
    first = np.full(len(sizes), -1, dtype=np.int64)
    rows = np.flatnonzero(row_class >= 0)
    first[row_class[rows[::-1]]] = rows[::-1]
    values = {}
    for q in dataset.quasi:
        h = dataset.require_hierarchy(q)
        level = int(levels[q])
        codes = h.maps[level][dataset.encoded[q].row_codes()[first]]
        values[q] = HierarchyNodes(np.full(len(sizes), level, dtype=np.int16), codes.astype(np.int32))
    return Partition(values=values, sizes=sizes, n_suppressed=int((row_class < 0).sum()), row_class=row_class)


def _metrics(summary: Mapping[str, Any] | None, dataset: Dataset, requirements: Requirements,
             partition: Partition | None) -> dict[str, float | None]:
    if summary is not None:
        return dict(summary.get("metrics", {}))
    if partition is None:
        return {}
    return {m.name: float(m.score(partition, dataset)) for m in reported_metrics(dataset, requirements.k)}


def _run_section(summary: Mapping[str, Any] | None, run: Mapping[str, Any] | None, method: str,
                 dataset: Dataset) -> dict[str, Any]:
    provenance = dict((summary or {}).get("provenance", {}))
    out: dict[str, Any] = {
        "method": method, "engine": (summary or {}).get("engine"), "seed": provenance.get("seed"),
        "method_options": provenance.get("method_options"), "metric": provenance.get("metric"),
        "source": dataset.source, "records": dataset.n_rows,
        "quasi_identifiers": list(dataset.quasi),
        "sensitive": [c for c in dataset.columns if dataset.specs[c].role is Role.SENSITIVE],
        "dropped_identifiers": [c for c in dataset.columns if dataset.specs[c].role is Role.IDENTIFIER],
        "released_unchanged": [c for c in dataset.columns
                               if dataset.specs[c].role not in (Role.IDENTIFIER, Role.QUASI)],
        "versions": {k: provenance[k] for k in ("anonset", "python", "numpy", "pandas") if k in provenance},
        "seconds": (summary or {}).get("seconds"), "stage_seconds": (summary or {}).get("stage_seconds"),
    }
    out.update(dict(run or {}))
    return out


def _headline(dataset: Dataset, classes: int, smallest: int, suppressed: int, sizes: NDArray[np.int64],
              after: Mapping[str, Any] | None, requirements: Requirements) -> list[str]:
    """Three sentences a newcomer can repeat: what was released, how safe it is, what it cost."""
    released = dataset.n_rows - suppressed
    quasi = ", ".join(dataset.quasi)
    lines = [f"{released:,} of {dataset.n_rows:,} records are released, in {classes:,} groups of records that"
             f" look the same on {quasi}; {suppressed:,} records ({suppressed / max(dataset.n_rows, 1):.1%}) were"
             " withheld (suppressed)."]
    if after is not None and len(sizes):
        lines.append(f"Someone who knows a person's {quasi} can narrow that person down to a group of at least"
                     f" {smallest:,} records: a chance of at most {after['highest_risk']:.1%} of picking the right"
                     f" record, {after['average_risk']:.1%} on average. The release meets {requirements.describe()}.")
    return lines


def _guarantees(requirements: Requirements, verification: VerificationReport, budget: int,
                n_rows: int) -> list[dict[str, Any]]:
    """Each model and the suppression budget, as the re-check of the released values found them."""
    out = [{"requirement": m.describe(), "holds": m.describe() not in verification.violated,
            "detail": (f"smallest group {verification.min_class_size:,} records"
                       if type(m).__name__ == "KAnonymity" else f"checked in all {verification.classes:,} groups")}
           for m in requirements.models]
    out.append({"requirement": f"at most {requirements.max_suppression:.2%} of records suppressed ({budget:,} of"
                               f" {n_rows:,})",
                "holds": verification.suppressed_rows <= budget,
                "detail": f"{verification.suppressed_rows:,} suppressed"})
    return out


def _class_section(sizes: NDArray[np.int64], k: int) -> dict[str, Any]:
    """Class-size statistics and a histogram (classes and records per size band)."""
    if not len(sizes):
        return {"count": 0, "bands": []}
    edges = sorted({1, 2, 3, k, k + 1, 2 * k, 5 * k, 10 * k, 20 * k, 50 * k, 100 * k, int(sizes.max()) + 1})
    edges = [e for e in edges if e >= 1]
    bands = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        mask = (sizes >= lo) & (sizes < hi)
        if not mask.any() and lo > int(sizes.max()):
            continue
        label = str(lo) if hi == lo + 1 else f"{lo}–{hi - 1}"
        bands.append({"label": label, "classes": int(mask.sum()), "records": int(sizes[mask].sum())})
    while bands and bands[0]["classes"] == 0:
        bands.pop(0)
    return {"count": int(len(sizes)), "smallest": int(sizes.min()), "largest": int(sizes.max()),
            "median": float(np.median(sizes)), "mean": float(sizes.mean()), "bands": bands}


def _method_section(facts: Mapping[str, Any], family: str | None) -> dict[str, Any]:
    """The method's own record: search facts, the success list (top 10) or the front."""
    out: dict[str, Any] = {"family": family, "search": facts.get("search", {})}
    levels = facts.get("levels")
    if levels:
        out["levels"] = dict(levels)
    if facts.get("success_list"):
        out["success_list"] = list(facts["success_list"])[:10]
        out["success_list_length"] = len(facts["success_list"])
    if facts.get("front"):
        out["front"] = list(facts["front"])
    return out

