"""Python's cyclic garbage collector, set for a server's allocations.

A run allocates many short-lived containers that reference counting alone
frees: reading a chat thread's newest version builds every message of the
conversation (a dict of its fields, the set of fields set, its tool calls'
lists and dicts), a few objects a message. CPython's collector counts them
all: at its default thresholds (a young collection every 700 tracked objects
allocated net, an older one every 10 of those, a full one every 10 of those
once the heap grew by a quarter) the collections of a 200-turn chat's runs
took 14 % of the server's CPU, 3,586 collections walking what the runs had
made and, at every full one, everything the server had built at its start
(bench/long_thread.py: 1.31 s of 9.3 s, its runs at 600-800 messages 14.6 ms
each against 11.4 with the settings below).

:func:`tune_collector` makes the young collection wait for
:data:`YOUNG_THRESHOLD` tracked objects (a chat read of ~800 messages stays
within one, and cyclic garbage is collected all the same, later); and
:func:`freeze_startup`, once the server is built and before it takes calls,
collects and then freezes what exists (modules, compiled graphs, the gRPC
server's objects): moved to the permanent generation, which no full collection
walks again. Objects made later are never frozen (a run's cyclic garbage
stays collectable). Thresholds a deployment set itself (``gc.set_threshold``
in a ``sitecustomize``) or a disabled collector are left as they are.
"""

from __future__ import annotations

import gc
import logging

__all__ = ["DEFAULT_THRESHOLDS", "YOUNG_THRESHOLD", "freeze_startup", "tune_collector"]

log = logging.getLogger("graphwire.gc")

#: CPython's own thresholds: anything else was set on purpose, and is kept
DEFAULT_THRESHOLDS = (700, 10, 10)
#: tracked objects allocated (net) between two young collections in a server
YOUNG_THRESHOLD = 10_000


def tune_collector() -> bool:
    """Young collections every :data:`YOUNG_THRESHOLD` objects, unless the process set its own
    thresholds or disabled the collector; whether they were set here."""
    if not gc.isenabled() or gc.get_threshold() != DEFAULT_THRESHOLDS:
        return False
    gc.set_threshold(YOUNG_THRESHOLD, *DEFAULT_THRESHOLDS[1:])
    return True


def freeze_startup() -> None:
    """Collect, then freeze what the process holds (its start's objects): full collections skip them from now on."""
    if not gc.isenabled():
        return
    gc.collect()
    gc.freeze()
    log.debug("garbage collector: %d objects of the server's start frozen", gc.get_freeze_count())
