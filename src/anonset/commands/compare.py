"""``anonset compare``: releases of several configs on the same table, side by side, the best of each row marked.

Each config is anonymized in memory and nothing is released: no file is
written but the comparison itself.  The releases are re-checked as every
release is; their utility metrics are re-scored from their partitions under
one definition, the first config's (its weights and metric settings), and
their query accuracy measured on one shared workload of random COUNT queries
(:mod:`anonset.report.comparison`).
"""

from __future__ import annotations

import datetime as dt
import json
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from anonset.commands import user_errors
from anonset.config import FileInput
from anonset.errors import AnonsetWarning, ConfigError

if TYPE_CHECKING:
    import pyarrow as pa

    from anonset.config import RunConfig
    from anonset.report.comparison import ComparedRelease

__all__ = ["compare"]


@click.command(name="compare")
@click.argument("configs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--report", "report_path", type=click.Path(path_type=Path),
              help="Write the comparison as an HTML page here.")
@click.option("--json", "json_path", type=click.Path(path_type=Path),
              help="Write the comparison as JSON here ('-' for standard output).")
@click.option("--queries", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Random COUNT queries (2 quasi-identifiers, 10% selectivity) answered on each release; 0: none.")
@user_errors
def compare(configs: tuple[Path, ...], report_path: Path | None, json_path: Path | None, queries: int) -> None:
    """Put the releases of several CONFIGS of the same table side by side.

    Compare writes no release: nothing is released; run `anonset anonymize
    CONFIG` to write one.

    Each config is anonymized in memory; the table shows each config's
    requirements, whether its release was verified, each quasi-identifier's
    generalization, the suppressed records, classes, re-identification risk,
    every utility metric and the error of the same random COUNT queries on
    each release, with the best value of each comparable row marked (★).
    The utility metrics of every release are scored under one definition:
    the weights and metric settings of the first CONFIG (a metric that
    cannot be computed under it is n/a, with the reason).

    \b
    Example:
      anonset compare full-domain.yaml mondrian.yaml k-member.yaml --report compare.html
    """
    from anonset.config import load_config
    from anonset.io.outputs import atomic_write, check_output_paths, is_stdout
    from anonset.report.comparison import NO_RELEASE, comparison_rows, metric_definition, render_comparison_html

    loaded = [load_config(path) for path in configs]
    inputs: dict[str, Path | None] = {}
    for cfg in loaded:
        inputs.update({f"{k} of {cfg.path}": v for k, v in cfg.input_files().items()})
    check_output_paths({"comparison report": report_path, "comparison": json_path}, inputs)
    _require_same_table(loaded)
    from anonset.io.tables import read_arrow_table

    first = loaded[0]
    assert isinstance(first.input, FileInput)
    table = read_arrow_table(first.input.path, first.input.delimiter, first.input.format)  # once, for every config
    releases = [_measure(cfg, table) for cfg in loaded]
    threshold = 0.1
    comparison: dict[str, Any] = {
        "generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "source": first.input.location, "records": releases[0].summary["rows"],
        "labels": [r.label for r in releases], "methods": [r.summary["method"] for r in releases],
        "queries": queries, "metric_definition": metric_definition(releases),
        "rows": comparison_rows(releases, threshold, queries),
        "warnings": [list(r.warnings) for r in releases], "released": False, "note": NO_RELEASE,
    }
    if json_path is not None and is_stdout(json_path):
        click.echo(json.dumps(comparison, indent=2))
    elif json_path is not None:
        atomic_write(json_path, _text_writer(json.dumps(comparison, indent=2) + "\n"))
    if report_path is not None:
        atomic_write(report_path, _text_writer(render_comparison_html(comparison)))
    if json_path is None or not is_stdout(json_path):
        _print(comparison)


def _text_writer(text: str) -> Callable[[Path], None]:
    def _write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    return _write


def _require_same_table(configs: list[RunConfig]) -> None:
    for cfg in configs:
        if cfg.input_file is None:
            raise ConfigError(f"{cfg.path}: compare reads the input into memory; {cfg.input.location} is not a file"
                              " on this machine, so it cannot be compared")
    first = configs[0]
    table = first.input_file
    assert table is not None
    for cfg in configs:
        if cfg.input_file is None or cfg.input_file.resolve() != table.resolve():
            raise ConfigError(f"{cfg.path}: its input {cfg.input.location} is not the input {table} of"
                              f" {first.path}; compare releases of the same table")
        if cfg.quasi_columns() != first.quasi_columns():
            raise ConfigError(f"{cfg.path}: quasi-identifiers {', '.join(cfg.quasi_columns())} differ from"
                              f" {', '.join(first.quasi_columns())} of {first.path}; risk is only comparable on the"
                              " same quasi-identifiers")


def _measure(cfg: RunConfig, table: pa.Table) -> ComparedRelease:
    from anonset.core.dataset import Dataset
    from anonset.methods import registry
    from anonset.methods.base import Family
    from anonset.metrics.research_value import ResearchValue
    from anonset.report.comparison import ComparedRelease, MetricSettings, requirements_text
    from anonset.runs.base import ReleaseRequest, attribute_specs
    from anonset.runs.memory import MemoryRun

    run = MemoryRun(cfg)  # every config is compared on the records read into memory, whatever its engine
    model = run.anonymizer(ReleaseRequest())
    if registry.get(cfg.method).family is Family.FRONT and model.member_rule() is None:
        raise ConfigError(f"{cfg.path}: method {cfg.method} finds a front of releases; state a floor such as"
                          " privacy.k so that one member is compared")
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:  # a release's warnings go into its column, not after it
        warnings.simplefilter("always", AnonsetWarning)
        dataset = Dataset(table, attribute_specs(cfg), source=cfg.input.location)
        release = model.fit(dataset).release_
    summary = release.summary(seconds=time.perf_counter() - started, config=str(cfg.path))
    for w in caught:
        if not issubclass(w.category, AnonsetWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    said = [*summary.get("warnings", []), *(str(w.message) for w in caught if issubclass(w.category, AnonsetWarning))]
    research_value = cfg.metric_object if isinstance(cfg.metric_object, ResearchValue) else None
    settings = MetricSettings(weights=cfg.weights, k=cfg.requirements.k, research_value=research_value)
    return ComparedRelease(label=cfg.path.stem, summary=summary, dataset=dataset, partition=release.partition,
                           settings=settings, requirements=requirements_text(cfg.requirements, dataset.n_rows),
                           warnings=tuple(dict.fromkeys(said)))


def _print(comparison: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from anonset.report.comparison import cell_text

    table = Table(title=Text(f"comparison of releases of {comparison['source']} ({comparison['records']:,}"
                             " records); ★ best of a comparable row"))
    table.add_column("figure", style="bold")
    for label, method in zip(comparison["labels"], comparison["methods"], strict=True):
        table.add_column(Text(f"{label}\n({method})"), justify="right")
    table.add_column("better", style="dim")
    missing: dict[tuple[str, str], list[str]] = {}  # (release, reason) -> rows that are n/a for it
    for row in comparison["rows"]:
        cells = [cell_text(value) + (" ★" if i in row["best"] else "") for i, value in enumerate(row["values"])]
        better = (row["better"] or "") if row["comparable"] else "not compared"
        table.add_row(Text(row["name"]), *map(Text, cells), better)
        for label, note in zip(comparison["labels"], row["notes"], strict=True):
            if note:
                missing.setdefault((label, note), []).append(row["name"])
    console = Console()
    console.print(table)
    lines = [f"  {', '.join(names)} of {label}: {note}" for (label, note), names in missing.items()]
    said = [f"  {label}: {text}" for label, texts in zip(comparison["labels"], comparison["warnings"], strict=True)
            for text in texts]
    for line in ((["n/a:", *lines] if lines else []) + (["warnings of the releases:", *said] if said else [])
                 + [comparison["metric_definition"]["text"], comparison["note"]]):
        console.print(line, highlight=False, markup=False, soft_wrap=True)
