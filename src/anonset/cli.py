"""The ``anonset`` command: the group, its global option, and the commands wired to it.

Each command lives in a module of its own in :mod:`anonset.commands`; how a
run is carried out is the run layer's (:mod:`anonset.runs`).  Exit codes: 0
success; 1 the release is infeasible or (``check``, ``report``) violates
the requirements; 2 bad input (one line on stderr, no traceback, nothing
written).
"""

from __future__ import annotations

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

__all__ = ["main"]


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

if __name__ == "__main__":  # pragma: no cover
    main()
