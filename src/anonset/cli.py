"""The ``anonset`` command: anonymize from a YAML config, evaluate a method's recoding, measure risk, check a release.

Exit codes: 0 success; 1 the release is infeasible or (``check``) violates the
requirements; 2 bad input (one line on stderr, no traceback, nothing written).

``anonymize`` runs one of three engines (the config's ``engine``): ``numpy``
reads the file into memory; ``duckdb`` searches the file inside an embedded
DuckDB database and copies the release to ``output.path`` with DuckDB;
``postgresql`` searches a table inside PostgreSQL and writes the release into
``output.table`` of the same database, so the records never leave the server.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.table import Table

from anonset.commands import user_errors
from anonset.commands.compare import compare
from anonset.commands.compile import compile_kernels
from anonset.commands.init import init
from anonset.commands.methods import methods
from anonset.commands.report import report, report_outputs, require_reportable, run_facts, stage_reports
from anonset.errors import ConfigError, DataError
from anonset.io.outputs import atomic_write, check_output_paths, is_stdout
from anonset.methods.threads import THREADS_VARIABLE

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkFrame

    from anonset.anonymizer import Anonymizer
    from anonset.config import RunConfig
    from anonset.core.dataset import Dataset
    from anonset.engine.sql.base import TableName
    from anonset.release.release import Release
    from anonset.release.sinks import FileSink

__all__ = ["main"]

console = Console()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="anonset")
@click.option("--threads", type=click.IntRange(min=1), default=None,
              help="Threads for the parallel kernels (default: the cores that are free when a kernel starts;"
                   " also ANONSET_THREADS).")
def main(threads: int | None) -> None:
    """anonset: anonymize microdata for safe release (k-anonymity, l-diversity, t-closeness).

    \b
    New here? Three steps (docs/tutorial.md walks through them):
      anonset init patients.csv -o config.yaml       # a commented starter config from your table
      anonset anonymize config.yaml --report report.html
      then open report.html in a browser              # what was released, how safe, what it cost
    \b
    Or see a worked example first:  anonset demo --report demo-report.html
    """
    if threads is not None:
        os.environ[THREADS_VARIABLE] = str(threads)


@main.command()
@click.argument("config", type=click.Path(path_type=Path))
@click.option("--output", "-o", type=click.Path(path_type=Path),
              help="Write the release to this file ('-' for standard output; overrides output.path; not for"
                   " input.sql, which is released into output.table).")
@click.option("--summary", "summary_path", type=click.Path(path_type=Path),
              help="Write a JSON summary here ('-' for standard output).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on success but warnings.")
@click.option("--pick", type=click.IntRange(min=0), default=None,
              help="Release entry N of a research-value search's success list (default 0, the best), or member N"
                   " of a pareto method's front (as printed, sorted by the first objective).")
@click.option("--allow-unprotected", is_flag=True,
              help="Write a release even though it protects nothing (no privacy model beyond 1-anonymity, or a"
                   " 1-anonymous front member); refused otherwise.")
@click.option("--report", "reports", type=click.Path(path_type=Path), multiple=True,
              help="Write the release report here: .html for a page to hand over, .json for the same figures"
                   " (repeatable; see docs/report.md).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the JSON summary on standard output and nothing else (for scripts; as --summary - -q).")
@user_errors
def anonymize(config: Path, output: Path | None, summary_path: Path | None, quiet: bool, pick: int | None,
              allow_unprotected: bool, reports: tuple[Path, ...], as_json: bool) -> None:
    """Anonymize the table a YAML CONFIG describes (see docs/config.md).

    Every output is checked before any work (none may overwrite an input or
    land in a folder that does not exist) and written only once the release
    has passed the independent re-check and every output is ready.  A pareto
    method without --pick or a floor (privacy.k) prints its front and
    releases nothing.  Progress bars show on a terminal for steps that take
    more than a second (never on a pipe, nor with --quiet).

    \b
    Examples:
      anonset init patients.csv -o config.yaml     # a commented starter config
      anonset anonymize config.yaml --report report.html
      anonset anonymize config.yaml --json > summary.json
    """
    from anonset.config import load_config
    from anonset.methods import registry
    from anonset.methods.base import Family
    from anonset.progress import terminal_progress
    from anonset.release.sinks import FileSink

    started = time.perf_counter()
    if as_json:
        if summary_path is not None:
            raise ConfigError("--json prints the summary on standard output; drop --summary or --json")
        summary_path, quiet = Path("-"), True
    cfg = load_config(config)  # checked before any table library is loaded
    if output is not None and cfg.sql is not None:
        raise ConfigError(f"{cfg.path}: --output names a file, but a table in PostgreSQL (input.sql) is released"
                          " into output.table of the same database; set output.table in the config")
    target = output or cfg.output_path
    require_reportable(cfg, reports)
    spark_output = (str(output) if output is not None else cfg.output_location) if cfg.engine == "spark" else None
    files = FileSink({"release": None if spark_output else target, "summary": summary_path,
                      **report_outputs(reports)}, cfg.input_files())
    files.check()
    model = _anonymizer(cfg, pick, allow_unprotected, output)
    out = _console(target, summary_path)
    with terminal_progress(enabled=not quiet):
        if registry.get(model.method).family is Family.FRONT and model.member_rule() is None:
            _explore_front(cfg, model, files, quiet, out)
            return
        with files:
            if cfg.engine == "numpy":
                release, summary, dataset = _anonymize_in_memory(cfg, model, files, started)
            elif spark_output is not None:
                release, summary, dataset = _anonymize_on_spark(cfg, model, files, spark_output, started)
            else:
                release, summary, dataset = _anonymize_in_database(cfg, model, files, started)
    if target is None and cfg.sql is None and spark_output is None:
        click.echo("note: no output path (output.path in the config, or --output): the release was not written",
                   err=True)
    if not quiet:
        _print_summary(summary, out, dataset)
        if "success_list" in summary:
            _print_success_list(summary["success_list"], pick or 0, out)
        if "front" in summary:
            _print_front(summary, summary["search"]["picked"], out)
        for path in reports:
            out.print(f"report written to {path}")


def _anonymize_in_memory(cfg: RunConfig, model: Anonymizer, files: FileSink,
                         started: float) -> tuple[Release, dict[str, Any], Dataset]:
    """Read the input, anonymize it, stage the release, its summary and its reports, and place them all."""
    from anonset.io.tables import table_writer
    from anonset.release.sinks import FileOutput

    target = files.outputs.get("release")
    dataset, read_seconds = _load_in_memory(cfg)
    release = model.fit(dataset).release_.timed(load=read_seconds, encode=dataset.encode_seconds)
    if target is not None:
        assert release.table is not None
        writing = time.perf_counter()
        files.stage(FileOutput(target, table_writer(release.table, target, delimiter=cfg.release_delimiter())))
        release = release.timed(write=time.perf_counter() - writing)
    release = release.written_to(files.location)

    def report_on(summary: dict[str, Any]) -> None:
        assert release.table is not None
        stage_reports(files, dataset, release.table, cfg.requirements, summary, partition=release.partition,
                      run=run_facts(cfg, release.location), workload=cfg.evaluation)

    return release, _place(files, release, cfg, started, report_on), dataset


def _load_in_memory(cfg: RunConfig) -> tuple[Dataset, float]:
    """The run's dataset (its input file read into Arrow, see :meth:`RunConfig.load_dataset`), and the seconds
    reading took: the hierarchy files and the table; the rest is encoding.
    """
    started = time.perf_counter()
    dataset = cfg.load_dataset()
    return dataset, time.perf_counter() - started - dataset.encode_seconds


def _console(*outputs: Path | None) -> Console:
    """Where the human-readable report goes: standard error when an output goes to standard output."""
    return Console(stderr=True) if any(is_stdout(o) for o in outputs) else console


def _place(files: FileSink, release: Release, cfg: RunConfig, started: float,
           report_on: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Stage the summary of ``release`` (when asked for) and its reports, verify and place every output file.

    ``report_on`` stages the reports of the run's summary.  The summary is returned.
    """
    from anonset.release.sinks import FileOutput

    summary = release.summary(seconds=time.perf_counter() - started, config=str(cfg.path))
    if report_on is not None:
        report_on(summary)
    summary_path = files.outputs.get("summary")
    if summary_path is not None:
        files.stage(FileOutput(summary_path, _json_writer(summary)))
    files.verify()
    files.place()
    return summary


def _explore_front(cfg: RunConfig, model: Anonymizer, files: FileSink, quiet: bool, out: Console) -> None:
    """A pareto method with neither --pick nor a floor: print (and summarize) the front, release nothing."""
    from anonset.release.facts import front_summary
    from anonset.release.sinks import FileOutput

    summary_path = files.outputs.get("summary")
    if files.outputs.get("release") is not None or cfg.sql is not None or files.outputs.get("report") is not None:
        raise ConfigError(f"{cfg.path}: method {cfg.method} finds a front of releases and writes one only when told"
                          " which: give --pick N or a floor such as privacy.k (run it without an output first to"
                          " see the front)")
    if cfg.engine != "numpy":
        raise ConfigError(f"{cfg.path}: looking at the front of method {cfg.method} without releasing a member needs"
                          " the records in memory (engine: numpy); with engine: " + cfg.engine + " give --pick N or"
                          " a floor such as privacy.k")
    result = model.front(cfg.load_dataset())
    summary = front_summary(cfg.method, result)
    if summary_path is not None:
        with files:
            files.stage(FileOutput(summary_path, _json_writer(summary)))
            files.verify()
            files.place()
    click.echo("note: no member released: give --pick N (a member below) or a floor such as privacy.k, and an"
               " output", err=True)
    if not quiet:
        search = {"objectives": summary["objectives"], "nodes_evaluated": result.nodes_evaluated,
                  "lattice_size": result.lattice_size}
        _print_front({"front": summary["front"], "search": search}, None, out)


def _json_writer(summary: dict[str, Any]) -> Callable[[Path], None]:
    """A writer of a summary as JSON."""
    text = json.dumps(summary, indent=2) + "\n"

    def _write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    return _write


#: The table a DuckDB run releases into, inside its own in-memory database.
DUCKDB_RELEASE_TABLE = "anonset_release"


def _anonymizer(cfg: RunConfig, pick: int | None, allow_unprotected: bool, output: Path | None = None) -> Anonymizer:
    """The Anonymizer a config describes (a DuckDB run releases into a table of its own in-memory database; a
    Spark run into its output folder, ``output`` when --output overrides the config's)."""
    output_table: TableName | None = None
    if cfg.sql is not None:
        output_table = cfg.output_table
    elif cfg.engine == "duckdb":
        output_table = DUCKDB_RELEASE_TABLE
    elif cfg.engine == "spark":
        output_table = str(output) if output is not None else cfg.output_location
    return cfg.anonymizer(pick, allow_unprotected, output_table)


def _anonymize_on_spark(cfg: RunConfig, model: Anonymizer, files: FileSink, output: str,
                        started: float) -> tuple[Release, dict[str, Any], Dataset]:
    """Read and profile the input on Spark, search on the driver, write and re-check the release on Spark.

    Stages: ``load`` is the session's start and reading; ``search``
    includes the Spark jobs that count the bottom class table (whose
    marginals are the profile).
    The release goes to ``output`` (a folder Spark writes, refused when it
    exists), and is deleted again when the summary cannot be written.  The
    release, the summary and the dataset.
    """
    from anonset.engine.spark.engine import SparkEngine
    from anonset.engine.spark.session import spark_session
    from anonset.engine.spark.source import count_frame, read_frame
    from anonset.io.delimiters import sniff_delimiter
    from anonset.methods import registry
    from anonset.release.spark_mondrian import DISTRIBUTED_METHODS, check_distributable

    assert cfg.spark is not None
    if registry.get(model.method).in_memory:  # only Mondrian runs distributed: refused before Spark starts
        check_distributable(model.requirements, model.method)
    local = None if "://" in output else Path(output)
    if local is not None and (local.exists() or not local.parent.is_dir()):  # refused before Spark starts
        raise DataError(f"{output}: already exists; anonset never writes over a release: choose another output path"
                        " or remove it" if local.exists() else
                        f"{output}: folder {local.parent} does not exist; create it first or correct output.path")
    loading = time.perf_counter()
    spark = spark_session(cfg.spark.master, timeout=cfg.spark.timeout, options=cfg.spark.options)
    delimiter = cfg.delimiter
    if delimiter is None and cfg.input_path is not None and cfg.input_path.is_file() and cfg.input_format != "parquet":
        delimiter = sniff_delimiter(cfg.input_path)
    frame = read_frame(spark, path=None if cfg.spark_table else cfg.input_location, table=cfg.spark_table,
                       delimiter=delimiter, fmt=cfg.input_format)
    if model.method in DISTRIBUTED_METHODS:
        return _mondrian_on_spark(cfg, model, files, frame, output, cfg.output_delimiter or delimiter or ",",
                                  loading, started)
    started_search = time.perf_counter()  # the counting job is the search's class table; the profile comes with it
    counts = count_frame(frame, cfg.attribute_specs(), cfg.requirements.request, cfg.input_location)
    dataset = counts.dataset
    counted = time.perf_counter() - started_search - dataset.encode_seconds
    load_seconds = started_search - loading
    cfg.requirements.validate(dataset)
    release_delimiter = cfg.output_delimiter or delimiter or ","
    with SparkEngine(counts, cfg.requirements.request, frame, source=cfg.input_location,
                     output_delimiter=release_delimiter) as engine:
        release = model.fit(dataset, engine=engine).release_
    release = release.timed(load=load_seconds, encode=dataset.encode_seconds,
                            search=release.stages.search + counted)
    try:
        summary = _place(files, release, cfg, started)
    except DataError:
        if model.sink_ is not None:
            model.sink_.discard()  # a release whose summary could not be written does not stay
        raise
    return release, summary, dataset


def _mondrian_on_spark(cfg: RunConfig, model: Anonymizer, files: FileSink, frame: SparkFrame, output: str,
                       delimiter: str, loading: float, started: float) -> tuple[Release, dict[str, Any], Dataset]:
    """Distributed Mondrian (:mod:`anonset.release.spark_mondrian`): the dataset from value counts, first cuts on
    the driver, Mondrian per fragment on the workers, the release written and re-checked by Spark.

    Stages: ``load`` is the session's start, reading and the value counts.  The release is deleted again when
    the summary cannot be written.
    """
    from anonset.engine.spark.source import dataset_from_frame
    from anonset.release.spark_mondrian import release_mondrian_on_spark

    dataset = dataset_from_frame(frame, cfg.attribute_specs(), cfg.input_location)
    load_seconds = time.perf_counter() - loading - dataset.encode_seconds
    cfg.requirements.validate(dataset)
    release, placed = release_mondrian_on_spark(frame, dataset, model, output, delimiter=delimiter,
                                                input_location=cfg.input_location)
    release = release.timed(load=load_seconds, encode=dataset.encode_seconds)
    try:
        summary = _place(files, release, cfg, started)
    except DataError:
        placed.discard()  # a release whose summary could not be written does not stay
        raise
    return release, summary, dataset


def _anonymize_in_database(cfg: RunConfig, model: Anonymizer, files: FileSink,
                           started: float) -> tuple[Release, dict[str, Any], Dataset]:
    """Profile, search, write and re-check inside the database (PostgreSQL, or DuckDB over the input file).

    PostgreSQL: the release becomes ``output.table``, refused before any
    work when it may not be written (through its sink), and dropped again
    when the summary cannot be written (unless it replaced a table).
    DuckDB: the release is written into a table of the in-memory database
    and copied from there into a staged file for the release output, when
    there is one.  The release, the summary and the dataset.
    """
    from anonset.engine.sql.engine import SqlEngine
    from anonset.release.database import DatabaseSink
    from anonset.release.release import table_copier
    from anonset.release.sinks import FileOutput

    backend = cfg.connect()
    try:
        if cfg.sql is not None:
            assert cfg.output_table is not None
            DatabaseSink(backend, cfg.output_table, replace=cfg.output_replace, source=cfg.source_table).check()
        profiling = time.perf_counter()
        dataset = cfg.load_dataset(backend)
        profile_seconds = time.perf_counter() - profiling - dataset.encode_seconds
        cfg.requirements.validate(dataset)  # before the engine scans the table
        with SqlEngine(dataset, cfg.requirements.request, backend, cfg.source_table) as engine:
            release = model.fit(dataset, engine=engine).release_
        release = release.timed(load=profile_seconds, encode=dataset.encode_seconds)
        target = files.outputs.get("release")
        if cfg.sql is None:
            release = release.written_to(files.location)
            if target is not None:
                writing = time.perf_counter()
                files.stage(FileOutput(target, table_copier(backend, DUCKDB_RELEASE_TABLE, target,
                                                            delimiter=cfg.release_delimiter())))
                release = release.timed(write=release.stages.write + time.perf_counter() - writing)
        try:
            summary = _place(files, release, cfg, started)
        except DataError:
            if model.sink_ is not None:
                model.sink_.discard()  # a new table whose summary could not be written does not stay
            raise
    finally:
        backend.close()
    return release, summary, dataset


@main.command()
@click.argument("config", type=click.Path(path_type=Path))
@click.option("--release", "release_path", type=click.Path(path_type=Path),
              help="Measure this released file (read with the config's delimiter) instead of the config's input.")
@click.option("--sampling-fraction", type=float, help="The table is this fraction of the population (0, 1].")
@click.option("--population-size", type=float, help="Records in the population the table was drawn from.")
@click.option("--threshold", "thresholds", type=float, multiple=True,
              help="Report the records whose risk 1/class size is above it (repeatable; default 0.5 0.2 0.1 0.05).")
@click.option("--population-table", "population_path", type=click.Path(path_type=Path),
              help="A file of the population the input was drawn from (same quasi-identifier columns): adds the"
                   " journalist risk.")
@click.option("--json", "json_path", type=click.Path(path_type=Path), help="Write the report here ('-': stdout).")
@user_errors
def risk(config: Path, release_path: Path | None, sampling_fraction: float | None, population_size: float | None,
         thresholds: tuple[float, ...], population_path: Path | None, json_path: Path | None) -> None:
    """Re-identification risk of CONFIG's table, or of a released file, without anonymizing (see docs/risk.md).

    Classes are the records' values on the config's quasi-identifiers;
    suppressed records of a release (every quasi-identifier ``*``) are left
    out of every figure and counted as excluded.  With --sampling-fraction or
    --population-size the population-uniqueness models are estimated too.

    \b
    Examples:
      anonset risk config.yaml                                  # the input's risk
      anonset risk config.yaml --release released.csv --sampling-fraction 0.1
    """
    from functools import partial

    import numpy as np

    from anonset.config import load_config
    from anonset.risk.population import check_population
    from anonset.risk.report import risk_report
    from anonset.risk.sample import DEFAULT_THRESHOLDS

    if sampling_fraction is not None and population_size is not None:
        raise ConfigError("give --sampling-fraction or --population-size, not both")
    population = partial(check_population, sampling_fraction=sampling_fraction, population_size=population_size,
                         fraction_name="--sampling-fraction", size_name="--population-size", whole=True)
    if sampling_fraction is not None or population_size is not None:
        population(None)  # what a table of any size refuses, before reading it
    for threshold in thresholds:
        if not 0 < threshold <= 1:
            raise ConfigError(f"--threshold {threshold:g}: a risk threshold must be in (0, 1] (a record's risk is"
                              " 1 / its class size)")
    cfg = load_config(config)
    check_output_paths({"report": json_path},
                       {**cfg.input_files(), "release": release_path, "population": population_path})
    population_sizes = None
    if population_path is not None:
        if release_path is not None or cfg.engine != "numpy":
            raise ConfigError("--population-table measures the input of a config read into memory (engine: numpy);"
                              " a release's classes are generalized and the population's are not")
        sizes, population_sizes, source = _journalist_class_sizes(cfg, population_path)
        excluded = 0
    elif release_path is not None:
        sizes, excluded, source = _released_class_sizes(cfg, release_path)
    else:
        sizes, excluded, source = _input_class_sizes(cfg)
    records = int(np.asarray(sizes).sum()) + excluded
    if sampling_fraction is not None or population_size is not None:
        population(records)
    report = {"source": source, **risk_report(sizes, records_excluded=excluded,
                                               thresholds=thresholds or DEFAULT_THRESHOLDS,
                                               sampling_fraction=sampling_fraction, population_size=population_size,
                                               population_sizes=population_sizes)}
    if json_path is not None:
        if is_stdout(json_path):
            click.echo(json.dumps(report, indent=2))
            return
        atomic_write(json_path, _json_writer(report))
    out = console
    out.print(f"[bold]risk[/bold] of {source}: {report['records']:,} records in {report['classes']:,} classes"
              f" ({report['records_excluded']:,} suppressed left out)")
    out.print(f"highest risk {report['highest_risk']:.4g} ({report['records_at_highest_risk']:.2%} of records),"
              f" average risk {report['average_risk']:.4g}, sample uniques {report['sample_uniques']:.2%}")
    for threshold, share in report["records_above"].items():
        out.print(f"records with risk above {threshold}: {share:.2%}")
    population = report["population_uniques"]
    if population is not None:
        models = ", ".join(f"{m} {'n/a' if population[m] is None else format(population[m], '.4g')}"
                           for m in ("pitman", "zayatz", "snb"))
        chosen = population["chosen"]
        out.print(f"population uniques ({models}); decision rule: {population['chosen_model']}"
                  + ("" if chosen is None else f" {chosen:.4g}"))
    journalist = report.get("journalist_risk")
    if journalist is not None:
        out.print(f"journalist risk against the population: highest {journalist['highest']:.4g},"
                  f" average {journalist['average']:.4g}")


def _input_class_sizes(cfg: RunConfig) -> tuple[Any, int, str]:
    """Class sizes of the config's input on its quasi-identifiers (in memory, or counted by the database)."""
    from anonset.risk.report import class_sizes_of_codes

    if cfg.engine == "numpy":
        dataset = cfg.load_dataset()
        if not dataset.quasi:
            raise ConfigError(f"{cfg.path}: no attribute has role quasi, so there are no classes to measure")
        return class_sizes_of_codes(dataset.qi_codes()), 0, dataset.source
    from anonset.engine.sql.engine import SqlEngine

    backend = cfg.connect()
    try:
        dataset = cfg.load_dataset(backend)
        with SqlEngine(dataset, None, backend, cfg.source_table) as engine:
            stats = engine.class_stats(tuple(0 for _ in dataset.quasi))
        return stats.sizes, 0, dataset.source
    finally:
        backend.close()


def _journalist_class_sizes(cfg: RunConfig, population_path: Path) -> tuple[Any, Any, str]:
    """The input's class sizes and, aligned with them, the sizes of the same classes in a population file."""
    from anonset.io.tables import read_table

    assert cfg.input_path is not None
    quasi = cfg.quasi_columns()
    sample = read_table(cfg.input_path, cfg.delimiter, cfg.input_format)
    population = read_table(population_path)
    missing = [q for q in quasi if q not in population.columns]
    if missing:
        raise DataError(f"{population_path}: quasi-identifier column {missing[0]!r} is not in the population"
                        f" table; columns are {', '.join(map(str, population.columns))}")
    if len(population) < len(sample):
        raise DataError(f"{population_path}: the population has {len(population)} records, fewer than the"
                        f" {len(sample)} of the sample {cfg.input_path}; give the population it was drawn from")
    sample_sizes = sample[quasi].astype(str).groupby(quasi, sort=False).size()
    population_sizes = population[quasi].astype(str).groupby(quasi, sort=False).size()
    aligned = population_sizes.reindex(sample_sizes.index)
    if aligned.isna().any():
        raise DataError(f"{population_path}: {int(aligned.isna().sum())} class(es) of the sample do not occur in the"
                        " population table; give the population the sample was drawn from")
    return sample_sizes.to_numpy(), aligned.to_numpy().astype("int64"), str(cfg.input_path)


def _released_class_sizes(cfg: RunConfig, path: Path) -> tuple[Any, int, str]:
    """Class sizes of a released file on the config's quasi-identifiers; all-``*`` records are suppressed."""
    from anonset.io.tables import read_table
    from anonset.release.release import SUPPRESSED

    table = read_table(path, cfg.release_delimiter())
    quasi = cfg.quasi_columns()
    missing = [q for q in quasi if q not in table.columns]
    if missing:
        raise DataError(f"{path}: column {missing[0]!r} of the config's quasi-identifiers is not in the release;"
                        f" columns are {', '.join(map(str, table.columns))}: give the release made with this config")
    values = table[quasi].astype(str)
    suppressed = (values == SUPPRESSED).all(axis=1)
    kept = values[~suppressed]
    if kept.empty:
        raise DataError(f"{path}: every record is suppressed, so no class is left to measure")
    sizes = kept.groupby(quasi, sort=False, dropna=False).size().to_numpy()
    return sizes, int(suppressed.sum()), str(path)


@main.command()
@click.argument("config", type=click.Path(path_type=Path))
@click.option("--summary", "summary_path", type=click.Path(path_type=Path),
              help="Write a JSON summary here ('-' for standard output).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on success.")
@user_errors
def evaluate(config: Path, summary_path: Path | None, quiet: bool) -> None:
    """Train/test evaluation of CONFIG's method (see docs/workload_aware.md): the recoding is learned on
    training records only and applied to test records; models trained on the recoded records are scored
    against the same models on the original ones.  With evaluation.queries or evaluation.patterns the method
    is also fitted on all records and its release put through the aggregate-query and pattern-survival checks
    (docs/utility.md).  Nothing is released.

    \b
    Example:
      anonset evaluate mondrian-infogain.yaml --summary evaluation.json
    """
    from anonset.config import load_config
    from anonset.evaluation import evaluate as run_evaluation
    from anonset.progress import terminal_progress

    cfg = load_config(config)
    checks = {key: cfg.evaluation[key] for key in _UTILITY_CHECKS if key in cfg.evaluation}
    if cfg.engine != "numpy":
        if checks:
            raise ConfigError(f"{cfg.path}: the utility checks ({', '.join(f'evaluation.{k}' for k in checks)}) need"
                              f" the records in memory and engine {cfg.engine} keeps them in the database;"
                              " set engine: numpy")
        raise ConfigError(f"{cfg.path}: evaluation runs in memory; set engine: numpy")
    check_output_paths({"summary": summary_path}, cfg.input_files())  # before any work is done
    out = _console(summary_path)
    options = {key: value for key, value in cfg.evaluation.items() if key not in _UTILITY_CHECKS}
    summary: dict[str, Any] = {}
    with terminal_progress(enabled=not quiet):
        dataset = cfg.load_dataset()
        if _runs_protocol(cfg, options, bool(checks)):
            if "folds" not in options and "test_fraction" not in options:
                options["folds"] = 10
            result = run_evaluation(dataset, requirements=cfg.requirements, method=cfg.method,
                                    method_options=cfg.method_options, weights=cfg.weights, seed=cfg.seed, **options)
            summary = result.summary()
        if checks:
            summary.update(_utility_figures(cfg, dataset, checks))
    if summary_path is not None:
        atomic_write(summary_path, _json_writer(summary))
    if quiet:
        return
    if "models" in summary:
        _print_protocol(summary, out)
    if checks:
        _print_utility(summary, out)


#: The ``evaluation`` keys that ask for checks of a release fitted on all records (docs/utility.md).
_UTILITY_CHECKS = ("queries", "patterns")


def _runs_protocol(cfg: RunConfig, options: dict[str, Any], checks: bool) -> bool:
    """The train/test protocol runs without utility checks (as always), or beside them when it has a label.

    A label: ``evaluation.target`` or a column with role target; any other protocol key (models, folds, ...)
    also asks for the protocol (which then names the missing label itself).
    """
    if not checks or options:
        return True
    return any(entry.get("role") == "target" for entry in cfg.attributes.values())


def _utility_figures(cfg: RunConfig, dataset: Any, checks: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Fit the config's method on all records; the query-accuracy and pattern-survival figures of its release."""
    from anonset.evaluation import pattern_survival, query_accuracy
    from anonset.methods import registry
    from anonset.methods.base import Family

    model = _anonymizer(cfg, None, False)
    if registry.get(cfg.method).family is Family.FRONT and model.member_rule() is None:
        raise ConfigError(f"{cfg.path}: method {cfg.method} finds a front of releases and the utility checks need"
                          " one release; state a floor such as privacy.k")
    partition = model.fit(dataset).release_.partition
    figures: dict[str, Any] = {"release": {"method": cfg.method, "records": int(partition.n_rows),
                                           "classes": int(partition.n_classes),
                                           "suppressed": int(partition.n_suppressed)}}
    q = checks.get("queries")
    if q is not None:
        accuracy = query_accuracy(dataset, partition, n_queries=q["count"], dimension=q["dimension"],
                                  selectivity=q["selectivity"], seed=q["seed"], threshold=q["threshold"])
        figures["queries"] = {**accuracy.summary(), "dimension": q["dimension"], "selectivity": q["selectivity"],
                              "seed": q["seed"], "threshold": q["threshold"]}
    p = checks.get("patterns")
    if p is not None:
        survival = pattern_survival(dataset, partition, p["target"], task=p["task"],
                                    test_fraction=p["test_fraction"], depth=p["depth"], seed=p["seed"])
        figures["patterns"] = {**survival.summary(), "target": p["target"], "test_fraction": p["test_fraction"],
                               "depth": p["depth"], "seed": p["seed"]}
    return figures


def _print_protocol(summary: dict[str, Any], out: Console) -> None:
    """The train/test protocol's table and partition statistics."""
    table = Table(title=f"{summary['method']}: {summary['score'].replace('_', ' ')} over {summary['splits']}"
                        f" split(s), label {summary['target']}")
    table.add_column("model")
    table.add_column("anonymized", justify="right")
    table.add_column("original", justify="right")
    for name, scores in summary["models"].items():
        table.add_row(name, f"{scores['anonymized']:.4f}", f"{scores['original']:.4f}")
    out.print(table)
    for key in ("classes", "average_class_size", "conditional_entropy", "imprecision", "test_unplaced"):
        if key in summary:
            out.print(f"{key.replace('_', ' ')}: {summary[key]:.4g}")


def _print_utility(summary: dict[str, Any], out: Console) -> None:
    """The utility checks of the release fitted on all records."""
    release = summary["release"]
    out.print(f"release of all {release['records']} records ({release['method']}): {release['classes']} classes,"
              f" {release['suppressed']} suppressed")
    q = summary.get("queries")
    if q is not None:
        above = q[f"share_above_{q['threshold']:g}"]
        out.print(f"queries: {q['queries']} (dimension {q['dimension']}, selectivity {q['selectivity']:g}): mean"
                  f" relative error {q['mean_relative_error']:.4g}, median {q['median_relative_error']:.4g},"
                  f" {above:.1%} above {q['threshold']:g}")
    p = summary.get("patterns")
    if p is not None:
        out.print(f"patterns (label {p['target']}, {p['score'].replace('_', ' ')} on held-out raw records):"
                  f" release tree {p['release']:.4f}, raw tree {p['raw']:.4f}; top-split overlap {p['overlap']:.2f}")
        out.print(f"  release splits: {', '.join(p['release_splits']) or 'none'}")
        out.print(f"  raw splits:     {', '.join(p['raw_splits']) or 'none'}")


@main.command()
@click.argument("data", type=click.Path(path_type=Path))
@click.option("--quasi", required=True, help="Comma-separated quasi-identifier columns.")
@click.option("-k", "k", type=int, required=True, help="Minimum class size.")
@click.option("--sensitive", help="Sensitive column of --l, --t or --squared-error (never one of --quasi).")
@click.option("--l", "l_value", type=float, help="l of l-diversity (needs --sensitive).")
@click.option("--variant", type=click.Choice(["distinct", "entropy", "recursive"]), default="distinct",
              show_default=True, help="l-diversity variant.")
@click.option("--c", "c_value", type=float, help="c of recursive (c, l)-diversity.")
@click.option("--t", "t_value", type=float,
              help="t of t-closeness (needs --sensitive); the reference is the sensitive column of DATA.")
@click.option("--distance", type=click.Choice(["equal", "ordered", "hierarchical"]), default="equal",
              show_default=True, help="t-closeness ground distance (ordered: numbers or --order;"
                                      " hierarchical: --hierarchy).")
@click.option("--order", help="Comma-separated values of the sensitive column in order (ordered distance).")
@click.option("--hierarchy", type=click.Path(path_type=Path),
              help="Hierarchy file of the sensitive column (hierarchical distance).")
@click.option("--squared-error", type=float,
              help="Squared-error diversity: least sum of squared deviations of the numeric sensitive column.")
@click.option("--max-suppression", type=float, default=0.0, show_default=True,
              help="Fraction of the input's records that may be suppressed. Records whose quasi-identifiers are"
                   " all '*' count as suppressed when they fit it and other records are released; otherwise"
                   " they are a class of their own.")
@click.option("--input-records", type=int,
              help="Records in the input, when the release dropped its suppressed records (they count as"
                   " suppressed).")
@click.option("--delimiter", help="CSV delimiter (sniffed when omitted).")
@user_errors
def check(data: Path, quasi: str, k: int, sensitive: str | None, l_value: float | None, variant: str,
          c_value: float | None, t_value: float | None, distance: str, order: str | None, hierarchy: Path | None,
          squared_error: float | None, max_suppression: float, input_records: int | None,
          delimiter: str | None) -> None:
    """Verify that an existing release DATA satisfies k-anonymity (and l-diversity, t-closeness, ...).

    Classes are recomputed from the released quasi-identifier values. Given
    the run's budget (--max-suppression) and, when the run dropped its
    suppressed records, --input-records, the figures are those of the summary
    of the anonymize run that wrote DATA.

    \b
    Example:
      anonset check released.csv --quasi age,sex,zip -k 5 --sensitive diagnosis --l 3 --max-suppression 0.01
    """
    from anonset.core.dataset import Dataset
    from anonset.io.delimiters import check_delimiter
    from anonset.io.tables import read_table
    from anonset.privacy import (
        KAnonymity,
        PrivacyModel,
        Requirements,
        SquaredErrorDiversity,
        TCloseness,
    )
    from anonset.privacy.ldiversity import l_diversity
    from anonset.release.verify import verify_release

    names = list(dict.fromkeys(q.strip() for q in quasi.split(",") if q.strip()))
    if not names:
        raise ConfigError("--quasi names no column; give the released quasi-identifier columns, comma-separated")
    if sensitive in names:
        raise ConfigError(f"{sensitive!r} is in --quasi and --sensitive; a column is either a quasi-identifier"
                          " (an attacker may know it) or sensitive (an attacker must not learn it): name it once")
    wanted = {"--l": l_value, "--t": t_value, "--squared-error": squared_error}
    given = [flag for flag, value in wanted.items() if value is not None]
    if given and not sensitive:
        raise ConfigError(f"{given[0]} needs --sensitive COLUMN")
    if sensitive and not given:
        raise ConfigError(f"--sensitive {sensitive} is checked by nothing; add --l, --t or --squared-error")
    if t_value is not None and input_records is not None:
        raise ConfigError("--t compares with the sensitive column of DATA, which lacks the dropped records; check"
                          " t-closeness on a release that marks suppressed records (output suppressed: mark)")
    if input_records is not None and input_records < 1:
        raise ConfigError(f"--input-records {input_records}: the input's records must be a whole number >= 1; give"
                          " the records of the table the release was made from")
    if delimiter is not None:
        check_delimiter(delimiter, "--delimiter")
    table = read_table(data, delimiter)
    if input_records is not None and input_records < len(table):
        raise ConfigError(f"--input-records {input_records}: fewer than the {len(table):,} records of {data}; give the"
                          " records of the input the release was made from (its records and the suppressed ones it"
                          " dropped)")
    attrs: dict[str, dict[str, Any]] = {q: {"role": "quasi"} for q in names}
    models: list[PrivacyModel] = [KAnonymity(k)]
    if sensitive:
        spec: dict[str, Any] = {"role": "sensitive"}
        if order:
            spec.update(type="ordinal", order=[v.strip() for v in order.split(",")])
        elif squared_error is not None or (t_value is not None and distance == "ordered"):
            spec["type"] = "numeric"
        if hierarchy is not None:
            spec["hierarchy"] = str(hierarchy)
        attrs[sensitive] = spec
    if l_value is not None:
        models.append(l_diversity(str(sensitive), l_value, variant, c_value))
    if t_value is not None:
        models.append(TCloseness(str(sensitive), t_value, distance))
    if squared_error is not None:
        models.append(SquaredErrorDiversity(str(sensitive), squared_error))
    dataset = Dataset(table, attrs, source=str(data))
    requirements = Requirements(models, max_suppression)
    requirements.validate(dataset)
    report = verify_release(table, dataset, requirements, input_records)
    click.echo(f"records: {len(table)}")
    click.echo(f"classes: {report.classes}")
    click.echo(f"smallest class: {report.min_class_size}")
    click.echo(f"records in violating classes: {report.violating_rows}")
    click.echo(f"suppressed records (all quasi-identifiers '*'): {report.suppressed_rows}")
    if 0 < report.root_class_rows < len(table):
        click.echo(f"note: the {report.root_class_rows} records whose quasi-identifiers are all '*' are judged as a"
                   " class (they exceed --max-suppression); if they are suppressed records, give the run's budget")
    if report.ok:
        click.echo(f"satisfied: {requirements.describe()}")
        return
    for problem in report.problems:
        click.echo(f"violated: {problem}")
    sys.exit(1)


@main.command()
@click.option("--rows", type=int, default=10_000, show_default=True, help="Records to generate.")
@click.option("--seed", type=int, default=0, show_default=True, help="Generator seed.")
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the release here ('-' for standard"
              " output).")
@click.option("--report", "reports", type=click.Path(path_type=Path), multiple=True,
              help="Write the release report here (.html or .json; repeatable).")
@click.option("--save-table", type=click.Path(path_type=Path),
              help="Also write the generated records, before anonymization, to this CSV file (to try anonset init"
                   " and anonymize on them).")
@user_errors
def demo(rows: int, seed: int, output: Path | None, reports: tuple[Path, ...], save_table: Path | None) -> None:
    """Generate the built-in synthetic patient register and anonymize it (5-anonymity, entropy 3-diversity).

    \b
    Examples:
      anonset demo --report demo-report.html      # then open demo-report.html in a browser
      anonset demo --rows 20000 --save-table patients.csv -o patients-anonymized.csv
    """
    from anonset.anonymizer import Anonymizer
    from anonset.datasets import patient_register_dataset
    from anonset.io.tables import table_writer
    from anonset.privacy import EntropyLDiversity, KAnonymity, Requirements
    from anonset.progress import terminal_progress
    from anonset.release.sinks import FileOutput, FileSink

    started = time.perf_counter()
    files = FileSink({"release": output, "generated table": save_table, **report_outputs(reports)})
    files.check()
    out = _console(output)
    dataset = patient_register_dataset(rows, seed)
    requirements = Requirements([KAnonymity(5), EntropyLDiversity("diagnosis", 3)], max_suppression=0.02)
    out.print(f"[bold]anonset demo[/bold]: {rows:,} synthetic patients (seed {seed}), "
              f"quasi-identifiers {', '.join(dataset.quasi)}; sensitive: diagnosis")
    out.print(f"requirements: {requirements.describe()}; method: optimal full-domain search, metric: loss")
    with terminal_progress():
        release = Anonymizer({}, requirements, seed=seed).fit(dataset).release_.timed(encode=dataset.encode_seconds)
    table = release.table
    assert table is not None
    with files:
        if output is not None:
            writing = time.perf_counter()
            files.stage(FileOutput(output, table_writer(table, output)))
            release = release.timed(write=time.perf_counter() - writing)
        if save_table is not None:
            assert dataset.table is not None
            files.stage(FileOutput(save_table, table_writer(dataset.table, save_table)))
        release = release.written_to(files.location)
        summary = release.summary(seconds=time.perf_counter() - started)
        stage_reports(files, dataset, table, requirements, summary, partition=release.partition,
                      run={"release": release.location})
        files.verify()
        files.place()
    _print_summary(summary, out, dataset)
    out.print("first released records:")
    out.print(table.head(8).to_string(index=False), highlight=False, markup=False, soft_wrap=True)
    for path in reports:
        out.print(f"report written to {path}: open it in a browser")
    if not reports:
        out.print("anonset demo --report demo-report.html writes a report that explains this release")


def _print_success_list(entries: list[dict[str, Any]], picked: int, out: Console, shown: int = 10) -> None:
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


def _print_front(summary: dict[str, Any], picked: int | None, out: Console) -> None:
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


def _print_summary(summary: dict[str, Any], out: Console, dataset: Dataset | None = None) -> None:
    """The release summary as a table: every figure with what it means and which way is better."""
    from anonset.metrics.descriptions import describe_metric

    table = Table(title="release summary", show_header=False)
    table.add_column("item", style="bold")
    table.add_column("value")
    table.add_column("meaning", style="dim")
    table.add_row("method", str(summary["method"]), "")
    table.add_row("engine", str(summary.get("engine", "numpy")), "")
    if summary.get("levels"):
        table.add_row("levels", _levels_text(summary["levels"], dataset),
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


def _levels_text(levels: dict[str, int], dataset: Dataset | None) -> str:
    """``age 2 of 4, sex 0 of 1`` (the top level of each hierarchy from the dataset, when there is one)."""
    parts = []
    for name, level in levels.items():
        h = dataset.hierarchy(name) if dataset is not None else None
        parts.append(f"{name} {level}" + ("" if h is None else f" of {h.max_level}"))
    return ", ".join(parts)


main.add_command(report)
main.add_command(compare)
main.add_command(init)
main.add_command(compile_kernels)
main.add_command(methods)

if __name__ == "__main__":  # pragma: no cover
    main()
