"""``anonset compile``: compile every method's kernels ahead of the first run (numba's on-disk cache).

The warm-up runs are those each method declares (``Method.warm_ups``), run by
:mod:`anonset.precompile`; ``--methods`` keeps those of the methods named;
with ``--jobs N`` up to N processes compile at once, one per set of kernels
(:func:`~anonset.precompile.kernel_sets`: the sets a method family declares
compile apart), the longest sets first.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
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

    from anonset.precompile import kernel_sets, precompile, warm_up_runs

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
    if jobs == 1:
        precompile(runs=planned, progress=progress)
    else:  # a process per set of kernels, the longest sets first, at most ``jobs`` at once
        command = [sys.executable, "-m", "anonset.cli", "compile"] + (["--quiet"] if quiet else [])
        if names is not None:
            command += ["--methods", names]

        def compile_set(indices: list[int]) -> subprocess.CompletedProcess[str]:
            return subprocess.run([*command, "--runs", ",".join(map(str, indices))], stdout=subprocess.PIPE,
                                  text=True, check=False)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            finished = list(pool.map(compile_set, kernel_sets(planned)))
        for process in finished:
            click.echo(process.stdout, nl=False)
        failed = next((p.returncode for p in finished if p.returncode), 0)
        if failed:
            raise SystemExit(failed)
    compiled = len({r.method for r in planned})
    click.echo(f"compiled the kernels of {compiled} method{'s' if compiled != 1 else ''} in"
               f" {time.perf_counter() - started:.1f} s; later runs load them from numba's cache")
