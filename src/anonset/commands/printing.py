"""How the commands print: the release summary, a success list and a front as tables, on the right stream.

:func:`console_for` is standard output, or standard error when one of the
command's outputs goes to standard output (``-`` or ``/dev/stdout``), so that
a release or a summary piped on is never mixed with the human-readable report.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from anonset.io.outputs import is_stdout

if TYPE_CHECKING:
    from anonset.core.dataset import Dataset

__all__ = ["console", "console_for", "levels_text", "print_front", "print_success_list", "print_summary"]

#: Standard output, as the commands print on it.
console = Console()


def console_for(*outputs: Path | None) -> Console:
    """Where the human-readable report goes: standard error when an output goes to standard output."""
    return Console(stderr=True) if any(is_stdout(o) for o in outputs) else console


def print_success_list(entries: list[dict[str, Any]], picked: int, out: Console, shown: int = 10) -> None:
    table = Table(title=f"success list ({len(entries)} strings, best first; --pick N releases another)")
    table.add_column("#", justify="right")
    table.add_column("levels")
    table.add_column("research value", justify="right")
    table.add_column("roots", justify="right")
    for i, entry in enumerate(entries[:shown]):
        mark = " (released)" if i == picked else ""
        levels = ", ".join(f"{q}={v}" for q, v in entry["levels"].items())
        table.add_row(f"{i}{mark}", levels, f"{entry['research_value']:.6g}", str(entry["roots"]))
    out.print(table)


def print_front(summary: dict[str, Any], picked: int | None, out: Console) -> None:
    """The front as a table, in the order --pick counts (sorted by the first objective)."""
    front = summary["front"]
    search = summary["search"]
    table = Table(title=f"front: {len(front)} members, {search['nodes_evaluated']:,} of {search['lattice_size']:,}"
                        " nodes evaluated (--pick N releases another)")
    table.add_column("#", justify="right")
    table.add_column("levels")
    for name in search["objectives"]:
        table.add_column(name, justify="right")
    table.add_column("suppressed", justify="right")
    for i, member in enumerate(front):
        mark = " (released)" if i == picked else ""
        levels = ", ".join(f"{q}={v}" for q, v in member["levels"].items())
        values = [f"{member['objectives'][name]:.6g}" for name in search["objectives"]]
        table.add_row(f"{i}{mark}", levels, *values, f"{member['suppressed_rows']:,}")
    out.print(table)


def print_summary(summary: dict[str, Any], out: Console, dataset: Dataset | None = None) -> None:
    """The release summary as a table: every figure with what it means and which way is better."""
    from anonset.metrics.descriptions import describe_metric

    table = Table(title="release summary", show_header=False)
    table.add_column("item", style="bold")
    table.add_column("value")
    table.add_column("meaning", style="dim")
    table.add_row("method", str(summary["method"]), "")
    table.add_row("engine", str(summary.get("engine", "numpy")), "")
    if summary.get("levels"):
        table.add_row("levels", levels_text(summary["levels"], dataset),
                      "0 = original values; the top level = *")
    table.add_row("requirements", str(summary["requirements"]), "")
    table.add_row("classes", f"{summary['classes']:,}", "groups of records that look the same")
    table.add_row("smallest class", str(summary["min_class_size"]), "higher is safer")
    rows = max(int(summary["rows"]), 1)
    table.add_row("suppressed records", f"{summary['suppressed_rows']:,} of {summary['rows']:,}"
                  f" ({summary['suppressed_rows'] / rows:.1%})", "released as *")
    risk = (summary.get("risk") or {}).get("release")
    if risk:
        table.add_row("risk after", f"highest {risk['highest_risk']:.3g}, average {risk['average_risk']:.3g}",
                      "1 / class size; lower is safer")
    search = summary.get("search") or {}
    if "nodes_checked" in search:
        table.add_row("nodes checked", f"{search['nodes_checked']:,} of {search['lattice_size']:,}",
                      "generalizations judged")
    if "fragments" in search:
        table.add_row("fragments", f"{search['fragments']:,} (sampled {search['sample_rows']:,} records)",
                      "Mondrian ran on each fragment apart (engine: spark)")
    if "ranges_may_overlap" in search:
        table.add_row("class ranges", "may overlap" if search["ranges_may_overlap"] else "do not overlap",
                      "each class is generalized on its own")
    cells = summary.get("suppressed_cells")
    if cells:
        table.add_row("blanked values", ", ".join(f"{name} {count:,}" for name, count in cells.items()),
                      "single values released as *, a blank matching any value")
    perturbed = summary.get("perturbation")
    if perturbed:
        from anonset.release.perturbation import described as treatment_words

        numbers = perturbed.get("numbers")
        risk = ("" if not numbers else f"; numbers: record linkage {numbers['record_linkage']:.3g}, interval"
                f" disclosure {numbers['interval_disclosure']:.3g}, IL1s {numbers['il1s']:.4g}")
        table.add_row("perturbed", "; ".join(treatment_words(done) for done in perturbed["treatments"]),
                      "changed values, not k-anonymity" + risk)
    aggregated = summary.get("microaggregation")
    if aggregated:
        table.add_row("aggregated", f"{', '.join(aggregated['attributes'])}: each group's {aggregated['statistic']}"
                      f" ({aggregated['groups']:,} groups)", f"IL1s {aggregated['il1s']:.6g} (sdcMicro's information"
                      " loss of the numbers; lower is better)")
    for name, value in summary["metrics"].items():
        described = describe_metric(name)
        table.add_row(name, "n/a" if value is None else f"{value:.6g}",
                      described.terminal_text())
    for name, reason in (summary.get("metrics_omitted") or {}).items():
        table.add_row(name, f"not computed ({reason})", "")
    table.add_row("verified", "yes (classes recomputed from the released values)" if summary["verified"] else "NO",
                  "")
    if summary.get("rows_fetched") is not None:
        table.add_row("rows fetched", f"{summary['rows_fetched']:,} (value counts and class tables; records stay"
                                      " in the database)", "")
    table.add_row("seconds", f"{summary['seconds']:.3f}", "")
    stages = summary.get("stage_seconds") or {}
    if stages:
        table.add_row("seconds per stage", ", ".join(f"{name} {value:.3f}" for name, value in stages.items()), "")
    table.add_row("written to", str(summary["output"]) if summary.get("output") else "nothing (no output path)", "")
    out.print(table)


def levels_text(levels: dict[str, int], dataset: Dataset | None) -> str:
    """``age 2 of 4, sex 0 of 1`` (the top level of each hierarchy from the dataset, when there is one)."""
    parts = []
    for name, level in levels.items():
        h = dataset.hierarchy(name) if dataset is not None else None
        parts.append(f"{name} {level}" + ("" if h is None else f" of {h.max_level}"))
    return ", ".join(parts)
