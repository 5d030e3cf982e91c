"""Releases of the same table side by side: privacy, utility and query accuracy, the best in each row marked.

Every figure compares like with like.  The utility metrics of every release
are re-scored here, from the release's partition, under one definition: that
of the first config (its attribute weights, its k for aecs, its research-value
settings, its hierarchies), whatever weights or settings the other configs
optimized with; a release's own summary figures are not trusted, since they
may be computed under other weights.  A release of a config with another
hierarchy is scored through the first config's hierarchy (a released node
becomes the node of that hierarchy with the same values).  A metric that
cannot be computed under that definition for some release (research value of
a partitioning method, a released value that is no node of the first
config's hierarchy) is ``n/a`` with the reason, never a figure of another
definition.  The query error is one shared workload of random COUNT queries,
drawn once from the first config's dataset and answered on every release in
the first config's terms.

:func:`comparison_rows` turns the releases into rows: comparable figures
(each with its direction, so the best can be marked) and rows that say what
each config asked and did (requirements, whether the release was verified,
each quasi-identifier's generalization, its own weights where they differ,
the seconds), which are never marked.  The command ``anonset compare``
prints them, writes them as JSON and as an HTML page
(:func:`render_comparison_html`).  A comparison writes no release.

The page shows figures and generalization levels only: no raw value of the
input, so no small group of records can be read off it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset
from anonset.core.partition import HierarchyNodes, Intervals, Partition
from anonset.core.weights import quasi_weights
from anonset.errors import ConfigError
from anonset.metrics import reported_metrics
from anonset.metrics.class_metrics import AverageClassSize, ClassificationMetric, Discernibility
from anonset.metrics.descriptions import describe_metric
from anonset.metrics.research_value import ResearchValue
from anonset.report.attributes import level_text
from anonset.report.svg import Series, bar_chart

if TYPE_CHECKING:
    from anonset.core.hierarchy import Hierarchy
    from anonset.metrics.base import Metric
    from anonset.privacy.base import Requirements

__all__ = [
    "NO_RELEASE",
    "ComparedRelease",
    "MetricSettings",
    "cell_text",
    "comparison_rows",
    "metric_definition",
    "render_comparison_html",
    "requirements_text",
]

#: Said by ``anonset compare`` in its help, at the end of its terminal output and on its page.
NO_RELEASE = "compare writes no release: nothing is released; run `anonset anonymize CONFIG` to write one."

#: Metrics of the class structure alone: they read no hierarchy, so any release's partition scores under them.
_CLASS_METRICS = (Discernibility, AverageClassSize, ClassificationMetric)


@dataclass(frozen=True)
class MetricSettings:
    """A config's own metric definition: attribute weights, the k that aecs divides by, research-value settings.

    Attributes
    ----------
    weights : mapping of str to float, optional
        ``method.weights`` of the config (None: every quasi-identifier weighs 1).
    k : int
        The k of its k-anonymity (1 without one); aecs divides by it.
    research_value : ResearchValue, optional
        The research value the config defines (``metric: research_value`` or an rv-* method).
    """

    weights: Mapping[str, float] | None = None
    k: int = 1
    research_value: ResearchValue | None = None

    def metrics(self, dataset: Dataset) -> list[Metric]:
        """The metrics a release of ``dataset`` reports under these settings (research value when defined)."""
        out = reported_metrics(dataset, self.k, self.weights)
        if self.research_value is not None:
            out.append(self.research_value)
        return out

    def weights_of(self, quasi: tuple[str, ...]) -> dict[str, float]:
        """The weight of every quasi-identifier (1 when not named)."""
        return quasi_weights(quasi, self.weights, "the config", "method.weights")

    def weights_text(self, quasi: tuple[str, ...]) -> str:
        """``age 2, sex 1, zip 1``, or ``unweighted`` when every quasi-identifier weighs 1."""
        weights = self.weights_of(quasi)
        if all(w == 1.0 for w in weights.values()):
            return "unweighted"
        return ", ".join(f"{q} {w:g}" for q, w in weights.items())

    def research_value_text(self) -> str:
        """The research-value settings in words (``none`` when the config defines none)."""
        rv = self.research_value
        if rv is None:
            return "none"
        parts = ["weights auto" if isinstance(rv.weights, str)
                 else "weights " + ", ".join(f"{q} {float(w):g}" for q, w in rv.weights.items())]
        rules = sum(len(r) for r in rv.rules.values())
        if rules:
            parts.append(f"{rules} rule{'s' if rules > 1 else ''}")
        if rv.levels:
            parts.append("levels given for " + ", ".join(rv.levels))
        return "; ".join(parts)

    def research_value_key(self) -> tuple[object, ...] | None:
        """What the research value depends on besides the data (None when the config defines none)."""
        return None if self.research_value is None else self.research_value.content_key()


@dataclass(frozen=True, eq=False)
class ComparedRelease:
    """One config's release in a comparison.

    Attributes
    ----------
    label : str
        How the comparison names it (the config's file name without suffix).
    summary : mapping
        The release's JSON summary (:meth:`anonset.release.release.Release.summary`): counts, risk,
        verification and seconds are read from it; its utility metrics are not (they are re-scored).
    dataset : Dataset
        The dataset the config built of the table (its hierarchies).
    partition : Partition
        The release's classes and generalized values, re-scored under the shared definition.
    settings : MetricSettings
        The config's own metric settings.
    requirements : str
        The config's requirements in words (:func:`requirements_text`).
    warnings : tuple of str
        What the run warned about (the release's warnings and any other :class:`~anonset.errors.AnonsetWarning`).
    """

    label: str
    summary: Mapping[str, Any]
    dataset: Dataset
    partition: Partition
    settings: MetricSettings = field(default_factory=MetricSettings)
    requirements: str = ""
    warnings: tuple[str, ...] = ()


def requirements_text(requirements: Requirements, n_rows: int) -> str:
    """The privacy models and the suppression budget, e.g. ``5-anonymity; suppression budget 2% (24 records)``."""
    models = ", ".join(m.describe() for m in requirements.models)
    if not requirements.max_suppression:
        return f"{models}; no suppression allowed"
    return (f"{models}; suppression budget {100 * requirements.max_suppression:g}%"
            f" ({requirements.budget_rows(n_rows):,} records)")


def metric_definition(releases: Sequence[ComparedRelease]) -> dict[str, Any]:
    """The one metric definition every utility figure uses: the first config's settings, in words and as JSON.

    Returns
    -------
    dict
        ``config`` (the first config's label), ``weights`` (every quasi-identifier's), ``weighted``, ``k``
        (aecs), ``research_value`` (its settings in words, or None) and ``text``, the line the terminal,
        the JSON and the page show.
    """
    first = releases[0]
    quasi = first.dataset.quasi
    weights = first.settings.weights_text(quasi)
    if weights == "unweighted":
        text = f"utility metrics scored unweighted (every quasi-identifier weighs 1, as in {first.label})"
    else:
        text = f"utility metrics scored with the weights of {first.label}: {weights}"
    text += f"; aecs divided by k = {first.settings.k} of {first.label}"
    if first.settings.research_value is not None:
        text += f"; research_value with the settings of {first.label} ({first.settings.research_value_text()})"
    if any(not _same_hierarchy(first.dataset.hierarchy(q), r.dataset.hierarchy(q))
           for r in releases[1:] for q in quasi):
        text += f"; released values read through the hierarchies of {first.label}"
    if any(_settings_differ(first, r) for r in releases[1:]):
        text += "; the other configs' own settings are not used"
    return {
        "config": first.label, "weights": first.settings.weights_of(quasi), "weighted": weights != "unweighted",
        "k": first.settings.k,
        "research_value": (None if first.settings.research_value is None
                           else first.settings.research_value_text()),
        "text": text,
    }


def _settings_differ(first: ComparedRelease, other: ComparedRelease) -> bool:
    quasi = first.dataset.quasi
    return (other.settings.weights_of(quasi) != first.settings.weights_of(quasi)
            or other.settings.k != first.settings.k
            or other.settings.research_value_key() != first.settings.research_value_key())


def comparison_rows(releases: Sequence[ComparedRelease], threshold: float = 0.1,
                    queries: int = 0) -> list[dict[str, Any]]:
    """One row per figure or setting, every utility figure under the first config's definition.

    Parameters
    ----------
    releases : sequence of ComparedRelease
        The releases, the first one's config defining the metrics.
    threshold : float
        Relative error above which a query counts as badly answered.
    queries : int
        Random COUNT queries of one shared workload answered on each release (0: none).

    Returns
    -------
    list of dict
        Each row has ``name``, ``comparable`` (only comparable rows are ever
        marked), ``better`` (lower / higher / None), ``meaning``, ``values`` (a
        number or None for a figure, text for a setting), ``notes`` (per value:
        why it is n/a, else None) and ``best`` (indices of the marked values:
        the best known value when at least two are known).
    """
    rows: list[dict[str, Any]] = []
    first = releases[0]
    reference = first.dataset
    n = len(releases)

    def add(name: str, better: str | None, meaning: str, values: Sequence[float | None],
            notes: Sequence[str | None] | None = None) -> None:
        known = [v for v in values if v is not None]
        best: list[int] = []
        if better in ("lower", "higher") and len(known) > 1:  # a lone known value is compared with nothing
            target = min(known) if better == "lower" else max(known)
            best = [i for i, v in enumerate(values) if v is not None and v == target]
        rows.append({"name": name, "comparable": True, "better": better, "meaning": meaning, "values": list(values),
                     "notes": list(notes) if notes is not None else [None] * n, "best": best})

    def setting(name: str, meaning: str, values: Sequence[Any]) -> None:
        rows.append({"name": name, "comparable": False, "better": None, "meaning": meaning, "values": list(values),
                     "notes": [None] * n, "best": []})

    def summary_values(key: str) -> list[float | None]:
        return [r.summary.get(key) for r in releases]

    def risk_values(key: str) -> list[float | None]:
        return [((r.summary.get("risk") or {}).get("release") or {}).get(key) for r in releases]

    setting("requirements", "privacy models and suppression budget each config asked for",
            [r.requirements for r in releases])
    setting("verified", "the requirements re-checked from the released values alone",
            ["yes" if r.summary.get("verified") else "no" for r in releases])
    setting("warnings", "what each run warned about (listed under the table)",
            [f"{len(r.warnings)} warning{'s' if len(r.warnings) != 1 else ''}" if r.warnings else "none"
             for r in releases])
    for q in reference.quasi:
        setting(f"{q}: generalization", f"what each release did to {q} (levels of different hierarchies or"
                " methods do not compare)", [_generalization(r, q) for r in releases])
    add("suppressed records", "lower", "records released as * in every quasi-identifier",
        summary_values("suppressed_rows"))
    add("classes", "higher", "groups of records that look the same (more groups keep more detail)",
        summary_values("classes"))
    add("smallest class", "higher", "a record hides among at least this many", summary_values("min_class_size"))
    add("highest risk", "lower", "largest chance of picking out a known person's record (1 / class size)",
        risk_values("highest_risk"))
    add("average risk", "lower", "that chance averaged over the released records", risk_values("average_risk"))
    add("sample uniques", "lower", "share of released records alone in their class", risk_values("sample_uniques"))
    _settings_rows(releases, setting)
    shared = [_shared_partition(r, first) for r in releases]
    for metric in first.settings.metrics(reference):
        described = describe_metric(metric.name)
        better = described.better if described.better in ("lower", "higher") else None
        scored = [_score(metric, r, first, s) for r, s in zip(releases, shared, strict=True)]
        meaning = described.meaning
        if isinstance(metric, AverageClassSize) and any(r.settings.k != first.settings.k for r in releases):
            meaning += f" (every release divided by k = {first.settings.k}, the k of {first.label})"
        add(metric.name, better, meaning, [v for v, _ in scored], [note for _, note in scored])
    _foreign_research_value(releases, add)
    if queries:
        errors, above, notes = _query_figures(releases, shared, queries, threshold)
        add("query error", "lower", "mean relative error of the same random COUNT queries answered on each release",
            errors, notes)
        add(f"queries off by more than {threshold:.0%}", "lower", "share of those queries answered that badly",
            above, notes)
    rows.append({"name": "seconds", "comparable": False, "better": None,
                 "meaning": "wall time of the anonymization on this machine (never marked: it measures the machine's"
                            " load as much as the method)",
                 "values": summary_values("seconds"), "notes": [None] * n, "best": []})
    return rows


def _settings_rows(releases: Sequence[ComparedRelease], setting: Any) -> None:
    """Rows naming each config's own metric settings where they differ from the first config's."""
    first = releases[0]
    quasi = first.dataset.quasi
    if len({tuple(r.settings.weights_of(quasi).items()) for r in releases}) > 1:
        setting("weights", f"each config's own weights; every utility figure below uses those of {first.label}",
                [r.settings.weights_text(quasi) for r in releases])
    for q in quasi:
        theirs = first.dataset.hierarchy(q)
        if any(not _same_hierarchy(r.dataset.hierarchy(q), theirs) for r in releases[1:]):
            setting(f"{q}: hierarchy", f"each config's own hierarchy of {q}; every figure below reads the released"
                    f" values through that of {first.label}",
                    [_hierarchy_text(r.dataset.hierarchy(q)) for r in releases])
    if len({r.settings.research_value_key() for r in releases}) > 1:
        setting("research value settings", f"each config's own; research_value below uses those of {first.label}",
                [r.settings.research_value_text() for r in releases])


def _foreign_research_value(releases: Sequence[ComparedRelease], add: Any) -> None:
    """Research value defined by a later config but not by the first: n/a for all, saying why."""
    first = releases[0]
    if first.settings.research_value is not None:
        return
    others = [r.label for r in releases[1:] if r.settings.research_value is not None]
    if others:
        reason = (f"{first.label}, whose settings every figure uses, defines no research value; put"
                  f" {others[0]} first to score every release under its settings")
        add("research_value", None, describe_metric("research_value").meaning, [None] * len(releases),
            [reason] * len(releases))


def _score(metric: Metric, release: ComparedRelease, first: ComparedRelease,
           shared: tuple[Partition | None, str | None]) -> tuple[float | None, str | None]:
    """The metric of the release under the shared definition, or None and why it cannot be computed.

    ``shared`` is the release's partition in the first config's terms (:func:`_shared_partition`); the
    metrics of the class structure alone read no generalized value and score any partition.
    """
    partition, reason = shared
    if isinstance(metric, _CLASS_METRICS):
        partition = release.partition
    elif partition is None:
        return None, reason
    try:
        value = float(metric.score(partition, first.dataset))
    except (ConfigError, ValueError) as exc:
        return None, str(exc)
    if not np.isfinite(value):
        why = "every record is suppressed" if release.partition.n_classes == 0 else "not a finite number"
        return None, f"{metric.name} is not defined for this release: {why}"
    return value, None


def _shared_partition(release: ComparedRelease, first: ComparedRelease) -> tuple[Partition | None, str | None]:
    """The release's partition as generalized values of the first config's dataset, or None and why not.

    A range carries over when both configs read the attribute's values as the
    same numbers (same type, same value of every label); a hierarchy node when
    both hierarchies are the same, or when the first config's hierarchy has a
    node with exactly the same leaves (it then becomes that node).
    """
    if release is first:
        return release.partition, None
    reference, own = first.dataset, release.dataset
    values: dict[str, Any] = {}
    for q in reference.quasi:
        released = release.partition.values[q]
        if isinstance(released, Intervals):
            if not _same_numbers(reference, own, q):
                return None, (f"{release.label} releases {q} as ranges of values that {first.label} reads otherwise"
                              f" ({q} is {own.specs[q].type.value} in {release.label},"
                              f" {reference.specs[q].type.value} in {first.label})")
            values[q] = released
            continue
        mine, theirs = own.hierarchy(q), reference.hierarchy(q)
        if _same_hierarchy(mine, theirs):
            values[q] = released
            continue
        if mine is None or theirs is None:
            return None, (f"{q} has a hierarchy in {release.label if theirs is None else first.label} only, and"
                          f" {release.label} releases it as hierarchy nodes")
        nodes = _nodes_in(released, mine, theirs)
        if nodes is None:
            return None, (f"the hierarchy of {q} in {release.label} differs from that of {first.label}, and a released"
                          f" value of {q} is no node of {first.label}'s")
        values[q] = nodes
    p = release.partition
    return Partition(values=values, sizes=p.sizes, n_suppressed=p.n_suppressed, row_class=p.row_class), None


def _same_numbers(a: Dataset, b: Dataset, q: str) -> bool:
    """Whether both datasets read every value of ``q`` present in the data as the same number, with the same type."""
    ea, eb = a.encoded[q], b.encoded[q]
    if a.specs[q].type is not b.specs[q].type or ea.numbers is None or eb.numbers is None:
        return False

    def by_label(enc: Any) -> tuple[Any, Any]:
        present = np.flatnonzero(enc.counts() > 0)
        labels = np.asarray(enc.categories[present]).astype(str)
        order = np.argsort(labels, kind="stable")
        return labels[order], np.asarray(enc.numbers, dtype=np.float64)[present][order]

    (la, na), (lb, nb) = by_label(ea), by_label(eb)
    return bool(np.array_equal(la, lb) and np.array_equal(na, nb, equal_nan=True))


def _nodes_in(values: HierarchyNodes, mine: Hierarchy, theirs: Hierarchy) -> HierarchyNodes | None:
    """Each released node of hierarchy ``mine`` as the lowest node of ``theirs`` with exactly its leaves, else None.

    Leaves are matched by label; the loops run over hierarchy levels, never over records.
    """
    leaf = pd.Index(np.asarray(theirs.labels[0]).astype(str)).get_indexer(np.asarray(mine.labels[0]).astype(str))
    leaf = np.asarray(leaf, dtype=np.int64)
    levels = np.zeros(len(values.codes), dtype=np.int16)
    codes = np.zeros(len(values.codes), dtype=np.int32)
    for level in np.unique(values.levels):
        mine_map = np.asarray(mine.maps[int(level)], dtype=np.int64)
        size = mine.size(int(level))
        found = np.full(size, -1, dtype=np.int64)
        found_level = np.zeros(size, dtype=np.int16)
        for their_level in range(theirs.n_levels):
            node = np.where(leaf >= 0, np.asarray(theirs.maps[their_level], dtype=np.int64)[np.maximum(leaf, 0)], -1)
            low = np.full(size, np.iinfo(np.int64).max)
            high = np.full(size, -1, dtype=np.int64)
            np.minimum.at(low, mine_map, node)
            np.maximum.at(high, mine_map, node)
            single = (low == high) & (high >= 0)
            their_counts = theirs.leaf_counts[their_level]
            same = single & (found < 0)
            same[same] = mine.leaf_counts[int(level)][same] == their_counts[high[same]]
            found[same] = high[same]
            found_level[same] = their_level
        at = values.levels == level
        picked = found[values.codes[at]]
        if (picked < 0).any():
            return None
        levels[at] = found_level[values.codes[at]]
        codes[at] = picked
    return HierarchyNodes(levels, codes)


def _same_hierarchy(a: Hierarchy | None, b: Hierarchy | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return (a.n_levels == b.n_levels
            and all(np.array_equal(x, y) for x, y in zip(a.labels, b.labels, strict=True))
            and all(np.array_equal(x, y) for x, y in zip(a.maps, b.maps, strict=True)))


def _hierarchy_text(h: Hierarchy | None) -> str:
    """Where a hierarchy came from (a builder and its parameters, or its file) and its levels."""
    return "none" if h is None else f"{h.source}: {h.max_level} levels above the values"


def _query_figures(releases: Sequence[ComparedRelease], shared: Sequence[tuple[Partition | None, str | None]],
                   queries: int, threshold: float) -> tuple[list[float | None], list[float | None], list[str | None]]:
    """Mean relative error and share above ``threshold`` of one workload drawn from the first config's dataset."""
    from anonset.evaluation.queries import query_accuracy, random_workload

    reference = releases[0].dataset
    workload = random_workload(reference, queries, dimension=min(2, len(reference.quasi)), selectivity=0.1, seed=0)
    errors: list[float | None] = []
    above: list[float | None] = []
    notes: list[str | None] = []
    for partition, reason in shared:
        if partition is None:
            errors.append(None)
            above.append(None)
            notes.append(reason)
            continue
        accuracy = query_accuracy(reference, partition, workload, threshold=threshold)
        errors.append(accuracy.mean)
        above.append(accuracy.share_above)
        notes.append(None)
    return errors, above, notes


def _generalization(release: ComparedRelease, q: str) -> str:
    """What the release did to ``q``: ``level 2 of 4 (12 of 282 values)`` (full-domain) or ``per class: ...``.

    Counts and levels only, never a value of the data.
    """
    dataset, partition = release.dataset, release.partition
    h = dataset.hierarchy(q)
    levels = release.summary.get("levels")
    if levels is not None and h is not None:
        level = int(levels[q])
        text = level_text(level, h.max_level)
        if level == 0:
            return f"{text} (original values)"
        if level == h.max_level:
            return f"{text} (every value *)"
        return f"{text} ({h.size(level):,} of {h.n_leaves:,} values)"
    if partition.n_classes == 0:
        return "per class: every record suppressed"
    values = partition.values[q]
    sizes = partition.sizes.astype(np.float64)
    if isinstance(values, HierarchyNodes) and h is not None:
        share = np.bincount(values.levels.astype(np.int64), weights=sizes, minlength=h.n_levels) / sizes.sum()
        used = [level for level in range(h.n_levels) if share[level] >= 0.005]
        parts = [f"{level} ({share[level]:.0%}{'' if j else ' of records'})" for j, level in enumerate(used)]
        return f"per class: nodes at level {', '.join(parts)} of {h.max_level}"
    if isinstance(values, Intervals):
        numbers = dataset.encoded[q].numbers
        if numbers is not None:
            present = np.sort(numbers[(dataset.encoded[q].counts() > 0) & np.isfinite(numbers)])
            spanned = (np.searchsorted(present, values.hi, side="right")
                       - np.searchsorted(present, values.lo, side="left")).astype(np.float64)
            order = np.argsort(spanned, kind="stable")
            median = spanned[order][np.searchsorted(np.cumsum(sizes[order]), sizes.sum() / 2)]
            return f"per class: ranges; the median record's range spans {median:,.0f} of {len(present):,} values"
        return "per class: ranges"
    return "per class: each class generalized on its own"


def render_comparison_html(comparison: Mapping[str, Any]) -> str:
    """The comparison as one self-contained HTML page: the table with the best marked, a chart per figure."""
    labels = comparison["labels"]
    head = "".join(f"<th>{escape(label)}<br><span class=\"muted\">{escape(method)}</span></th>"
                   for label, method in zip(labels, comparison["methods"], strict=True))
    body = []
    charts = []
    for row in comparison["rows"]:
        cells = "".join(_html_cell(row, i) for i in range(len(row["values"])))
        better = "" if row["better"] is None else f"{row['better']} is better"
        if not row["comparable"]:
            better = "not compared"
        body.append(f"<tr><td><b>{escape(row['name'])}</b><br><span class=\"muted\">{escape(better)}</span></td>"
                    f"{cells}<td class=\"muted\">{escape(row['meaning'])}</td></tr>")
        if row["comparable"] and all(isinstance(v, (int, float)) for v in row["values"]):
            title = f"{row['name']} ({better})" if row["better"] else row["name"]
            chart = bar_chart(title, labels, [Series(row["name"], [float(v) for v in row["values"]])], width=420)
            charts.append(f'<div class="chart">{chart}</div>')
    definition = comparison.get("metric_definition", {}).get("text", "")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Comparison of releases</title>"
            f"<style>{_CSS}</style></head><body><h1>Comparison of releases</h1>"
            f"<p class=\"note\"><b>{escape(NO_RELEASE)}</b></p>"
            f"<p class=\"muted\">Input {escape(str(comparison['source']))} ({comparison['records']:,} records),"
            f" generated {escape(comparison['generated'])}. ★ marks the best value of each comparable row; rows"
            " marked <i>not compared</i> say what each config asked and did.</p>"
            f"<p><b>One metric definition:</b> {escape(definition)}.</p>"
            f"<table><tr><th>figure</th>{head}<th>meaning</th></tr>{''.join(body)}</table>"
            f"{_warnings_html(labels, comparison.get('warnings') or [[] for _ in labels])}"
            f"<h2>Each figure</h2><div class=\"charts\">{''.join(charts)}</div></body></html>\n")


def _warnings_html(labels: Sequence[str], said: Sequence[Sequence[str]]) -> str:
    items = "".join(f"<li><b>{escape(label)}</b>: {escape(text)}</li>"
                    for label, texts in zip(labels, said, strict=True) for text in texts)
    return f"<h2>Warnings of the releases</h2><ul class=\"warnings\">{items}</ul>" if items else ""


def _html_cell(row: Mapping[str, Any], i: int) -> str:
    value = row["values"][i]
    if isinstance(value, str):
        return f"<td>{escape(value)}</td>"
    best = i in row["best"]
    note = row["notes"][i]
    reason = f"<br><span class=\"muted\">{escape(note)}</span>" if note else ""
    return f"<td class=\"num{' best' if best else ''}\">{escape(cell_text(value))}{' ★' if best else ''}{reason}</td>"


def cell_text(value: float | str | None) -> str:
    """A figure as printed: ``n/a``, a whole number with thousands separators, or four significant digits."""
    if value is None:
        return "n/a"
    if isinstance(value, str):
        return value
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.4g}"


_CSS = """body{font-family:system-ui,sans-serif;color:#1f2933;max-width:1200px;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;font-size:.93em}th,td{border-bottom:1px solid #e3e7eb;padding:.3em .7em;
text-align:left;vertical-align:top}th{background:#f5f7fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.best{background:#e6f4ea;font-weight:600}.muted{color:#52606d;font-size:.9em}
.note{background:#fff8e1;border-left:4px solid #f0b429;padding:.5em .8em}
.charts{display:flex;flex-wrap:wrap;gap:1em}.chart{break-inside:avoid}"""
