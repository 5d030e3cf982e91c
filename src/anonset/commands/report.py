"""``anonset report``: the HTML (or JSON) report of a release, and the staging of reports for ``anonymize --report``.

A report is built from the config's input, the released records and, when
there is one, the run's summary (:func:`anonset.report.contents.build_report`);
its file is staged with the run's other outputs and placed only when every
output is ready.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from anonset.commands import user_errors
from anonset.errors import ConfigError, DataError

if TYPE_CHECKING:
    import pandas as pd

    from anonset.config import RunConfig
    from anonset.core.dataset import Dataset
    from anonset.core.partition import Partition
    from anonset.privacy.base import Requirements
    from anonset.release.sinks import FileSink

__all__ = ["report", "report_outputs", "require_reportable", "run_facts", "stage_reports"]


def report_outputs(paths: Sequence[Path]) -> dict[str, Path]:
    """The named outputs of ``--report`` paths (``report``, ``report 2``, ...) for a :class:`FileSink`."""
    return {("report" if i == 0 else f"report {i + 1}"): p for i, p in enumerate(paths)}


def require_reportable(cfg: RunConfig, paths: Sequence[Path]) -> None:
    """A ConfigError, before any work, when a report cannot be made of this run's release."""
    if paths and cfg.sql is not None:
        raise ConfigError(f"{cfg.path}: a report reads the released records, and a release into PostgreSQL"
                          " (input.sql) keeps them in the database; drop --report, or release to a file")
    if paths and cfg.engine != "numpy":
        raise ConfigError(f"{cfg.path}: --report needs the release in memory (engine: numpy); with engine"
                          f" {cfg.engine}, run `anonset report {cfg.path} RELEASE` on the written release")


def stage_reports(files: FileSink, dataset: Dataset, released: pd.DataFrame, requirements: Requirements,
                  summary: Mapping[str, Any], *, partition: Partition | None = None,
                  run: Mapping[str, Any] | None = None, workload: Mapping[str, Any] | None = None) -> None:
    """Build the report of a run's release and stage it at every ``report`` output (none asked: nothing is built).

    ``run`` holds what the command knows of the run (:func:`run_facts`);
    ``workload`` the config's ``evaluation`` section (its query and pattern
    checks are run on the release and reported).
    """
    from anonset.release.sinks import FileOutput
    from anonset.report.files import report_writer

    paths = [p for name, p in files.outputs.items() if name.startswith("report") and p is not None]
    if not paths:
        return
    contents = _contents(dataset, released, requirements, summary, partition=partition, run=run, workload=workload)
    for path in paths:
        files.stage(FileOutput(path, report_writer(contents, path)))


def _contents(dataset: Dataset, released: pd.DataFrame, requirements: Requirements,
              summary: Mapping[str, Any] | None, *, partition: Partition | None = None,
              run: Mapping[str, Any] | None = None, workload: Mapping[str, Any] | None = None,
              where: str = "release", summary_where: str = "summary") -> dict[str, Any]:
    from anonset.methods import registry
    from anonset.report.contents import build_report

    method = summary.get("method") if summary is not None else None
    family, method_summary = None, ""
    if method is not None and method in registry.names():
        spec = registry.get(str(method))
        family, method_summary = spec.family.value, spec.summary
    return build_report(dataset, released, requirements, summary, partition=partition, family=family,
                        method_summary=method_summary, run=run, workload=workload, where=where,
                        summary_where=summary_where)


def run_facts(cfg: RunConfig, release_location: str | None) -> dict[str, Any]:
    """The config, the input file with its SHA-256, and where the release went: for a report's provenance."""
    from anonset.report.files import file_sha256

    out: dict[str, Any] = {"config": str(cfg.path), "release": release_location}
    if cfg.input_path is not None and cfg.input_path.is_file():
        out["input"] = {"path": str(cfg.input_path), "sha256": file_sha256(cfg.input_path)}
    return out


@click.command(name="report")
@click.argument("config", type=click.Path(path_type=Path))
@click.argument("release", type=click.Path(path_type=Path))
@click.option("--output", "-o", "outputs", type=click.Path(path_type=Path), multiple=True, required=True,
              help="Write the report here: .html for the page, .json for the data (repeatable).")
@click.option("--summary", "summary_path", type=click.Path(path_type=Path),
              help="The run's JSON summary (anonymize --summary): adds the search, the success list or front,"
                   " and the metrics as the run computed them.")
@user_errors
def report(config: Path, release: Path, outputs: tuple[Path, ...], summary_path: Path | None) -> None:
    """Report on an existing RELEASE made with CONFIG: guarantees, suppression, risk, utility, why.

    The groups, guarantees, risk, levels and utility metrics are recomputed
    from the released values; --summary adds the method's own record (the
    search, the success list or front, the timings) and is refused when it
    disagrees with the release.  When the release breaks a requirement, the
    report is written all the same, its first line says so, and the command
    prints that line and exits with code 1.

    \b
    Example:
      anonset anonymize config.yaml --summary run.json
      anonset report config.yaml adult-anonymized.csv --summary run.json -o report.html -o report.json
    """
    from anonset.config import load_config
    from anonset.io.tables import read_table
    from anonset.release.sinks import FileOutput, FileSink
    from anonset.report.files import report_writer

    started = time.perf_counter()
    cfg = load_config(config)
    if cfg.sql is not None:
        raise ConfigError(f"{cfg.path}: the input is a table in PostgreSQL; a report reads the input and the"
                          " release as files")
    files = FileSink(report_outputs(outputs), {**cfg.input_files(), "release": release, "summary": summary_path})
    files.check()
    summary = _read_summary(summary_path) if summary_path is not None else None
    released = read_table(release, cfg.release_delimiter())
    dataset = cfg.load_dataset()
    contents = _contents(dataset, released, cfg.requirements, summary, run=run_facts(cfg, str(release)),
                         workload=cfg.evaluation, where=str(release),
                         summary_where=str(summary_path) if summary_path is not None else "summary")
    with files:
        for path in outputs:
            files.stage(FileOutput(path, report_writer(contents, path)))
        files.verify()
        files.place()
    written = ", ".join(map(str, outputs))
    if not all(g["holds"] for g in contents["guarantees"]):
        # like `anonset check` on a violation: the report is useful to see, but the release must not pass
        click.echo(f"violated: {release}: {contents['headline'][0]} The report is in {written}.", err=True)
        sys.exit(1)
    click.echo(f"report of {release} written to {written} in {time.perf_counter() - started:.2f} s", err=True)


def _read_summary(path: Path) -> dict[str, Any]:
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{path}: no such file; give the JSON summary anonymize --summary wrote") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not a JSON summary ({exc}); give the file anonymize --summary wrote") from None
    if not isinstance(summary, dict) or "method" not in summary or "metrics" not in summary:
        raise DataError(f"{path}: not a release summary (no method and metrics); give the file anonymize --summary"
                        " wrote for this release")
    return summary
