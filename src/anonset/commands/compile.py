"""``anonset compile``: compile every method's kernels ahead of the first run (numba's on-disk cache).

The warm-up runs are those each method declares (``Method.warm_ups``), run by
:mod:`anonset.precompile`; ``--methods`` keeps those of the methods named;
with ``--jobs N`` up to N processes compile at once, the sets of kernels a
method family declares apart (:func:`~anonset.precompile.kernel_sets`) shared
among them, the longest first (:func:`~anonset.precompile.kernel_jobs`): this
process compiles the first share itself and starts one process per other share.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from anonset.errors import InputError

__all__ = ["compile_kernels"]


@click.command(name="compile")
@click.option("--quiet", "-q", is_flag=True, help="Print only the total.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes compiling at once (different sets of kernels compile apart, the longest first).")
@click.option("--methods", "names", metavar="NAMES",
              help="Compile only these methods' kernels (comma-separated names, as `anonset methods` lists them).")
@click.option("--runs", hidden=True, help="Comma-separated indices of the warm-ups to run (one job's share).")
def compile_kernels(quiet: bool, jobs: int, names: str | None, runs: str | None) -> None:
    """Compile every method's kernels now, so that no first run pays it (run once after installing).

    \b
    Examples:
      anonset compile --jobs 2
      anonset compile --methods optimal,mondrian
    """
    import subprocess

    from anonset.precompile import kernel_jobs, precompile, warm_up_runs

    started = time.perf_counter()
    methods = None if names is None else [n.strip() for n in names.split(",") if n.strip()]
    try:
        planned = warm_up_runs(methods)
    except InputError as exc:  # an unknown method: one line, as every command says bad input
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)

    def progress(run: Any, seconds: float) -> None:
        if not quiet:
            click.echo(f"{seconds:7.2f} s  {run.label}")

    if runs is not None:
        precompile(runs=[planned[int(i)] for i in runs.split(",")], progress=progress)
        return
    shares = kernel_jobs(planned, jobs) if jobs > 1 else [list(range(len(planned)))]  # one job: the declared order
    command = [sys.executable, "-m", "anonset.cli", "compile"] + (["--quiet"] if quiet else [])
    if names is not None:
        command += ["--methods", names]
    others = [subprocess.Popen([*command, "--runs", ",".join(map(str, share))], stdout=subprocess.PIPE, text=True)
              for share in shares[1:]]  # started first, so that they compile while this process does its share
    try:
        if shares:
            precompile(runs=[planned[i] for i in shares[0]], progress=progress)
    finally:
        outputs = [process.communicate()[0] for process in others]
    for output in outputs:
        click.echo(output, nl=False)
    failed = next((p.returncode for p in others if p.returncode), 0)
    if failed:
        raise SystemExit(failed)
    compiled = len({r.method for r in planned})
    click.echo(f"compiled the kernels of {compiled} method{'s' if compiled != 1 else ''} in"
               f" {time.perf_counter() - started:.1f} s; later runs load them from numba's cache")
