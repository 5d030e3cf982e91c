"""How many threads the parallel kernels use: the user's choice, else the cores that are free right now.

numba's default is one thread per core, which on a shared server oversubscribes
the machine: with other work running, a parallel kernel's threads wait for each
other and the run can take many times its quiet wall time.  Before a parallel
kernel runs, :func:`use_threads` sets numba's thread count to
``ANONSET_THREADS`` when the user set it (``anonset --threads N`` sets it for a
run), else to the cores this process may use minus the other work running on
the machine at that moment (on Linux the runnable tasks ``/proc/loadavg``
counts, this process being one of them; elsewhere the one-minute load
average, which lags behind), at least 1.
"""

from __future__ import annotations

import math
import os

from anonset.errors import ConfigError

__all__ = ["THREADS_VARIABLE", "thread_count", "use_threads"]

#: The environment variable that fixes the thread count.
THREADS_VARIABLE = "ANONSET_THREADS"


def _usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def thread_count() -> int:
    """The thread count for the next parallel kernel (see the module docstring)."""
    cores = _usable_cores()
    given = os.environ.get(THREADS_VARIABLE, "").strip()
    if given:
        if not given.isdigit() or int(given) < 1:
            raise ConfigError(f"{THREADS_VARIABLE}={given!r}: give a whole number of threads >= 1 (or unset it to"
                              " use the cores that are free)")
        return min(int(given), cores)
    return max(1, min(cores, cores - math.floor(_other_runnable() + 0.5)))


def _other_runnable() -> float:
    """Tasks running or ready to run besides this process: now on Linux, else the one-minute average."""
    try:
        with open("/proc/loadavg", encoding="ascii") as fh:
            return max(0.0, float(fh.read().split()[3].split("/")[0]) - 1.0)
    except (OSError, IndexError, ValueError):
        pass
    try:
        return max(0.0, os.getloadavg()[0] - 1.0)
    except OSError:
        return 0.0


def use_threads() -> int:
    """Set numba's thread count for the parallel kernels to :func:`thread_count`; the count set."""
    import numba
    from numba.np.ufunc.parallel import NUM_THREADS  # the most numba started with (set_num_threads' ceiling)

    n = min(thread_count(), int(NUM_THREADS))
    numba.set_num_threads(n)
    return n
