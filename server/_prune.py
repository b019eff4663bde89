"""``graphwire prune``: retention for operators, on the checkpointer directly.

Deletes old versions of a graph's threads with the savers' own ``aprune``
(which keeps the newest version of each thread, and every delta chain that a
kept version reads), one thread or all of them (listed with
``alist_threads``). Runs beside live servers and takes no lease: it never
deletes a thread's newest version, the one a run continues from (a fork of a
pruned version then fails with NOT_FOUND, as for any unknown version).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from server._reads import thread_key

__all__ = ["Pruned", "parse_age", "prune_threads"]

_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_age(text: str) -> timedelta:
    """``"7d"``, ``"12h"``, ``"30m"``, ``"90s"``, ``"2w"`` → a timedelta.

    Raises:
        ValueError: anything else.
    """
    match = _AGE.match(text)
    if not match:
        raise ValueError(f"an age looks like 30s, 15m, 12h, 7d or 2w, not {text!r}")
    return timedelta(seconds=float(match.group(1)) * _UNIT[match.group(2)])


@dataclass(frozen=True, slots=True)
class Pruned:
    thread_id: str  # the caller's thread id (without the graph prefix)
    deleted: int  # versions deleted


async def prune_threads(
    saver: Any,
    graph: str,
    thread_ids: Sequence[str] | None,
    *,
    keep_last: int | None = None,
    older_than: timedelta | None = None,
) -> AsyncIterator[Pruned]:
    """Prune the graph's threads ``thread_ids`` (None: every thread of the graph), one by one.

    Raises:
        ValueError: no rule, or a bad one (see ``BaseCheckpointSaver.aprune``).
        NotImplementedError: ``thread_ids`` is None and the saver cannot list threads.
    """
    if keep_last is None and older_than is None:
        raise ValueError("say what to keep: keep_last and/or older_than")
    prefix = thread_key(graph, "")
    if thread_ids is None:
        thread_ids = [t.thread_id[len(prefix) :] async for t in saver.alist_threads(prefix=prefix)]
    for thread_id in thread_ids:
        deleted = await saver.aprune(thread_key(graph, thread_id), keep_last=keep_last, older_than=older_than)
        yield Pruned(thread_id, deleted)
