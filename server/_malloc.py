"""Large freed blocks go back to the system (glibc).

glibc serves a large allocation with its own mmap and returns it on free,
but after the first such free it raises its "mmap threshold" to that size
(up to 32 MiB), so later blocks of a few megabytes come from the heap, and
once freed stay in the process. A server whose threads hold states of
megabytes (a large state's JSON events, its msgpack bytes) then keeps its
peak memory for good: four callers that never read a 7 MiB state's events
left a server at 211 MiB after their calls were cut and freed, against 98 MiB
with the threshold fixed (``bench/soak.py`` prints the peaks per replica).

:func:`fix_mmap_threshold` pins the threshold at 1 MiB, as setting
``MALLOC_MMAP_THRESHOLD_`` would: blocks of 1 MiB or more are mapped and
unmapped, everything smaller is untouched. An explicit
``MALLOC_MMAP_THRESHOLD_`` (or another C library) is left alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

__all__ = ["MMAP_THRESHOLD", "fix_mmap_threshold"]

MMAP_THRESHOLD = 1024 * 1024
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number (glibc's malloc.h)


def fix_mmap_threshold() -> bool:
    """Pin glibc's mmap threshold at :data:`MMAP_THRESHOLD`; whether it was set here."""
    if "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc: its allocator has no such threshold
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
