"""The HTML release report: one self-contained page (inline CSS and SVG, no script, no fetch) that prints well.

:func:`render_html` lays out what :func:`anonset.report.contents.build_report`
computed; it computes nothing itself, so the page and the JSON export always
agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from anonset.report.attributes import level_text
from anonset.report.scale import DATE_WIDTHS
from anonset.report.search_words import search_rows
from anonset.report.svg import Series, bar_chart, range_chart, scatter_plot

__all__ = ["render_html"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2933;max-width:1060px;margin:2em auto;
padding:0 1.2em;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.1em}h2{font-size:1.25em;border-bottom:2px solid #e3e7eb;padding-bottom:.2em;
margin-top:1.8em}h3{font-size:1.05em;margin:1.2em 0 .3em}
.muted{color:#52606d;font-size:.92em}.box{background:#f5f7fa;border-left:4px solid #1f6fb2;padding:.6em 1em;
margin:.8em 0}.warn{border-left-color:#d9822b;background:#fff8ef}
table{border-collapse:collapse;margin:.5em 0;font-size:.93em}th,td{border-bottom:1px solid #e3e7eb;
padding:.3em .7em;text-align:left;vertical-align:top}th{background:#f5f7fa}td.num{text-align:right;
font-variant-numeric:tabular-nums}
.ok{color:#2f7d32;font-weight:600}.bad{color:#b3261e;font-weight:600}
.charts{display:flex;flex-wrap:wrap;gap:1.2em}.chart{break-inside:avoid;page-break-inside:avoid}
section{break-inside:auto}code{background:#f5f7fa;padding:0 .25em}
@media print{body{margin:0;max-width:none}h2,h3{break-after:avoid;page-break-after:avoid}
tr{break-inside:avoid;page-break-inside:avoid}
.box{border:1px solid #cbd2d9}a{color:inherit}}
"""


def render_html(report: Mapping[str, Any]) -> str:
    """The report as one HTML page."""
    run = report["run"]
    title = f"Release report: {run.get('source', '')}"
    body = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="muted">Method <b>{escape(str(run["method"]))}</b> · generated {escape(report["generated"])}'
        f" by anonset {escape(report['anonset'])}</p>",
        _in_short(report),
        _guarantees(report["guarantees"]),
        _why(report["why"]) + _keeping(report.get("keeping")),
        _attributes(report["attributes"], report.get("display_floor")),
        _suppression(report["suppression"]),
        _classes(report["classes"]),
        _risk(report["risk"]),
        _sensitive(report.get("sensitive") or {}),
        _utility(report["utility"], report["utility_source"], report.get("utility_omitted") or {}),
        _workload(report.get("workload")),
        _method(report["method"]),
        _provenance(run),
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{escape(title)}</title>"
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(b for b in body if b) + "\n</body></html>\n")


def _in_short(report: Mapping[str, Any]) -> str:
    violated = not all(g["holds"] for g in report["guarantees"])
    parts = [f'<section id="summary"><h2>In short</h2><div class="box{" warn" if violated else ""}">']
    bad = ' class="bad"'
    parts += [f"<p{bad if violated and i == 0 else ''}>{escape(line)}</p>" for i, line in enumerate(report["headline"])]
    parts.append("</div>")
    note = (report.get("alignment") or {}).get("note")
    if note:
        parts.append(f'<div class="box"><b>Note:</b> {escape(note)}</div>')
    for warning in report["warnings"]:
        parts.append(f'<div class="box warn"><b>Warning:</b> {escape(warning)}</div>')
    parts.append("</section>")
    return "".join(parts)


def _guarantees(rows: Sequence[Mapping[str, Any]]) -> str:
    body = "".join(f"<tr><td>{escape(r['requirement'])}</td><td class=\"{'ok' if r['holds'] else 'bad'}\">"
                   f"{'holds' if r['holds'] else 'VIOLATED'}</td><td>{escape(r['detail'])}</td></tr>" for r in rows)
    return ('<section id="guarantees"><h2>Guarantees verified</h2><p class="muted">Checked on the released file'
            " itself: the groups were recomputed from the released values, independently of the method.</p>"
            f"<table><tr><th>requirement</th><th>result</th><th>detail</th></tr>{body}</table></section>")


def _why(paragraphs: Sequence[str]) -> str:
    return ('<section id="why"><h2>Why this release</h2>' + "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
            + "</section>")


def _keeping(entries: Sequence[Mapping[str, Any]] | None) -> str:
    """The cheapest release that keeps each attribute at each finer level (beyond one step)."""
    if not entries:
        return ""
    rows = []
    for e in entries:
        if e["feasible"]:
            node = ", ".join(f"{q} {v}" for q, v in e["levels"].items())
            found = (f"{escape(node)}</td><td class=\"num\">{e['value']:.4g}</td>"
                     f"<td class=\"num\">{e['suppressed_rows']:,}")
        else:
            found = "no release meets the requirements</td><td>—</td><td>—"
        rows.append(f"<tr><td>{escape(e['attribute'])} at level {e['at_most']} or finer</td><td>{found}</td></tr>")
    metric = escape(str(entries[0]["metric"]))
    return ('<section id="keeping"><h3>Keeping an attribute finer: the cheapest release for each</h3>'
            "<p class=\"muted\">For each attribute and each level finer than this release's, the best release"
            f" (by {metric}) of the generalizations that keep it at that level or finer, found by an exact search of"
            " that part of the lattice.</p>"
            f"<table><tr><th>keeping</th><th>levels</th><th>{metric}</th><th>suppressed records</th></tr>"
            f"{''.join(rows)}</table></section>")


def _attributes(sections: Sequence[Mapping[str, Any]], floor: int | None) -> str:
    rows = []
    for a in sections:
        level = "—" if a["level"] is None else level_text(a["level"], a["max_level"])
        loss = "—" if a["loss"] is None else f"{a['loss']:.3f}"
        rows.append(f"<tr><td><b>{escape(a['name'])}</b><br><span class=\"muted\">{escape(a['type'])}</span></td>"
                    f"<td>{escape(level)}</td><td>{escape(a['generalization'])}</td>"
                    f"<td class=\"num\">{a['distinct_before']:,} → {a['distinct_after']:,}</td>"
                    f"<td class=\"num\">{loss}</td></tr>")
    charts = []
    for a in sections:
        before = bar_chart(f"{a['name']}: original", [b["label"] for b in a["before"]],
                           [Series("records", [b["records"] for b in a["before"]])], unit="records")
        after = bar_chart(f"{a['name']}: released", [b["label"] for b in a["after"]],
                          [Series("records", [b["records"] for b in a["after"]])], unit="records")
        scale = a.get("scale")
        line = "" if not scale else (
            '<div class="chart">' + range_chart(f"{a['name']}: original and released, on one scale",
                                                [("original", scale["before"]), ("released", scale["after"])],
                                                per=scale["width"], unit=a["name"], dates=bool(scale.get("dates")),
                                                per_words=DATE_WIDTHS.get(scale["width"]) if scale.get("dates")
                                                else None) + "</div>"
            + ("" if not scale["unplaced"] else
               f'<p class="muted">Not on the scale: {scale["unplaced"]:,} released records (*, or values'
               f" held by fewer than {floor or 2} records).</p>"))
        charts.append(f'<h3>{escape(a["name"])}</h3>{line}<div class="charts"><div class="chart">{before}</div>'
                      f'<div class="chart">{after}</div></div>')
    return ('<section id="attributes"><h2>What was done to each quasi-identifier</h2>'
            '<p class="muted">Level 0 is the original value; the top level replaces every value by *. Loss is'
            " the share of the attribute's domain a released value covers on average, 0 (nothing lost) to 1"
            " (everything suppressed); a suppressed record counts 1. Distinct values do not count *."
            + ("" if floor is None else
               f" No original value, range or combination held by fewer than {floor} records is named: such values"
               f" are counted together in the bar \u201cother: \u2026, &lt; {floor} records each\u201d.")
            + "</p>"
            "<table><tr><th>attribute</th><th>level</th><th>generalization</th><th>distinct values</th>"
            f"<th>loss</th></tr>{''.join(rows)}</table>{''.join(charts)}</section>")


def _suppression(s: Mapping[str, Any]) -> str:
    parts = ['<section id="suppression"><h2>Suppressed records</h2>',
             f"<p>{s['records']:,} records ({s['share']:.2%}) were suppressed: their quasi-identifiers are"
             f" released as *{' (or the records were left out)' if s['dropped'] else ''}. The budget allowed"
             f" {s['budget_records']:,} ({s['budget_share']:.2%}).</p>"]
    breakdown = s.get("breakdown")
    if breakdown:
        columns = list(breakdown["shown_at"])
        head = "".join(f"<th>{escape(c)}<br><span class=\"muted\">{escape(breakdown['shown_at'][c])}</span></th>"
                       for c in columns)
        rows = "".join("<tr>" + "".join(f"<td>{escape(str(c['values'][col]))}</td>" for col in columns)
                       + f"<td class=\"num\">{c['records']:,}</td></tr>" for c in breakdown["combinations"][:30])
        parts.append(f"<p>Their quasi-identifier combinations, shown at the generalization the release applied;"
                     f" combinations with fewer than {breakdown['k']} suppressed records are only counted, so that"
                     " this table discloses no small group.</p>")
        if breakdown["combinations"]:
            parts.append(f"<table><tr>{head}<th>records</th></tr>{rows}</table>")
        if breakdown.get("withheld_because"):
            parts.append(f'<p class="bad">{escape(breakdown["withheld_because"])}: their'
                         f" {breakdown['records_in_small_combinations']:,} records are in"
                         f" {breakdown['small_combinations']:,} combinations (not listed).</p>")
        else:
            parts.append(f"<p>{breakdown['records_in_small_combinations']:,} suppressed records are in"
                         f" {breakdown['small_combinations']:,} combinations of fewer than {breakdown['k']} records"
                         " (not listed).</p>")
    elif s.get("breakdown_omitted"):
        parts.append(f'<p class="muted">Their quasi-identifier combinations are {escape(s["breakdown_omitted"])}.</p>')
    parts.append("</section>")
    return "".join(parts)


def _classes(c: Mapping[str, Any]) -> str:
    if not c["count"]:
        return '<section id="classes"><h2>Groups of identical records</h2><p>No record was released.</p></section>'
    labels = [b["label"] for b in c["bands"]]
    chart = bar_chart("records by the size of their group", labels,
                      [Series("records", [b["records"] for b in c["bands"]])], unit="records")
    classes_chart = bar_chart("groups by size", labels, [Series("groups", [b["classes"] for b in c["bands"]])],
                              unit="groups")
    return ('<section id="classes"><h2>Groups of identical records (equivalence classes)</h2>'
            f"<p>{c['count']:,} groups; the smallest has {c['smallest']:,} records, the largest {c['largest']:,},"
            f" the median {c['median']:.4g}. A record's group is every record with the same released"
            " quasi-identifier values: the larger the group, the harder it is to single the record out.</p>"
            + (f'<p class="muted">{escape(c["blanks_note"])}</p>' if c.get("blanks_note") else "")
            + f'<div class="charts"><div class="chart">{chart}</div><div class="chart">{classes_chart}</div></div>'
            "</section>")


def _risk(r: Mapping[str, Any]) -> str:
    before, after = r["input"], r["release"]
    rows = [("highest risk (a record's chance of being picked out: 1 / its group size)", "highest_risk", True),
            ("average risk", "average_risk", True), ("records that are unique (group of 1)", "sample_uniques", True),
            ("groups", "classes", False)]
    body = "".join(f"<tr><td>{escape(label)}</td><td class=\"num\">{_fmt(before[key], share)}</td>"
                   f"<td class=\"num\">{'—' if after is None else _fmt(after[key], share)}</td></tr>"
                   for label, key, share in rows)
    chart = ""
    if after is not None:
        thresholds = [str(t) for t in before["records_above"]]
        chart = bar_chart("share of records whose risk is above each threshold",
                          [f"risk > {t}" for t in thresholds],
                          [Series("original", [before["records_above"][t] for t in thresholds]),
                           Series("release", [after["records_above"][t] for t in thresholds])],
                          percent=True, unit="share of records")
    k_note = ("" if r["k_threshold"] is None else
              f" With k-anonymity no released record's risk exceeds 1/k = {r['k_threshold']:.3g}.")
    counted_at = before.get("counted_at")
    if counted_at:
        k_note += (" The original's figures count its records at their minimum generalization ("
                   + ", ".join(f"{q} at level {level}" for q, level in counted_at.items())
                   + "), the most specific values a release may show: the records were never grouped finer.")
    return ('<section id="risk"><h2>Re-identification risk, before and after</h2>'
            "<p class=\"muted\">Prosecutor model: the attacker knows the person is in the table and knows their"
            f" quasi-identifiers. Suppressed records are left out of the release's figures.{escape(k_note)}</p>"
            f"<table><tr><th>measure</th><th>original</th><th>release</th></tr>{body}</table>"
            f'<div class="chart">{chart}</div>{_attackers(r.get("attackers"))}'
            f'{_quasi_importance(r.get("quasi_identifiers"))}{_survey(r.get("survey"))}</section>')


def _attackers(attackers: Mapping[str, Any] | None) -> str:
    """ARX's journalist and marketer figures against the population, original against release."""
    if attackers is None:
        return ""
    before, after = attackers["input"], attackers["release"]

    def value(side: Mapping[str, Any] | None, model: str, key: str) -> str:
        return "—" if side is None else f"{side[model][key]:.4g}"

    rows = [("journalist: highest risk (1 / the fewest people of the population a group stands for)",
             "journalist", "highest_risk"),
            ("journalist: average risk", "journalist", "average_risk"),
            ("marketer: expected share of records re-identified", "marketer", "average_risk")]
    body = "".join(f"<tr><td>{escape(label)}</td><td class=\"num\">{value(before, model, key)}</td>"
                   f"<td class=\"num\">{value(after, model, key)}</td></tr>" for label, model, key in rows)
    return ("<h3>Against the population</h3>"
            f"<p class=\"muted\">The attacker matches against the population the table was drawn from"
            f" ({attackers['population_records']:,} records) and does not know whether the person is in the"
            " release (ARX's journalist and marketer models).</p>"
            f"<table><tr><th>measure</th><th>original</th><th>release</th></tr>{body}</table>")


def _sensitive(sections: Mapping[str, Any]) -> str:
    """Each sensitive attribute inside the groups, original against release, and the release's homogeneous groups."""
    if not sections:
        return ""
    parts = []
    for name, views in sections.items():
        before, after = views["input"], views["release"]

        def cell(view: Mapping[str, Any] | None, key: str, percent: bool = False) -> str:
            value = None if view is None else view[key]
            if value is None:
                return "—"
            return f"{value:.0%}" if percent else f"{value:.3g}"

        def homogeneous(view: Mapping[str, Any] | None) -> str:
            if view is None:
                return "—"
            h = view["homogeneous"]
            return f"{h['classes']:,} ({h['records']:,} records)"

        threshold = after["homogeneous"]["threshold"]
        rows = ("<tr><td>largest share of one value in a group</td>"
                f"<td class=\"num\">{cell(before, 'highest_share', True)}</td>"
                f"<td class=\"num\">{cell(after, 'highest_share', True)}</td></tr>"
                f"<tr><td>mean entropy of a record's group (bits; 0: one value per group)</td>"
                f"<td class=\"num\">{cell(before, 'mean_entropy')}</td><td class=\"num\">{cell(after, 'mean_entropy')}"
                f"</td></tr><tr><td>groups where one value holds {threshold:.0%} or more</td>"
                f"<td class=\"num\">{homogeneous(before)}</td><td class=\"num\">{homogeneous(after)}</td></tr>")
        listed = "".join(
            f"<tr><td>{escape(', '.join(f'{q} {v}' for q, v in c['attributes'].items()))}</td>"
            f"<td class=\"num\">{c['records']:,}</td><td>{escape(str(c['value']))}</td>"
            f"<td class=\"num\">{c['share']:.0%}</td></tr>" for c in after["listed"])
        table = ("" if not listed else
                 "<table><tr><th>released group</th><th>records</th><th>value</th><th>share</th></tr>"
                 f"{listed}</table>")
        parts.append(f"<h3>{escape(name)}</h3>"
                     f"<table><tr><th>measure</th><th>original</th><th>release</th></tr>{rows}</table>{table}")
    floor = next(iter(sections.values()))["release"]["floor"]
    return ('<section id="sensitive"><h2>Sensitive attributes inside the groups</h2>'
            "<p class=\"muted\">A group can be large and still give its sensitive value away: if nearly all its"
            " records share one value, whoever places a person in the group learns it. The release's groups"
            f" where one value dominates are listed (groups of fewer than {floor} records only counted); the"
            " original's are only counted.</p>" + "".join(parts) + "</section>")


def _quasi_importance(rows: Sequence[Mapping[str, Any]] | None) -> str:
    """Distinction and separation of each quasi-identifier alone and of all together, original against release."""
    if not rows:
        return ""

    def pair(values: Mapping[str, float] | None) -> str:
        if values is None:
            return "<td class=\"num\">—</td><td class=\"num\">—</td>"
        return (f"<td class=\"num\">{values['distinction']:.4f}</td>"
                f"<td class=\"num\">{values['separation']:.4f}</td>")

    body = "".join(f"<tr><td>{escape(_together(r['attributes']))}"
                   f"</td>{pair(r['input'])}{pair(r['release'])}</tr>" for r in rows)
    return ("<h3>Which quasi-identifiers tell records apart</h3>"
            "<p class=\"muted\">Distinction: distinct values (or combinations) per record, 1 when each record has"
            " its own. Separation: the share of pairs of records that differ on them. Both as ARX's"
            " quasi-identifier analysis measures them; <code>anonset risk</code> lists every combination.</p>"
            "<table><tr><th>attributes</th><th>distinction, original</th><th>separation, original</th>"
            f"<th>distinction, released</th><th>separation, released</th></tr>{body}</table>")


def _together(attributes: Sequence[str]) -> str:
    return " + ".join(attributes) if len(attributes) <= 3 else f"all {len(attributes)} together"


def _survey(survey: Mapping[str, Any] | None) -> str:
    """The survey measures of a table with sampling weights, original against release."""
    if survey is None:
        return ""
    before, after = survey["input"], survey["release"]

    def pick(report: Mapping[str, Any] | None, path: tuple[str, ...]) -> Any:
        value: Any = report
        for key in path:
            value = None if value is None else value[key]
        return value

    rows: list[tuple[str, tuple[str, ...], str]] = [
        ("highest individual risk (Benedetti-Franconi, with the weights)", ("individual_risk", "max"), "g"),
        ("mean individual risk", ("individual_risk", "mean"), "g"),
        ("expected re-identifications", ("global_risk", "expected_reidentifications"), "g"),
        *[(f"records whose key fewer than {k} records share", ("k_anonymity_violations", k), "d")
          for k in before["k_anonymity_violations"]],
        ("records with a SUDA score (a minimal sample unique)", ("suda2", "records_with_score"), "d"),
        ("highest SUDA score", ("suda2", "max_score"), "g"),
        ("highest DIS-SUDA score", ("suda2", "dis_suda", "max"), "g"),
    ]
    body = "".join(f"<tr><td>{escape(label)}</td><td class=\"num\">{_number(pick(before, path), kind)}</td>"
                   f"<td class=\"num\">{_number(pick(after, path), kind)}</td></tr>" for label, path, kind in rows)
    shares = ", ".join(f"{escape(a)} {c:.1f}%" for a, c in before["suda2"]["contributions"].items())
    return ("<h3>Survey measures</h3>"
            "<p class=\"muted\">The table is a sample with weights: a record's individual risk is the chance that"
            " an intruder who matches its key against the population picks the right person (the expected 1 / the"
            " people who share the key, estimated from the weights); a missing value matches any value. SUDA looks"
            " for the smallest sets of attributes on which a record is unique"
            f" (attribute contributions in the original: {shares}).</p>"
            f"<table><tr><th>measure</th><th>original</th><th>release</th></tr>{body}</table>")


def _number(value: Any, kind: str) -> str:
    """A figure of the survey table: a whole number with separators, or four significant digits; — when absent."""
    if value is None:
        return "—"
    return f"{int(value):,}" if kind == "d" else f"{float(value):.4g}"


def _utility(rows: Sequence[Mapping[str, Any]], source: str, omitted: Mapping[str, str]) -> str:
    body = "".join(f"<tr><td><b>{escape(m['name'])}</b>{' (optimized)' if m['optimized'] else ''}</td>"
                   f"<td class=\"num\">{'n/a' if m['value'] is None else format(m['value'], '.6g')}</td>"
                   f"<td>{escape(m['better'])} is better</td><td>{escape(m['range'])}</td>"
                   f"<td>{escape(m['meaning'])}</td></tr>" for m in rows)
    return ('<section id="utility"><h2>Utility: what the release keeps</h2>'
            f'<p class="muted">Figures from {escape(source)}.</p>'
            "<table><tr><th>metric</th><th>value</th><th>better</th><th>range</th><th>meaning</th></tr>"
            f"{body}</table>"
            + "".join(f'<p class="muted">{escape(name)}: {escape(reason)}.</p>' for name, reason in omitted.items())
            + "</section>")


def _workload(w: Mapping[str, Any] | None) -> str:
    parts = ['<section id="workload"><h2>Workload evaluation against the original</h2>']
    if not w:
        parts.append("<p class=\"muted\">Not configured: add <code>evaluation: {queries: {count: 1000}}</code> to the"
                     " config to have the report answer random COUNT queries on the release and on the original"
                     " records; <code>anonset evaluate</code> runs the train/test protocol for a classifier.</p>")
    q = (w or {}).get("queries")
    if q:
        parts.append(f"<p>{q['queries']:,} random COUNT queries over {q['dimension']} quasi-identifiers, each"
                     f" selecting about {q['selectivity']:.0%} of the domain, answered on the release (records spread"
                     " evenly over their generalized values) and on the original records: mean relative error"
                     f" {q['mean_relative_error']:.3g}, median {q['median_relative_error']:.3g};"
                     f" {q['share_above']:.1%} of the queries are off by more than {q['threshold']:.0%}."
                     " Lower is better.</p>")
    for name, reason in ((w or {}).get("omitted") or {}).items():
        parts.append(f'<p class="muted">The {"query accuracy" if name == "queries" else "pattern survival"} check is'
                     f" {escape(reason)}.</p>")
    p = (w or {}).get("patterns")
    if p:
        parts.append(f"<p>A decision tree for {escape(str(p['target']))} learned on the release scores"
                     f" {p['release']:.4f} on held-out original records ({escape(str(p['score']).replace('_', ' '))});"
                     f" the same tree learned on the original records scores {p['raw']:.4f}. Their top splits"
                     f" overlap {p['overlap']:.0%}.</p>")
    parts.append("</section>")
    return "".join(parts)


def _method(m: Mapping[str, Any]) -> str:
    parts = ['<section id="method"><h2>How the method found it</h2>']
    figures = search_rows(m.get("search") or {})
    if figures:
        parts.append("<table><tr><th>figure</th><th>value</th><th>what it means</th></tr>"
                     + "".join(f"<tr><td>{escape(label)}</td><td>{escape(_plain(value))}</td>"
                               f"<td class=\"muted\">{escape(meaning)}</td></tr>" for label, value, meaning in figures)
                     + "</table>")
    if m.get("success_list"):
        picked = int((m.get("search") or {}).get("picked", 0))
        rows = "".join(f"<tr><td>{i}{' (released)' if i == picked else ''}</td><td>{escape(_levels(e['levels']))}"
                       f"</td><td class=\"num\">{e['research_value']:.6g}</td></tr>"
                       for i, e in enumerate(m["success_list"]))
        parts.append(f"<h3>Success list ({m['success_list_length']:,} strings, best first)</h3>"
                     f"<table><tr><th>#</th><th>levels</th><th>research value</th></tr>{rows}</table>")
    if m.get("front"):
        parts.append(_front(m["front"], m.get("search") or {}))
    parts.append("</section>")
    return "".join(parts)


def _front(front: Sequence[Mapping[str, Any]], search: Mapping[str, Any]) -> str:
    objectives = list(search.get("objectives") or front[0]["objectives"])
    picked = search.get("picked")
    charts = []
    for other in objectives[1:3]:
        points = [(float(m["objectives"][objectives[0]]), float(m["objectives"][other])) for m in front]
        plot = scatter_plot(f"front: {objectives[0]} against {other}", objectives[0], other, points, highlight=picked)
        charts.append(f'<div class="chart">{plot}</div>')
    head = "".join(f"<th>{escape(o)}</th>" for o in objectives)
    rows = "".join(f"<tr><td>{i}{' (released)' if i == picked else ''}</td><td>{escape(_levels(m['levels']))}</td>"
                   + "".join(f"<td class=\"num\">{m['objectives'][o]:.4g}</td>" for o in objectives)
                   + f"<td class=\"num\">{m['suppressed_rows']:,}</td></tr>" for i, m in enumerate(front))
    return (f"<h3>Trade-off front ({len(front)} members)</h3><div class=\"charts\">{''.join(charts)}</div>"
            f"<table><tr><th>#</th><th>levels</th>{head}<th>suppressed</th></tr>{rows}</table>")


def _provenance(run: Mapping[str, Any]) -> str:
    items: list[tuple[str, Any]] = [
        ("input", run.get("source")), ("records in the input", f"{run['records']:,}"),
        ("input checksum (SHA-256)", (run.get("input") or {}).get("sha256")),
        ("configuration", run.get("config")), ("release written to", run.get("release")),
        ("release checksum (SHA-256)", run.get("release_sha256")),
        ("method", run.get("method")), ("method options", run.get("method_options")),
        ("metric optimized", run.get("metric")), ("engine", run.get("engine")), ("seed", run.get("seed")),
        ("quasi-identifiers", ", ".join(run["quasi_identifiers"])),
        ("sensitive attributes", ", ".join(run["sensitive"]) or "none"),
        ("identifiers removed", ", ".join(run["dropped_identifiers"]) or "none"),
        ("other columns released unchanged", ", ".join(run["released_unchanged"]) or "none"),
        ("versions", ", ".join(f"{k} {v}" for k, v in (run.get("versions") or {}).items())),
        ("seconds", run.get("seconds")),
        ("seconds per stage", ", ".join(f"{k} {v:.3f}" for k, v in (run.get("stage_seconds") or {}).items())),
    ]
    body = "".join(f"<tr><td>{escape(k)}</td><td>{escape(_plain(v))}</td></tr>" for k, v in items
                   if v not in (None, "", {}))
    config = run.get("config_text")
    text = ("" if not config else "<h3>The configuration</h3>"
            f"<pre class=\"box\">{escape(str(config))}</pre>")
    return f'<section id="provenance"><h2>Run and provenance</h2><table>{body}</table>{text}</section>'


def _levels(levels: Mapping[str, int]) -> str:
    return ", ".join(f"{q}={v}" for q, v in levels.items())


def _plain(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {_plain(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value)
    return str(value)


def _fmt(value: float, share: bool) -> str:
    return f"{value:.2%}" if share else f"{value:,}"
