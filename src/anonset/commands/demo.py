"""``anonset demo``: the built-in synthetic patient register, anonymized, with its summary and its report."""

from __future__ import annotations

import time
from pathlib import Path

import click

from anonset.commands import user_errors
from anonset.commands.printing import console_for, print_summary

__all__ = ["demo"]


@click.command()
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
    from anonset.report.staging import report_outputs, stage_reports
    from anonset.sinks.base import FileOutput, FileSink

    started = time.perf_counter()
    files = FileSink({"release": output, "generated table": save_table, **report_outputs(reports)})
    files.check()
    out = console_for(output)
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
                      verification=release.recheck, run={"release": release.location})
        files.verify()
        files.place()
    print_summary(summary, out, dataset)
    out.print("first released records:")
    out.print(table.head(8).to_string(index=False), highlight=False, markup=False, soft_wrap=True)
    for path in reports:
        out.print(f"report written to {path}: open it in a browser")
    if not reports:
        out.print("anonset demo --report demo-report.html writes a report that explains this release")
