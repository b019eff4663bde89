"""The assistants a run names, kept between runs while every change to them is heard.

A run that names an assistant (LangGraph's HTTP API always does: a graph's name
stands for its default assistant) needs the assistant's graph and defaults
before it starts. Read from PostgreSQL, that is a statement and a round trip
for every run, about a tenth of an HTTP run's CPU on the server and a sixth of
the database's, for records that hardly ever change. So this process keeps
what it read, and forgets it all when told that an assistant changed:

* the PostgreSQL store announces each change in the transaction that makes it
  (``engine/checkpoint/postgres/_assistants.py``), to every process listening
  on the schema's messages when it commits; the replica's relay
  (``server/_cancel.py``) hears it and calls :meth:`AssistantCache.message`;
* a change made through this process is forgotten at once, without waiting
  for its announcement (:meth:`AssistantCache.forget`);
* while the relay is not listening (starting, or its connection lost and not
  yet back) nothing is kept or used, and what was kept is forgotten when it
  listens again: announcements sent meanwhile were lost;
* a record is used for at most :data:`MAX_AGE` seconds after it was read, a
  bound on what a connection that died without a word could hide;
* a read that started before a forget is not kept (an epoch per forget).

What a run may then see: a change made on another replica, from the moment
it commits until its announcement reaches this process (milliseconds on one
network), runs as it was before it; a change made here is seen by the next
run. Only stores whose changes are announced (``announces``) get a cache; on
SQLite (one process, its reads in place) and in memory every run reads.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from engine.host import AssistantRecord

__all__ = ["AssistantCache", "MAX_AGE"]

#: seconds a record read is used for, at most
MAX_AGE = 10.0
#: records kept at most (all forgotten when full: a server has a few)
MAX_RECORDS = 1024


class AssistantCache:
    """Assistant records by (tenant, id), valid while the relay listens. Used on the event loop's thread."""

    def __init__(self, *, max_age: float = MAX_AGE, max_records: int = MAX_RECORDS) -> None:
        self.max_age = max_age
        self.max_records = max_records
        self._found: dict[tuple[str, str], tuple[float, AssistantRecord]] = {}
        self._epoch = 0
        self._live = False

    @property
    def epoch(self) -> int:
        """Counts the forgets: a read that began in another epoch is not kept (:meth:`keep`)."""
        return self._epoch

    def get(self, tenant: str, assistant_id: str) -> AssistantRecord | None:
        """The record ``tenant`` read as ``assistant_id`` lately, or None (read it, then :meth:`keep` it)."""
        if not self._live:
            return None
        found = self._found.get((tenant, assistant_id))
        if found is None:
            return None
        if time.monotonic() - found[0] > self.max_age:
            del self._found[(tenant, assistant_id)]
            return None
        return found[1]

    def keep(self, tenant: str, assistant_id: str, record: AssistantRecord, epoch: int) -> None:
        """Keep ``record``, read as ``assistant_id`` by ``tenant`` from ``epoch`` on (dropped if anything
        was forgotten since, or the relay does not listen)."""
        if not self._live or epoch != self._epoch:
            return
        if len(self._found) >= self.max_records:
            self._found.clear()
        self._found[(tenant, assistant_id)] = (time.monotonic(), record)

    def forget(self) -> None:
        """Forget every record (an assistant changed), and every read under way."""
        self._epoch += 1
        self._found.clear()

    # -- the relay's watcher ---------------------------------------------------------------
    def message(self, body: Mapping[str, Any]) -> None:
        """An assistant changed somewhere (its announcement): forget them all (changes are rare)."""
        self.forget()

    def listening(self, live: bool) -> None:
        """The relay listens (announcements will be heard), or stopped (they may be lost): start afresh."""
        self.forget()
        self._live = live
