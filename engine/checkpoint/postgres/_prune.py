"""Pruning a thread's history on PostgreSQL: a plan from plain rows, then one transaction.

The plan is pure (:func:`plan_prune`: the thread's checkpoint rows and its
blobs' bases in, what to delete out, as a :class:`PrunePlan`), made by the rules every saver shares
(:func:`~engine.checkpoint._retention.checkpoints_to_prune`,
:func:`~engine.checkpoint._retention.blobs_to_keep`). :func:`prune` reads the
rows and deletes by the plan in one REPEATABLE READ transaction: both reads
see one snapshot, or a version committed between them would show its new
blobs but not itself, and lose them. A writer of the thread that gets in the
way (it changed a row prune deletes, or stored a delta on a blob prune
deletes: the foreign key refuses) rolls the transaction back, having deleted
nothing; prune then looks again, a few times.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import Connection

from engine.checkpoint._retention import Choose, blobs_to_keep
from engine.checkpoint._ts import read_ts
from engine.checkpoint.postgres import _queries as q
from engine.errors import CheckpointError

__all__ = ["PrunePlan", "plan_prune", "prune"]

_ATTEMPTS = 5
_RETRY = (psycopg.errors.SerializationFailure, psycopg.errors.ForeignKeyViolation)

Rows = Iterable[tuple[str, str, str, Mapping[str, int]]]  # (ns, checkpoint_id, ts, channel versions)
Key = tuple[str, str, int]  # (ns, channel, version) of a blob
Bases = Mapping[Key, int | Key | None]  # blob -> its base version, or the key its ref names (None: full value)


@dataclass(frozen=True, slots=True)
class PrunePlan:
    """What a prune deletes: checkpoints ``(ns, id)`` (their writes with them) and blobs ``(ns, channel, version)``."""

    checkpoints: list[tuple[str, str]]
    blobs: list[tuple[str, str, int]]

    def params(self, thread_id: str) -> dict[str, Any]:
        """PRUNE's parameters."""
        return {
            "thread_id": thread_id, "nss": [g[0] for g in self.checkpoints],
            "checkpoint_ids": [g[1] for g in self.checkpoints], "blob_nss": [d[0] for d in self.blobs],
            "blob_channels": [d[1] for d in self.blobs], "blob_versions": [d[2] for d in self.blobs],
        }  # fmt: skip


def plan_prune(rows: Rows, choose: Choose) -> Callable[[Bases, Iterable[tuple[str, str, Key]]], PrunePlan] | None:
    """What goes of a thread whose checkpoints are ``rows``: None when nothing
    does, else a function of the thread's blobs' bases and its pending writes'
    refs ``(ns, checkpoint_id, key)`` that gives the plan (so the blobs are
    read only when some checkpoint goes)."""
    rows = list(rows)
    kept, deleted = choose([(ns, cid, read_ts(cid, ts)) for ns, cid, ts, _ in rows])
    if not deleted:
        return None
    referenced = [(ns, ch, v) for ns, cid, _, versions in rows if (ns, cid) in kept for ch, v in versions.items()]

    def with_blobs(bases: Bases, write_refs: Iterable[tuple[str, str, Key]] = ()) -> PrunePlan:
        kept_refs = [key for ns, cid, key in write_refs if (ns, cid) in kept]
        keep = blobs_to_keep([*referenced, *kept_refs], bases)
        return PrunePlan(sorted(deleted), [key for key in bases if key not in keep])

    return with_blobs


async def prune(
    run: Callable[[str, Callable[[Connection[Any]], int]], Awaitable[int]],
    queries: q.Queries,
    thread_id: str,
    choose: Choose,
) -> int:
    """Prune ``thread_id`` by ``choose`` (``run``: the saver's retrying runner); how many checkpoints went."""

    def work(conn: Connection[Any]) -> int:
        with conn.transaction(), conn.cursor(binary=True) as cur:
            cur.execute(queries.SNAPSHOT)
            cur.execute(queries.SELECT_CHECKPOINT_VERSIONS, {"thread_id": thread_id})
            planned = plan_prune(cur.fetchall(), choose)
            if planned is None:
                return 0
            cur.execute(queries.SELECT_BLOB_BASES, {"thread_id": thread_id})  # the same snapshot
            bases = {(ns, ch, v): base if rv is None else (rns, rch, rv) for ns, ch, v, base, rns, rch, rv in cur.fetchall()}
            cur.execute(queries.SELECT_WRITE_REFS, {"thread_id": thread_id})
            plan = planned(bases, [(ns, cid, (rns, rch, rv)) for ns, cid, rns, rch, rv in cur.fetchall()])
            cur.execute(queries.PRUNE, plan.params(thread_id))
            return len(plan.checkpoints)

    for attempt in range(_ATTEMPTS):
        try:
            return await run("prune", work)
        except CheckpointError as exc:
            if not isinstance(exc.__cause__, _RETRY) or attempt + 1 == _ATTEMPTS:
                raise
    raise AssertionError("unreachable")  # pragma: no cover
