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

Blocks under the threshold come from the heap, and glibc gives the heap's
free pages back only from its top: a call whose events waited for a reader
that never read (``max_unsent_bytes`` of messages of a kilobyte each, say)
leaves its pages free but kept, between blocks still in use. Two callers at
an 8 MiB budget left a server 11 MiB above where it started, each time.
:class:`Trimmer` gives them back (``malloc_trim``) after such a call ends:
on a thread of its own, since a trim after a large free takes milliseconds
(the event loop goes on meanwhile), and at most once a second, calls ending
together sharing one.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import os
import threading
from typing import Any, Callable

__all__ = ["MMAP_THRESHOLD", "TRIM_AFTER_BYTES", "Trimmer", "fix_mmap_threshold", "glibc_trim"]

MMAP_THRESHOLD = 1024 * 1024
#: A call whose unsent events reached this many bytes is followed by a trim.
TRIM_AFTER_BYTES = 1024 * 1024
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number (glibc's malloc.h)


def _libc_function(name: str) -> Any:
    """glibc's function ``name``, or None (another C library)."""
    try:
        return getattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"), name)
    except (OSError, AttributeError):
        return None


def fix_mmap_threshold() -> bool:
    """Pin glibc's mmap threshold at :data:`MMAP_THRESHOLD`; whether it was set here."""
    if "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    mallopt = _libc_function("mallopt")
    if mallopt is None:  # not glibc: its allocator has no such threshold
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def glibc_trim() -> Callable[[], Any] | None:
    """``malloc_trim(0)``, as a call of no arguments; None where the C library has none."""
    found = _libc_function("malloc_trim")
    if found is None:
        return None
    found.argtypes = [ctypes.c_size_t]
    found.restype = ctypes.c_int
    return lambda: found(0)


class Trimmer:
    """Gives the heap's free pages back to the system, soon after :meth:`soon` is called.

    Args:
        trim: what trims (:func:`glibc_trim`'s); with None, nothing happens.
        every: the least seconds between the starts of two trims.
    """

    def __init__(self, trim: Callable[[], Any] | None, *, every: float = 1.0) -> None:
        self._trim = trim
        self.every = every
        self.trims = 0  # how many ran to their end
        self._last: float | None = None  # when the last one started (the loop's clock)
        self._due: asyncio.TimerHandle | None = None
        self._running = False

    def soon(self) -> None:
        """Trim once :attr:`every` seconds have passed since the last trim started (on the running loop)."""
        if self._trim is None or self._due is not None:
            return
        loop = asyncio.get_running_loop()
        at = loop.time() if self._last is None else max(loop.time(), self._last + self.every)
        self._due = loop.call_at(at, self._start)

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        if self._running:  # one at a time: this request is served by one more after it
            self._due = loop.call_later(self.every, self._start)
            return
        self._due = None
        self._running = True
        self._last = loop.time()
        threading.Thread(target=self._run, name="graphwire-malloc-trim", daemon=True).start()

    def _run(self) -> None:
        try:
            assert self._trim is not None
            self._trim()
            self.trims += 1
        finally:
            self._running = False
