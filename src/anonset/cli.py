"""The ``anonset`` command: the group, its global option, and the commands wired to it.

Each command lives in a module of its own in :mod:`anonset.commands`; how a
run is carried out is the run layer's (:mod:`anonset.runs`).  Exit codes: 0
success; 1 the release is infeasible or (``check``, ``report``) violates
the requirements; 2 bad input (one line on stderr, no traceback, nothing
written).

:func:`run` is the ``anonset`` program itself (the installed script): it
tunes Python's garbage collector for one short process and calls
:func:`main`, which tests and other programs call in their own process.
"""

from __future__ import annotations

import gc
import os

import click

from anonset.commands.anonymize import anonymize
from anonset.commands.app import app
from anonset.commands.check import check
from anonset.commands.compare import compare
from anonset.commands.compile import compile_kernels
from anonset.commands.demo import demo
from anonset.commands.evaluate import evaluate
from anonset.commands.init import init
from anonset.commands.methods import methods
from anonset.commands.report import report
from anonset.commands.risk import risk
from anonset.methods.threads import THREADS_VARIABLE

__all__ = ["main", "run"]


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


for command in (anonymize, evaluate, risk, check, demo, compile_kernels, methods, report, compare, init, app):
    main.add_command(command)

#: the collector's thresholds for the ``anonset`` process: young objects are collected as often as Python's
#: default (700, 10), full collections ten times less often.  Importing pandas and numba and numba's first
#: compiled call create about a million long-lived objects, and each full collection walks them all.
PROCESS_GC_THRESHOLDS = (700, 10, 100)


def run() -> None:
    """The ``anonset`` program: :func:`main` in a process tuned to start and end quickly.

    Full collections are rarer (:data:`PROCESS_GC_THRESHOLDS`); cyclic
    garbage among young objects, where a dropped table usually is, is
    found as soon as by default.  At exit every object is frozen
    (:func:`gc.freeze`), so the interpreter's last collection does not walk
    the whole heap: nothing is left to write by then (each command places
    its outputs before it returns).  On Adult b1 this took the whole run
    from about 1.3 to about 0.85 s (``benchmarks/full_domain.py``).
    """
    gc.set_threshold(*PROCESS_GC_THRESHOLDS)
    try:
        main()
    finally:
        gc.freeze()


if __name__ == "__main__":  # pragma: no cover
    run()
