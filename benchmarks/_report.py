"""What every benchmark prints beside its figures: when, where, and how busy the machine was.

Timings on a shared machine are noisy; the 1-minute load average printed next
to each timing says how many other processes competed for the cores at that
moment (on a 2-core machine, a load above 2 means the run had to wait).
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
from pathlib import Path


def load() -> str:
    """The 1-, 5- and 15-minute load averages, e.g. ``load 1.02/0.87/0.60``."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f}/{five:.2f}/{fifteen:.2f}"


def machine() -> str:
    """CPU model, cores, memory and the versions that matter, one line."""
    cpu = platform.processor() or "?"
    mem = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 2**20:.0f} GiB RAM"
                break
    except OSError:
        pass
    import numpy

    versions = f"Python {platform.python_version()}, numpy {numpy.__version__}"
    try:
        import numba

        versions += f", numba {numba.__version__}"
    except ImportError:  # pragma: no cover - numba is a dependency
        pass
    return f"{cpu}, {os.cpu_count()} cores, {mem}, {platform.system()} {platform.release()}; {versions}"


def header(script: str) -> None:
    """Print the date, the command, the machine and the load before any figure."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"date: {now}")
    print(f"command: {Path(sys.executable).name} {script} {' '.join(sys.argv[1:])}".rstrip())
    print(f"machine: {machine()}")
    print(f"at start: {load()}", flush=True)
