"""``anonset compile``: compile every method's kernels ahead of the first run (numba's on-disk cache).

The warm-up runs are those of :mod:`anonset.precompile`; with ``--jobs N``
they are shared among N processes (kernels of different method families
compile apart).
"""

from __future__ import annotations

import sys
import time
from typing import Any

import click

__all__ = ["compile_kernels"]


@click.command(name="compile")
@click.option("--quiet", "-q", is_flag=True, help="Print only the total.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes compiling at once (kernels of different method families compile apart).")
@click.option("--runs", hidden=True, help="Comma-separated indices of the warm-ups to run (one job's share).")
def compile_kernels(quiet: bool, jobs: int, runs: str | None) -> None:
    """Compile every method's kernels now, so that no first run pays it (run once after installing).

    \b
    Example:
      anonset compile --jobs 2
    """
    import subprocess

    from anonset.precompile import WARM_UPS, precompile, shares

    started = time.perf_counter()

    def progress(run: Any, seconds: float) -> None:
        if not quiet:
            click.echo(f"{seconds:7.2f} s  {run.label}")

    if runs is not None:
        precompile(runs=[WARM_UPS[int(i)] for i in runs.split(",")], progress=progress)
        return
    if jobs == 1:
        precompile(progress=progress)
    else:
        command = [sys.executable, "-m", "anonset.cli", "compile"] + (["--quiet"] if quiet else [])
        workers = [subprocess.Popen([*command, "--runs", ",".join(map(str, share))], stdout=subprocess.PIPE, text=True)
                   for share in shares(jobs)]
        failed = 0
        for worker in workers:
            output, _ = worker.communicate()
            click.echo(output, nl=False)
            failed = failed or worker.returncode
        if failed:
            raise SystemExit(failed)
    click.echo(f"compiled the kernels of {len({r.method for r in WARM_UPS})} methods in"
               f" {time.perf_counter() - started:.1f} s; later runs load them from numba's cache")
