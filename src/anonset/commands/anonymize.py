"""``anonset anonymize``: carry out the run a YAML config describes, and print what was released.

The run itself (reading, searching, releasing, re-checking, writing) is the
run layer's (:mod:`anonset.runs`): this command checks its options, asks the
config's run to check every output before any work, and prints the summary.
A trade-off method without ``--pick`` or a floor prints its front and
releases nothing.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from anonset.commands import user_errors
from anonset.commands.printing import console_for, print_front, print_success_list, print_summary
from anonset.errors import ConfigError

if TYPE_CHECKING:
    from rich.console import Console

    from anonset.anonymizer import Anonymizer
    from anonset.runs.base import Run
    from anonset.sinks.base import FileSink

__all__ = ["anonymize"]


@click.command()
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
    from anonset.runs.base import ReleaseRequest, run_for

    started = time.perf_counter()
    if as_json:
        if summary_path is not None:
            raise ConfigError("--json prints the summary on standard output; drop --summary or --json")
        summary_path, quiet = Path("-"), True
    cfg = load_config(config)  # checked before any table library is loaded
    run = run_for(cfg)
    request = ReleaseRequest(output=output, summary=summary_path, reports=reports, pick=pick,
                             allow_unprotected=allow_unprotected)
    files = run.check(request)
    model = run.anonymizer(request)
    out = console_for(run.release_file(output), summary_path)
    with terminal_progress(enabled=not quiet):
        if registry.get(model.method).family is Family.FRONT and model.member_rule() is None:
            _explore_front(run, model, files, quiet, out)
            return
        with files:
            outcome = run.release(model, files, request, started)
    if not run.written(request):
        click.echo("note: no output path (output.path in the config, or --output): the release was not written",
                   err=True)
    if not quiet:
        summary = outcome.summary
        print_summary(summary, out, outcome.dataset)
        if "success_list" in summary:
            print_success_list(summary["success_list"], pick or 0, out)
        if "front" in summary:
            print_front(summary, summary["search"]["picked"], out)
        for path in reports:
            out.print(f"report written to {path}")


def _explore_front(run: Run, model: Anonymizer, files: FileSink, quiet: bool, out: Console) -> None:
    """A pareto method with neither --pick nor a floor: print (and summarize) the front, release nothing."""
    from anonset.config import TableOutput
    from anonset.release.facts import front_summary
    from anonset.runs.base import json_writer
    from anonset.sinks.base import FileOutput

    cfg = run.config
    summary_path = files.outputs.get("summary")
    table = isinstance(cfg.output, TableOutput)
    if files.outputs.get("release") is not None or table or files.outputs.get("report") is not None:
        raise ConfigError(f"{cfg.path}: method {cfg.method} finds a front of releases and writes one only when told"
                          " which: give --pick N or a floor such as privacy.k (run it without an output first to"
                          " see the front)")
    result = run.explore_front(model)
    summary = front_summary(cfg.method, result)
    if summary_path is not None:
        with files:
            files.stage(FileOutput(summary_path, json_writer(summary)))
            files.verify()
            files.place()
    click.echo("note: no member released: give --pick N (a member below) or a floor such as privacy.k, and an"
               " output", err=True)
    if not quiet:
        search = {"objectives": summary["objectives"], "nodes_evaluated": result.nodes_evaluated,
                  "lattice_size": result.lattice_size}
        print_front({"front": summary["front"], "search": search}, None, out)
