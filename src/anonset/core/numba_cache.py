"""Numba's on-disk cache, safe for processes that compile the same function at once.

Numba keeps each cached function's compiled versions in an index file
(signature → data file) beside numbered data files.  Saving a version reads
the index, picks the first free number, writes the index back, then writes
the data: two processes saving different versions of one function at the
same moment can both pick the same number, and the index left behind can
then name the data of the other version (the numba project tracks such races,
e.g. numba/numba#10128).  anonset runs processes that compile side by side
(``anonset compile --jobs``, a test run's workers, a user's parallel
pipeline), so it makes each save hold an exclusive lock on a file in the
cache's folder; loading is unchanged (a data file is written atomically).

:func:`install` is numba's ``numba_extensions`` entry point (``pyproject.toml``):
numba calls it in every process, ahead of the first compilation, wherever
anonset is installed.  Where ``fcntl`` does not exist (Windows) nothing is
changed.
"""

from __future__ import annotations

import functools
import os
from typing import Any

__all__ = ["LOCK_NAME", "install"]

#: The lock file each save holds, in the folder of the function's cache files.
LOCK_NAME = "anonset-numba-cache.lock"


def install() -> None:
    """Make numba's cache saves hold :data:`LOCK_NAME` (once per process; a no-op without ``fcntl``)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return
    from numba.core import caching

    original = caching.IndexDataCacheFile.save
    if getattr(original, "anonset_locked", False):
        return

    @functools.wraps(original)
    def save(self: Any, key: Any, data: Any) -> None:
        try:
            os.makedirs(self._cache_path, exist_ok=True)
            handle = open(os.path.join(self._cache_path, LOCK_NAME), "a")  # noqa: SIM115 - closed below
        except OSError:  # no lock file can be made there: save as numba does
            original(self, key, data)  # type: ignore[no-untyped-call]
            return
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
            original(self, key, data)  # type: ignore[no-untyped-call]

    save.anonset_locked = True  # type: ignore[attr-defined]
    caching.IndexDataCacheFile.save = save  # type: ignore[method-assign]
