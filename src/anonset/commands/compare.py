"""``anonset compare``: releases of several configs on the same table, side by side, the best of each row marked.

Each config is anonymized in memory (nothing is released); the releases are
re-checked as every release is, and their risk, utility metrics and the
accuracy of one shared workload of random COUNT queries are put in one table.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from anonset.commands import user_errors
from anonset.errors import ConfigError

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
    """Put the releases of several CONFIGS of the same table side by side (nothing is released).

    Each config is anonymized in memory; the table shows the suppressed
    records, classes, re-identification risk, every utility metric and the
    error of the same random COUNT queries on each release, with the best
    value of each row marked (★).

    \b
    Example:
      anonset compare full-domain.yaml mondrian.yaml k-member.yaml --report compare.html
    """
    from anonset.config import load_config
    from anonset.io.outputs import atomic_write, check_output_paths, is_stdout
    from anonset.report.comparison import comparison_rows, render_comparison_html

    loaded = [load_config(path) for path in configs]
    inputs: dict[str, Path | None] = {}
    for cfg in loaded:
        inputs.update({f"{k} of {cfg.path}": v for k, v in cfg.input_files().items()})
    check_output_paths({"comparison report": report_path, "comparison": json_path}, inputs)
    _require_same_table(loaded)
    from anonset.io.tables import read_arrow_table

    first = loaded[0]
    assert first.input_path is not None
    table = read_arrow_table(first.input_path, first.delimiter, first.input_format)  # read once, for every config
    releases = [_measure(cfg, table, queries) for cfg in loaded]
    threshold = 0.1
    comparison: dict[str, Any] = {
        "generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "source": str(first.input_path), "records": releases[0].summary["rows"],
        "labels": [r.label for r in releases], "methods": [r.summary["method"] for r in releases],
        "queries": queries, "rows": comparison_rows(releases, threshold),
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
        if cfg.input_path is None:
            raise ConfigError(f"{cfg.path}: compare reads the input into memory; a table in PostgreSQL cannot be"
                              " compared")
    first = configs[0]
    assert first.input_path is not None
    for cfg in configs:
        if cfg.input_path is None or cfg.input_path.resolve() != first.input_path.resolve():
            raise ConfigError(f"{cfg.path}: its input {cfg.input_path} is not the input {first.input_path} of"
                              f" {first.path}; compare releases of the same table")
        if cfg.quasi_columns() != first.quasi_columns():
            raise ConfigError(f"{cfg.path}: quasi-identifiers {', '.join(cfg.quasi_columns())} differ from"
                              f" {', '.join(first.quasi_columns())} of {first.path}; risk is only comparable on the"
                              " same quasi-identifiers")


def _measure(cfg: RunConfig, table: pa.Table, queries: int) -> ComparedRelease:
    from anonset.core.dataset import Dataset
    from anonset.evaluation import query_accuracy
    from anonset.methods import registry
    from anonset.methods.base import Family
    from anonset.report.comparison import ComparedRelease

    model = cfg.anonymizer()
    if registry.get(cfg.method).family is Family.FRONT and model.member_rule() is None:
        raise ConfigError(f"{cfg.path}: method {cfg.method} finds a front of releases; state a floor such as"
                          " privacy.k so that one member is compared")
    started = time.perf_counter()
    dataset = Dataset(table, cfg.attribute_specs(), source=str(cfg.input_path))
    release = model.fit(dataset).release_
    summary = release.summary(seconds=time.perf_counter() - started, config=str(cfg.path))
    error = above = None
    if queries:
        accuracy = query_accuracy(dataset, release.partition, n_queries=queries, dimension=min(2, len(dataset.quasi)),
                                  selectivity=0.1, seed=0, threshold=0.1)
        error, above = accuracy.mean, accuracy.share_above
    return ComparedRelease(label=cfg.path.stem, summary=summary, query_error=error, queries_above=above)


def _print(comparison: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"comparison of releases of {comparison['source']} ({comparison['records']:,} records);"
                        " ★ best")
    table.add_column("figure", style="bold")
    for label, method in zip(comparison["labels"], comparison["methods"], strict=True):
        table.add_column(f"{label}\n({method})", justify="right")
    table.add_column("better", style="dim")
    for row in comparison["rows"]:
        cells = []
        for i, value in enumerate(row["values"]):
            text = "n/a" if value is None else (f"{int(value):,}" if float(value).is_integer() else f"{value:.4g}")
            cells.append(text + (" ★" if i in row["best"] else ""))
        table.add_row(row["name"], *cells, row["better"] or "")
    Console().print(table)
