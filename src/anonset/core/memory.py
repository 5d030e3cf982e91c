"""Giving the heap memory a large run has freed back to the operating system.

glibc keeps what a process frees for its next allocations.  An array freed
in the middle of the heap (the temporaries of rendering ten million records,
say) stays counted in the process's resident memory until glibc reuses it,
and a later stage's arrays, larger than glibc's mmap threshold, are mapped
beside it instead; Arrow's memory pool keeps freed pages likewise.
:func:`give_back_freed_memory` asks both to return their free pages (glibc's
``malloc_trim``, which elsewhere, on macOS or musl, is skipped).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

__all__ = ["give_back_freed_memory"]


def give_back_freed_memory() -> None:
    """Return the free pages of the heap (glibc's ``malloc_trim(0)``) and of Arrow's memory pool to the system.

    A few milliseconds.
    """
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
