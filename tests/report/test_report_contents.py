"""The release report's figures, checked against independent computations on the released table.

Every registered method gets a report; its classes, suppressed records, smallest class and risk
are recomputed here with pandas from the released values (and k-anonymity by pycanon), and the
page must hold a drawn chart for each distribution.  The suppression breakdown must not list a
group smaller than k, and a finer node the report says is blocked must really be blocked.

The report must never disclose what the release hides (no value, range or example of fewer than
max(k, 2) records), never contradict its own re-check (a tampered release is reported violated
first), never assume that released row i is input record i (a shuffled release gets the same
figures or none), and never trust a summary over the release (a disagreeing one is refused).
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
from anonset.recheck.columns import SUPPRESSED
from anonset.report.contents import build_report
from anonset.report.html import render_html
from support import matched_by_hand, registered

K = 4
ROWS = 600


def _dataset() -> Dataset:
    table = patient_register(ROWS, seed=3)
    return Dataset(table, patient_register_attributes(table), source="register")


def _release(method: str, dataset: Dataset, requirements: Requirements):
    # a front's member is the least-loss one meeting the floor privacy.k (no pick)
    model = Anonymizer({}, requirements, method=method, seed=0)
    return model.fit(dataset).release_


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
    assert sum(b["records"] for b in report["classes"]["bands"]) == sizes.sum()
    assert report["suppression"]["records"] == stars
    assert all(g["holds"] for g in report["guarantees"])
    kept = release.table[(release.table[list(dataset.quasi)].astype(str) != SUPPRESSED).any(axis=1)]
    if spec.blanks_match_any:  # a blank matches any value: each record is judged by the records it matches
        matched = matched_by_hand(kept, dataset.quasi)
        assert report["classes"]["smallest"] == sizes.min() and matched.min() >= K
        assert report["risk"]["release"]["highest_risk"] == pytest.approx(1 / matched.min())
        assert report["risk"]["release"]["average_risk"] == pytest.approx(np.mean(1 / matched))
        assert f"at least {matched.min()} records" in report["classes"]["blanks_note"]
    else:
        assert report["classes"]["smallest"] == sizes.min() >= K
        assert report["risk"]["release"]["highest_risk"] == pytest.approx(1 / sizes.min())
        assert report["risk"]["release"]["average_risk"] == pytest.approx(len(sizes) / sizes.sum())
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
    assert [v for k, v in holds.items() if k.startswith("at most")] == [True]  # the budget still holds
    group = "the suppressed records, released as one group, disclose no sensitive value"
    if release.suppressed_rows:  # judged against 8-anonymity, fewer than 8 suppressed records showing values break it
        shown = release.table[(release.table[list(dataset.quasi)] == "*").all(axis=1)]
        assert holds[group] is not (len(shown) < 8 and (shown[list(dataset.sensitive)] != "*").any().any())


# ---------------------------------------------------------------- what the report must never disclose
#
# A town of one record ("Tiny Village of Xyz", alone in "Xyz County"), two towns of three records and an age of
# 104 held by one record: the release suppresses or generalizes them all away, so the report must name none.

RARE_TOWN, RARE_COUNTY = "Tiny Village of Xyz", "Xyz County"
FEW_TOWNS = ("Springfield", "Peoria")  # three records each: fewer than k = 5
TOWNS = [[RARE_TOWN, RARE_COUNTY, "*"], ["Boston", "Massachusetts", "*"], ["Springfield", "Massachusetts", "*"],
         ["Chicago", "Illinois", "*"], ["Peoria", "Illinois", "*"]]


def _rare_table(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_common = 200
    towns = (["Boston"] * (n_common // 2) + ["Chicago"] * (n_common // 2) + ["Springfield"] * 3 + ["Peoria"] * 3
             + [RARE_TOWN])
    ages = [str(a) for a in rng.integers(20, 80, size=len(towns) - 1)] + ["41"]
    ages[0] = "104"  # a Boston record of an age nobody else has
    diagnosis = rng.choice(["flu", "asthma", "diabetes"], size=len(towns)).tolist()
    return pd.DataFrame({"age": ages, "town": towns, "diagnosis": diagnosis})


def _rare_dataset(table: pd.DataFrame) -> Dataset:
    from anonset.core.dataset import AttributeSpec, AttributeType, Role
    from anonset.core.hierarchy import Hierarchy
    from anonset.hierarchy import interval_hierarchy

    ages = sorted(set(table["age"]), key=int)
    return Dataset(table, {
        "age": AttributeSpec(role=Role.QUASI, type=AttributeType.NUMERIC,
                             hierarchy=interval_hierarchy("age", ages, widths=[10, 20], start=0, top=120)),
        "town": AttributeSpec(role=Role.QUASI, hierarchy=Hierarchy.from_rows("town", TOWNS, source="towns")),
        "diagnosis": AttributeSpec(role=Role.SENSITIVE),
    }, source="towns.csv")


def _bars_respect_the_floor(report: dict, floor: int) -> None:
    """Every bar of every distribution names a value of at least ``floor`` records, or is a counted-together bar."""
    for section in report["attributes"]:
        for side in ("before", "after"):
            for bar in section[side]:
                folded = bar["label"].startswith("other:") or bar["label"].startswith(SUPPRESSED)
                assert folded or bar["records"] >= floor, (section["name"], side, bar)


def test_a_rare_value_appears_nowhere_in_the_report() -> None:
    """The town of one record, its county and the towns of three are in no chart, example or table of HTML or JSON."""
    table = _rare_table()
    dataset = _rare_dataset(table)
    requirements = Requirements([KAnonymity(5)], max_suppression=0.02)
    release = _release("optimal", dataset, requirements)
    assert release.table is not None and release.levels is not None
    assert release.levels["town"] == 1, "the towns of three records need the county level"
    report = build_report(dataset, release.table, requirements, release.summary(), partition=release.partition,
                          family="full-domain")
    assert report["display_floor"] == 5
    page, data = render_html(report), json.dumps(report)
    for hidden in (RARE_TOWN, RARE_COUNTY, *FEW_TOWNS):
        assert hidden not in page and hidden not in data, hidden
    _bars_respect_the_floor(report, 5)
    town = next(a for a in report["attributes"] if a["name"] == "town")
    folded = next(b for b in town["before"] if b["label"].startswith("other:"))
    assert folded == {"label": "other: 3 values, < 5 records each", "records": 7, "folded": 3}
    assert sum(b["records"] for b in town["before"]) == len(table)
    # the generalization's examples are labels the release shows on at least k records
    assert town["generalization"].endswith("e.g. Massachusetts, Illinois") or \
        town["generalization"].endswith("e.g. Illinois, Massachusetts"), town["generalization"]


def test_numeric_ranges_of_fewer_than_the_floor_are_folded() -> None:
    """The age of 104 (one record, far above the others) gets no range of its own: ranges stop where k records do."""
    table = _rare_table()
    dataset = _rare_dataset(table)
    requirements = Requirements([KAnonymity(5)], max_suppression=0.02)
    release = _release("optimal", dataset, requirements)
    assert release.table is not None
    report = build_report(dataset, release.table, requirements, release.summary(), partition=release.partition)
    age = next(a for a in report["attributes"] if a["name"] == "age")
    labels = [b["label"] for b in age["before"]]
    assert sum(b["records"] for b in age["before"]) == len(table)
    # closed ranges end below 80; the oldest records are in the open range "≥ ..." that holds at least k of them
    assert all(int(label.split("-")[1]) < 80 for label in labels if "-" in label), labels
    assert labels[0].startswith("≤ ") and labels[-1].startswith("≥ ") and int(labels[-1][2:]) < 80, labels
    _bars_respect_the_floor(report, 5)
    # many small ranges in between are one bar; a floor of 2 holds without k-anonymity too
    numbers = np.concatenate([np.arange(0, 100, dtype=np.float64), np.full(50, 500.0), [1000.0]])
    from anonset.report.attributes import value_counts
    from anonset.report.floor import display_floor

    floor = display_floor(Requirements([EntropyLDiversity("diagnosis", 2)], 0.0))
    assert floor == 2
    bars = value_counts(pd.Series(numbers.astype(str)), 30, numeric=numbers)
    assert sum(b["records"] for b in bars) == len(numbers)
    assert all(b["records"] >= 30 or b["label"].startswith("other:") for b in bars), bars
    assert not any("1000" in b["label"] for b in bars), bars


def test_a_tampered_release_is_reported_violated_first() -> None:
    """A released class edited below k: the headline's first sentence says so and no sentence says it holds."""
    dataset = _dataset()
    requirements = Requirements([KAnonymity(K)], max_suppression=0.0)
    release = _release("k-member", dataset, requirements)
    assert release.table is not None
    tampered = release.table.astype(str).astype(object)
    kept = tampered.index[(tampered[list(dataset.quasi)] != SUPPRESSED).any(axis=1)]
    moved = kept[: K - 1]  # K - 1 records now form a class of their own
    tampered.loc[moved, list(dataset.quasi)] = tampered.loc[[kept[0]] * (K - 1), list(dataset.quasi)].to_numpy()
    tampered.loc[moved, "sex"] = "X"
    report = build_report(dataset, tampered, requirements, None)
    assert report["headline"][0].startswith("This release does NOT meet the requirements: 4-anonymity is violated")
    assert "smallest group 3 records" in report["headline"][0]
    assert not any("meets" in line for line in report["headline"])
    assert not any("each meet" in p for p in report["why"])
    assert [g["holds"] for g in report["guarantees"]] == [False, True]
    assert '<p class="bad">This release does NOT meet' in render_html(report)


def _as_written(table: pd.DataFrame) -> pd.DataFrame:
    """A release as `anonset report` reads it back: every value a string."""
    return table.astype(str).astype(object)


@pytest.mark.parametrize("method", ["optimal", "mondrian"])
def test_a_shuffled_release_gets_the_same_figures_or_none(method: str) -> None:
    """Rows in another order: the breakdown is left out with the reason, loss and metrics are those of the release."""
    dataset = _dataset()
    requirements = Requirements([KAnonymity(K), EntropyLDiversity("diagnosis", 2)],
                                max_suppression=0.1 if registry.get(method).suppresses else 0.0)
    release = _release(method, dataset, requirements)
    assert release.table is not None
    written = _as_written(release.table)
    shuffled = written.sample(frac=1.0, random_state=7).reset_index(drop=True)
    straight = build_report(dataset, written, requirements, None)
    moved = build_report(dataset, shuffled, requirements, None)
    assert straight["alignment"]["aligned"] and not moved["alignment"]["aligned"]
    assert "not in the input's order" in moved["alignment"]["note"]
    if method == "optimal":
        assert release.suppressed_rows > 0 and straight["suppression"]["breakdown"] is not None
    assert moved["suppression"]["breakdown"] in (None, straight["suppression"]["breakdown"])
    if moved["suppression"]["breakdown"] is None and release.suppressed_rows:
        assert "which input records were suppressed is not known" in moved["suppression"]["breakdown_omitted"]
    for a, b in zip(straight["attributes"], moved["attributes"], strict=True):
        assert b["level"] in (None, a["level"]) and (b["loss"] is None or b["loss"] == pytest.approx(a["loss"]))
    ours = {m["name"]: m["value"] for m in moved["utility"]}
    for m in straight["utility"]:
        assert ours.get(m["name"]) is None or ours[m["name"]] == pytest.approx(m["value"]), m["name"]
        assert ours.get(m["name"]) is not None or m["name"] in moved["utility_omitted"], m["name"]
    # the method's own figures, from the run, are what the shuffled release gives too
    for name, value in release.metrics.items():
        assert ours.get(name) is None or ours[name] == pytest.approx(value), name


@pytest.mark.parametrize("method", registered())
def test_a_written_release_gives_the_runs_metrics(method: str) -> None:
    """Read back as text, without its summary, every method's release is aligned and scores as the run scored it."""
    dataset = _dataset()
    spec = registry.get(method)
    requirements = Requirements([KAnonymity(K)], max_suppression=0.02 if spec.suppresses else 0.0)
    release = _release(method, dataset, requirements)
    assert release.table is not None
    # a method whose '*' are blanks matching any value says so, as `anonset report` does from the config's method
    report = build_report(dataset, _as_written(release.table), requirements, None,
                          blanks_match_any=spec.blanks_match_any)
    if method == "microaggregation":  # a group's mean is no generalization of its records' values: said, not scored
        assert not report["alignment"]["aligned"] and "not a generalization" in report["alignment"]["note"]
        return
    assert report["alignment"]["aligned"], report["alignment"]
    found = {m["name"]: m["value"] for m in report["utility"]}
    for name, value in release.metrics.items():
        if name != "research_value":  # what the search scored, not a figure of the release
            assert found[name] == pytest.approx(value, rel=1e-9), name


def test_a_summary_that_disagrees_with_the_release_is_refused() -> None:
    """Levels edited, or a class count the re-check does not find: a one-line DataError naming the disagreement."""
    from anonset.errors import DataError

    dataset = _dataset()
    requirements = Requirements([KAnonymity(K)], max_suppression=0.02)
    release = _release("optimal", dataset, requirements)
    assert release.table is not None and release.levels is not None
    written = _as_written(release.table)
    summary = json.loads(json.dumps(release.summary()))
    assert build_report(dataset, written, requirements, summary)["attributes"]
    age = summary["levels"]["age"]
    edited = {**summary, "levels": {**summary["levels"], "age": 0 if age else 1}}
    with pytest.raises(DataError, match=r"^run\.json: it says 'age' is at level \d but the released values of 'age'"
                                        r" in r\.csv are level \d of \d; give the summary") as caught:
        build_report(dataset, written, requirements, edited, where="r.csv", summary_where="run.json")
    assert "\n" not in str(caught.value)
    with pytest.raises(DataError, match="it says 1 classes but r.csv has"):
        build_report(dataset, written, requirements, {**summary, "classes": 1}, where="r.csv",
                     summary_where="run.json")
    with pytest.raises(DataError, match="records in the input but the config's input has"):
        build_report(dataset, written, requirements, {**summary, "rows": 5}, where="r.csv")


def test_a_table_with_sampling_weights_gets_the_survey_measures_before_and_after() -> None:
    """With a weight column the report measures the survey risk of the input and of the release; k-anonymity
    of the release means no released record's key is shared by fewer than k records (pandas counts them here:
    no missing value in the release, so fk is the class size)."""
    table = patient_register(ROWS, seed=3)
    table["weight"] = np.random.default_rng(0).uniform(1, 200, ROWS).round(2).astype(str)
    dataset = Dataset(table, {**patient_register_attributes(table), "weight": {"role": "weight"}}, source="register")
    requirements = Requirements([KAnonymity(K)], max_suppression=0.02)
    release = _release("optimal", dataset, requirements)
    assert release.table is not None and (release.table["weight"] == table["weight"]).all()  # released as it is
    report = build_report(dataset, release.table, requirements, release.summary(), partition=release.partition)
    survey = report["risk"]["survey"]
    sizes, _ = _independent(release.table, dataset.quasi)
    kept = int(sizes.sum())
    after = survey["release"]
    assert after["k_anonymity_violations"] == {"2": 0, "3": 0, "5": int(sizes[sizes < 5].sum())}
    assert after["suda2"]["records_with_score"] == 0 and after["individual_risk"]["weighted"] is True
    assert after["individual_risk"]["max"] <= 1 / K + 1e-12  # at most 1/fk, fk >= K
    assert after["global_risk"]["share"] * kept == pytest.approx(after["global_risk"]["expected_reidentifications"])
    before = survey["input"]
    input_sizes = table[list(dataset.quasi)].astype(str).groupby(list(dataset.quasi)).size()
    assert before["k_anonymity_violations"]["2"] == int((input_sizes == 1).sum())  # no missing value in the input
    assert before["suda2"]["records_with_score"] >= before["k_anonymity_violations"]["2"]  # a unique has an MSU
    page = render_html(report)
    assert "Survey measures" in page and "expected re-identifications" in page


def test_a_table_without_weights_has_no_survey_section() -> None:
    dataset = _dataset()
    requirements = Requirements([KAnonymity(K)])
    release = _release("optimal", dataset, requirements)
    assert release.table is not None
    report = build_report(dataset, release.table, requirements, release.summary(), partition=release.partition)
    assert report["risk"]["survey"] is None and "Survey measures" not in render_html(report)


def test_the_sensitive_attribute_inside_the_groups_is_counted_from_the_release() -> None:
    """Counted again here with pandas: each released group's most frequent diagnosis and its share; groups of
    80% or more are homogeneous; only the release's groups of at least max(k, 2) records are listed."""
    dataset = _dataset()
    requirements = Requirements([KAnonymity(K)], max_suppression=0.02)
    release = _release("optimal", dataset, requirements)
    assert release.table is not None
    report = build_report(dataset, release.table, requirements, release.summary(), partition=release.partition)
    view = report["sensitive"]["diagnosis"]
    released = release.table
    kept = released[(released[list(dataset.quasi)].astype(str) != SUPPRESSED).any(axis=1)]
    groups = kept.groupby(list(dataset.quasi))["diagnosis"]
    top = groups.agg(lambda v: v.value_counts().iloc[0] / len(v))
    sizes = groups.size()
    assert view["release"]["highest_share"] == pytest.approx(top.max())
    assert view["release"]["homogeneous"]["classes"] == int((top >= 0.8).sum())
    assert view["release"]["homogeneous"]["records"] == int(sizes[top >= 0.8].sum())
    assert all(c["records"] >= max(K, 2) and c["share"] >= 0.8 for c in view["release"]["listed"])
    assert view["input"]["listed"] == []  # the input's values are what the release hides: counted, never listed
    # the input's side, counted here from the table itself
    original = dataset.table.groupby(list(dataset.quasi), dropna=False)["diagnosis"]
    top_before = original.agg(lambda v: v.value_counts(dropna=False).iloc[0] / len(v))
    assert view["input"]["highest_share"] == pytest.approx(top_before.max())
    assert view["input"]["homogeneous"]["classes"] == int((top_before >= 0.8).sum())
    assert view["input"]["classes"] == len(top_before)
    assert "Sensitive attributes inside the groups" in render_html(report)


def _distinction_separation(values: pd.DataFrame) -> tuple[float, float]:
    """By pandas: groups of identical rows per record, and the share of pairs of rows that differ."""
    sizes = values.astype(str).groupby(list(values.columns)).size().to_numpy(dtype=float)
    n = float(sizes.sum())
    return len(sizes) / n, 1.0 - float(np.sum(sizes * (sizes - 1))) / (n * (n - 1))


@pytest.mark.parametrize("method", ["optimal", "mondrian"])
def test_each_quasi_identifiers_distinction_and_separation_are_counted_before_and_after(method: str) -> None:
    dataset = _dataset()
    requirements = Requirements([KAnonymity(K)], max_suppression=0.02 if method == "optimal" else 0.0)
    release = _release(method, dataset, requirements)
    assert release.table is not None
    report = build_report(dataset, release.table, requirements, release.summary(), partition=release.partition)
    rows = report["risk"]["quasi_identifiers"]
    quasi = list(dataset.quasi)
    assert [r["attributes"] for r in rows[:-1]] == sorted(([q] for q in quasi),
                                                          key=lambda a: -next(r["input"]["separation"] for r in rows
                                                                              if r["attributes"] == a))
    assert rows[-1]["attributes"] == quasi
    released = release.table
    kept = released[~(released[quasi].astype(str) == SUPPRESSED).all(axis=1)]
    for row in rows:
        columns = row["attributes"]
        before = _distinction_separation(dataset.table[columns])
        after = _distinction_separation(kept[columns])
        assert (row["input"]["distinction"], row["input"]["separation"]) == pytest.approx(before, rel=1e-12)
        assert (row["release"]["distinction"], row["release"]["separation"]) == pytest.approx(after, rel=1e-12)
    assert "Which quasi-identifiers tell records apart" in render_html(report)


def test_a_sensitive_value_is_escaped_in_the_page() -> None:
    table = pd.DataFrame({"zip": ["1"] * 6 + ["2"] * 6, "diagnosis": ["<script>alert(1)</script>"] * 6 + ["b"] * 6})
    dataset = Dataset(table, {"zip": {"role": "quasi"}, "diagnosis": {"role": "sensitive"}})
    model = Anonymizer({}, Requirements([KAnonymity(3)]), method="optimal").fit(dataset)
    released = model.release_.table
    assert released is not None
    report = build_report(dataset, released, Requirements([KAnonymity(3)]), model.release_.summary(),
                          partition=model.release_.partition)
    assert report["sensitive"]["diagnosis"]["release"]["listed"]  # two groups of six, each one value
    page = render_html(report)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_keeping_an_attribute_finer_is_the_best_of_that_part_of_the_lattice() -> None:
    """Each entry against every node of its part of the lattice, judged and scored one by one (no search):
    the entry's value is the smallest loss of a feasible node there; an infeasible entry has none."""
    import itertools

    from anonset.core.partition import Partition
    from anonset.engine.numpy.engine import NumpyEngine
    from anonset.metrics import make_metric

    dataset = _dataset()
    requirements = Requirements([KAnonymity(K)], max_suppression=0.02)
    release = _release("optimal", dataset, requirements)
    assert release.table is not None and release.levels is not None
    report = build_report(dataset, release.table, requirements, release.summary(), partition=release.partition)
    entries = report["keeping"]
    assert entries and "Keeping an attribute finer" in render_html(report)
    engine = NumpyEngine(dataset, requirements.request)
    loss = make_metric("loss", k=K)
    tops = [h.max_level for h in dataset.hierarchies]
    for entry in entries:
        j = dataset.quasi.index(entry["attribute"])
        assert entry["at_most"] < release.levels[entry["attribute"]]
        ranges = [range(entry["at_most"] + 1) if i == j else range(t + 1) for i, t in enumerate(tops)]
        best = None
        for node in itertools.product(*ranges):
            stats = engine.class_stats(node)
            verdict = requirements.judge(stats, dataset.n_rows)
            if verdict.feasible:
                value = loss.score(Partition.from_node(dataset.quasi, stats, verdict.kept), dataset)
                best = value if best is None else min(best, value)
        if entry["feasible"]:
            assert entry["value"] == pytest.approx(best, rel=1e-9)
            assert entry["levels"][entry["attribute"]] <= entry["at_most"]
        else:
            assert best is None
