"""The release report's figures, checked against independent computations on the released table.

Every registered method gets a report; its classes, suppressed records, smallest class and risk
are recomputed here with pandas from the released values (and k-anonymity by pycanon), and the
page must hold a drawn chart for each distribution.  The suppression breakdown must not list a
group smaller than k, and a finer node the report says is blocked must really be blocked.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from anonset.anonymizer import Anonymizer
from anonset.core.dataset import Dataset
from anonset.datasets.synthetic import patient_register, patient_register_attributes
from anonset.methods import registry
from anonset.privacy import EntropyLDiversity, KAnonymity, Requirements
from anonset.release.release import SUPPRESSED
from anonset.report.contents import build_report
from anonset.report.html import render_html
from support import registered

K = 4
ROWS = 600


def _dataset() -> Dataset:
    table = patient_register(ROWS, seed=3)
    return Dataset(table, patient_register_attributes(table), source="register")


def _release(method: str, dataset: Dataset, requirements: Requirements):
    # a front's member is the least-loss one meeting the floor privacy.k (no pick)
    model = Anonymizer({}, requirements, method=method, seed=0)
    return model.fit_transform(dataset)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.counts[tag] = self.counts.get(tag, 0) + 1


def _independent(released: pd.DataFrame, quasi: tuple[str, ...]) -> tuple[np.ndarray, int]:
    """Sizes of the released classes (all-* records left out) and the all-* records, by pandas."""
    values = released[list(quasi)].astype(str)
    star = (values == SUPPRESSED).all(axis=1)
    sizes = values[~star].groupby(list(quasi), dropna=False).size().to_numpy()
    return np.sort(sizes), int(star.sum())


@pytest.mark.parametrize("method", registered())
def test_report_of_every_method_agrees_with_the_released_table(method: str) -> None:
    from pycanon import anonymity

    dataset = _dataset()
    spec = registry.get(method)
    requirements = Requirements([KAnonymity(K)], max_suppression=0.02 if spec.suppresses else 0.0)
    release = _release(method, dataset, requirements)
    assert release.table is not None
    report = build_report(dataset, release.table, requirements, release.summary(), partition=release.partition,
                          family=spec.family.value, method_summary=spec.summary)
    sizes, stars = _independent(release.table, dataset.quasi)
    assert report["classes"]["count"] == len(sizes)
    assert report["classes"]["smallest"] == sizes.min() >= K
    assert sum(b["records"] for b in report["classes"]["bands"]) == sizes.sum()
    assert report["suppression"]["records"] == stars
    assert all(g["holds"] for g in report["guarantees"])
    assert report["risk"]["release"]["highest_risk"] == pytest.approx(1 / sizes.min())
    assert report["risk"]["release"]["average_risk"] == pytest.approx(len(sizes) / sizes.sum())
    kept = release.table[(release.table[list(dataset.quasi)].astype(str) != SUPPRESSED).any(axis=1)]
    assert anonymity.k_anonymity(kept.astype(str), list(dataset.quasi)) >= K
    for section in report["attributes"]:
        assert sum(b["records"] for b in section["after"]) == len(release.table)
        assert sum(b["records"] for b in section["before"]) == dataset.n_rows
        assert section["loss"] is not None and 0.0 <= section["loss"] <= 1.0
    assert report["why"] and report["why"][0].startswith(f"Method: {method}")
    json.dumps(report)  # the JSON export holds plain values only
    tags = _Tags()
    tags.feed(render_html(report))
    # two distributions per quasi-identifier, two class-size charts, the risk chart (and a front's plots)
    assert tags.counts["svg"] >= 2 * len(dataset.quasi) + 3
    assert tags.counts.get("script", 0) == 0 and tags.counts.get("link", 0) == 0 and tags.counts.get("img", 0) == 0


def test_suppression_breakdown_discloses_no_small_group() -> None:
    dataset = _dataset()
    requirements = Requirements([KAnonymity(K), EntropyLDiversity("diagnosis", 2)], max_suppression=0.1)
    release = _release("optimal", dataset, requirements)
    assert release.table is not None
    report = build_report(dataset, release.table, requirements, release.summary(), partition=release.partition)
    breakdown = report["suppression"]["breakdown"]
    assert release.suppressed_rows > 0 and breakdown is not None
    assert all(c["records"] >= K for c in breakdown["combinations"])
    listed = sum(c["records"] for c in breakdown["combinations"])
    assert listed + breakdown["records_in_small_combinations"] == release.suppressed_rows
    # the listed combinations are the suppressed records' values at the released levels, counted by hand
    levels = release.levels
    assert levels is not None
    suppressed = (release.table[list(dataset.quasi)].astype(str) == SUPPRESSED).all(axis=1).to_numpy()
    shown = {}
    for q in dataset.quasi:
        h = dataset.require_hierarchy(q)
        codes = dataset.encoded[q].row_codes()[suppressed]
        shown[q] = h.labels[levels[q]][h.maps[levels[q]][codes]]
    counts = pd.DataFrame(shown).astype(str).value_counts()
    for combination in breakdown["combinations"]:
        key = tuple(str(combination["values"][q]) for q in dataset.quasi)
        assert counts[key] == combination["records"]


def test_blocked_neighbours_are_really_blocked() -> None:
    """A finer node the report says k-anonymity blocks needs more suppression than the budget, counted by hand."""
    dataset = _dataset()
    requirements = Requirements([KAnonymity(K)], max_suppression=0.02)
    release = _release("optimal", dataset, requirements)
    assert release.table is not None and release.levels is not None
    report = build_report(dataset, release.table, requirements, release.summary(), partition=release.partition,
                          family="full-domain")
    budget = requirements.budget_rows(dataset.n_rows)
    blocked = [a for a in report["alternatives"] if a["direction"] == "finer" and not a["feasible"]]
    assert blocked, "the optimum of a monotone search has a blocked finer neighbour"
    for a in blocked:
        levels = dict(release.levels)
        levels[a["attribute"]] = a["level"]
        generalized = pd.DataFrame({
            q: dataset.require_hierarchy(q).maps[levels[q]][dataset.encoded[q].row_codes()] for q in dataset.quasi})
        sizes = generalized.value_counts()
        small = int(sizes[sizes < K].sum())
        assert small == a["suppressed_rows"] > budget
        assert a["blocked_by"] == [f"{K}-anonymity"]
    for a in report["alternatives"]:
        if a["direction"] == "coarser":
            assert a["feasible"] and a["value"] >= release.metrics["loss"] - 1e-12


def test_report_without_summary_recomputes_the_runs_metrics() -> None:
    """A full-domain release read back as text: the levels are found and every metric matches the run's."""
    dataset = _dataset()
    requirements = Requirements([KAnonymity(K)], max_suppression=0.02)
    release = _release("optimal", dataset, requirements)
    assert release.table is not None
    as_read = release.table.astype(str).astype(object)
    report = build_report(dataset, as_read, requirements, None)
    assert [a["level"] for a in report["attributes"]] == [release.levels[q] for q in dataset.quasi]
    found = {m["name"]: m["value"] for m in report["utility"]}
    for name, value in release.metrics.items():
        assert found[name] == pytest.approx(value, rel=1e-9), name


def test_a_guarantee_the_release_breaks_is_reported_violated() -> None:
    """A 4-anonymous release reported against 8-anonymity: that guarantee fails, the budget still holds."""
    dataset = _dataset()
    release = _release("optimal", dataset, Requirements([KAnonymity(K)], max_suppression=0.02))
    assert release.table is not None and release.min_class_size < 8
    stricter = Requirements([KAnonymity(8)], max_suppression=0.5)
    report = build_report(dataset, release.table, stricter, None)
    holds = {g["requirement"]: g["holds"] for g in report["guarantees"]}
    assert holds["8-anonymity"] is False
    assert [v for k, v in holds.items() if k != "8-anonymity"] == [True]
