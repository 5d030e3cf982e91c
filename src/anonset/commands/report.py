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
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from anonset.commands import user_errors
from anonset.errors import ConfigError, DataError

if TYPE_CHECKING:

    pass

__all__ = ["report"]


@click.command(name="report")
@click.argument("config", type=click.Path(path_type=Path))
@click.argument("release", type=click.Path(path_type=Path))
@click.option("--output", "-o", "outputs", type=click.Path(path_type=Path), multiple=True, required=True,
              help="Write the report here: .html for the page, .json for the data (repeatable).")
@click.option("--population", "population_path", type=click.Path(path_type=Path),
              help="The population the input was drawn from (same quasi-identifier columns): adds ARX's journalist"
                   " and marketer risks before and after (default: the population a privacy model reads).")
@click.option("--summary", "summary_path", type=click.Path(path_type=Path),
              help="The run's JSON summary (anonymize --summary): adds the search, the success list or front,"
                   " and the metrics as the run computed them.")
@user_errors
def report(config: Path, release: Path, outputs: tuple[Path, ...], population_path: Path | None,
           summary_path: Path | None) -> None:
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
    from anonset.config import FileInput, load_config
    from anonset.io.tables import read_table
    from anonset.report.files import report_writer
    from anonset.report.staging import report_contents, report_outputs, run_facts
    from anonset.runs.base import read_in_memory, release_delimiter
    from anonset.sinks.base import FileOutput, FileSink

    started = time.perf_counter()
    cfg = load_config(config)
    if not isinstance(cfg.input, FileInput):
        raise ConfigError(f"{cfg.path}: the input is {cfg.input.location}; a report reads the input and the release"
                          " as files")
    files = FileSink(report_outputs(outputs), {**cfg.input_files(), "release": release, "summary": summary_path,
                                               "population": population_path})
    files.check()
    summary = _read_summary(summary_path) if summary_path is not None else None
    released = read_table(release, release_delimiter(cfg))
    dataset = read_in_memory(cfg, "a report")
    contents = report_contents(dataset, released, cfg.requirements, summary, run=run_facts(cfg, str(release), release),
                               workload=cfg.evaluation, where=str(release),
                               summary_where=str(summary_path) if summary_path is not None else "summary",
                               method=cfg.method,
                               population=None if population_path is None else read_table(population_path))
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
