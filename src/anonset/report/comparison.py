"""Releases of the same table side by side: privacy, utility and query accuracy, the best in each row marked.

:func:`comparison_rows` turns the measured figures of several releases into
rows (each with its direction, so the best can be marked); the command
``anonset compare`` prints them, writes them as JSON and as an HTML page
(:func:`render_comparison_html`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from anonset.metrics.descriptions import describe_metric
from anonset.report.svg import Series, bar_chart

__all__ = ["ComparedRelease", "comparison_rows", "render_comparison_html"]


@dataclass(frozen=True)
class ComparedRelease:
    """The figures of one release in a comparison (``summary``: the release's JSON summary)."""

    label: str
    summary: Mapping[str, Any]
    query_error: float | None = None
    queries_above: float | None = None


def comparison_rows(releases: Sequence[ComparedRelease], threshold: float) -> list[dict[str, Any]]:
    """One row per figure: ``name``, ``better`` (lower / higher / None), ``meaning``, ``values``, ``best`` (indices)."""
    rows: list[dict[str, Any]] = []

    def add(name: str, better: str | None, meaning: str, values: list[float | None]) -> None:
        known = [v for v in values if v is not None]
        best: list[int] = []
        if better is not None and known and len(releases) > 1:
            target = min(known) if better == "lower" else max(known)
            best = [i for i, v in enumerate(values) if v is not None and v == target]
        rows.append({"name": name, "better": better, "meaning": meaning, "values": values, "best": best})

    def summary_values(key: str) -> list[float | None]:
        return [r.summary.get(key) for r in releases]

    def risk_values(key: str) -> list[float | None]:
        return [((r.summary.get("risk") or {}).get("release") or {}).get(key) for r in releases]

    add("suppressed records", "lower", "records released as * in every quasi-identifier",
        summary_values("suppressed_rows"))
    add("classes", "higher", "groups of records that look the same (more groups keep more detail)",
        summary_values("classes"))
    add("smallest class", "higher", "a record hides among at least this many", summary_values("min_class_size"))
    add("highest risk", "lower", "largest chance of picking out a known person's record (1 / class size)",
        risk_values("highest_risk"))
    add("average risk", "lower", "that chance averaged over the released records", risk_values("average_risk"))
    add("sample uniques", "lower", "share of released records alone in their class", risk_values("sample_uniques"))
    names = [n for n in releases[0].summary.get("metrics", {})
             if all(n in r.summary.get("metrics", {}) for r in releases)]
    for name in names:
        described = describe_metric(name)
        better = described.better if described.better in ("lower", "higher") else None
        add(name, better, described.meaning, [r.summary["metrics"].get(name) for r in releases])
    if any(r.query_error is not None for r in releases):
        add("query error", "lower", "mean relative error of random COUNT queries answered on the release",
            [r.query_error for r in releases])
        add(f"queries off by more than {threshold:.0%}", "lower", "share of those queries answered that badly",
            [r.queries_above for r in releases])
    add("seconds", "lower", "wall time of the anonymization", summary_values("seconds"))
    return rows


def render_comparison_html(comparison: Mapping[str, Any]) -> str:
    """The comparison as one self-contained HTML page: the table with the best marked, a chart per figure."""
    labels = comparison["labels"]
    head = "".join(f"<th>{escape(label)}<br><span class=\"muted\">{escape(method)}</span></th>"
                   for label, method in zip(labels, comparison["methods"], strict=True))
    body = []
    charts = []
    for row in comparison["rows"]:
        cells = "".join(f"<td class=\"num{' best' if i in row['best'] else ''}\">{_cell(v)}"
                        f"{' ★' if i in row['best'] else ''}</td>" for i, v in enumerate(row["values"]))
        better = "" if row["better"] is None else f"{row['better']} is better"
        body.append(f"<tr><td><b>{escape(row['name'])}</b><br><span class=\"muted\">{escape(better)}</span></td>"
                    f"{cells}<td class=\"muted\">{escape(row['meaning'])}</td></tr>")
        if all(v is not None for v in row["values"]):
            chart = bar_chart(f"{row['name']} ({better})" if better else row["name"], labels,
                              [Series(row["name"], [float(v) for v in row["values"]])], width=420)
            charts.append(f'<div class="chart">{chart}</div>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Comparison of releases</title>"
            f"<style>{_CSS}</style></head><body><h1>Comparison of releases</h1>"
            f"<p class=\"muted\">Input {escape(str(comparison['source']))} ({comparison['records']:,} records),"
            f" generated {escape(comparison['generated'])}. ★ marks the best value of each row.</p>"
            f"<table><tr><th>figure</th>{head}<th>meaning</th></tr>{''.join(body)}</table>"
            f"<h2>Each figure</h2><div class=\"charts\">{''.join(charts)}</div></body></html>\n")


def _cell(value: float | None) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.4g}"


_CSS = """body{font-family:system-ui,sans-serif;color:#1f2933;max-width:1200px;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;font-size:.93em}th,td{border-bottom:1px solid #e3e7eb;padding:.3em .7em;
text-align:left;vertical-align:top}th{background:#f5f7fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.best{background:#e6f4ea;font-weight:600}.muted{color:#52606d;font-size:.9em}
.charts{display:flex;flex-wrap:wrap;gap:1em}.chart{break-inside:avoid}"""
