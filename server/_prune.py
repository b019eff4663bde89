"""``graphwire prune``: retention for operators, on the checkpointer directly.

Deletes old versions of a graph's threads with the savers' own ``aprune``
(which keeps the newest version of each thread, and every delta chain that a
kept version reads), one thread or all of them (listed with
``alist_threads``). Runs beside live servers and takes no lease: it never
deletes a thread's newest version, the one a run continues from (a fork of a
pruned version then fails with NOT_FOUND, as for any unknown version), and a
version a run stores while prune works on its thread keeps every value (the
savers prune from one snapshot; see ``tests/checkpoint/test_prune_postgres.py``).

Run records (:mod:`server._records`) are pruned with their thread's history:
with ``older_than``, the runs that ended before the cut; with ``keep_last``
N, all but the N newest runs (each run writes at least one version and a
thread's runs follow each other, so the runs of the N kept versions are
among them). Runs still active are kept. A kept run whose last version was
pruned is read without its final values from then on: they were that
version's (:mod:`server._final_values`).

With tenants (``--auth-tokens``), a server keeps a tenant's threads under
keys of their own (``tenant/graph:thread``, see :func:`server._reads.key_of`),
so pruning names whose threads it means: no tenant (the default), one tenant,
or every tenant and no tenant at once. One tenant's threads are listed by
their exact key prefix. Every tenant's are not a prefix (the tenant comes
first), so they are picked out of the list of every thread: a key is
unambiguous, since neither tenant nor graph names contain ``/`` or ``:``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any


from engine.host import RunStore
from server._ages import parse_age
from server._reads import key_of, owner_of
from server._records import now, open_run_store
from server._tenants import TENANT_NAME

__all__ = ["Pruned", "check_scope", "parse_age", "prune_one", "prune_threads"]

@dataclass(frozen=True, slots=True)
class Pruned:
    thread_id: str  # the caller's thread id (without the graph prefix)
    deleted: int  # versions deleted
    tenant: str | None = None  # the thread's tenant (None: a thread of no tenant)
    runs: int = 0  # run records deleted


def check_scope(thread_ids: Sequence[str] | None, tenant: str | None, all_tenants: bool) -> None:
    """Whether ``prune_threads`` can address these threads; ValueError naming what is wrong
    (in the words of ``graphwire prune``'s flags)."""
    if tenant is not None and all_tenants:
        raise ValueError("--tenant names one tenant, --all-tenants every one: not both")
    if tenant is not None and not TENANT_NAME.match(tenant):
        raise ValueError(f"--tenant {tenant!r}: a tenant name has letters, digits, '_', '.', '-' (at most 64)")
    if all_tenants and thread_ids is not None:
        raise ValueError(
            "--all-tenants goes with --all-threads; a thread belongs to one tenant: --tenant NAME --thread ID"
        )


async def prune_threads(
    saver: Any,
    graph: str,
    thread_ids: Sequence[str] | None,
    *,
    tenant: str | None = None,
    all_tenants: bool = False,
    keep_last: int | None = None,
    older_than: timedelta | None = None,
) -> AsyncIterator[Pruned]:
    """Prune the graph's threads ``thread_ids`` (None: every thread of the graph), one by one.

    The threads are those of no tenant, of ``tenant``, or (``all_tenants``,
    with every thread) of every tenant and of no tenant.

    Raises:
        ValueError: no rule, or a bad one (see ``BaseCheckpointSaver.aprune``); a bad scope (see :func:`check_scope`).
        NotImplementedError: ``thread_ids`` is None and the saver cannot list threads.
    """
    if keep_last is None and older_than is None:
        raise ValueError("say what to keep: keep_last and/or older_than")
    check_scope(thread_ids, tenant, all_tenants)
    threads: list[tuple[str | None, str]]  # (tenant, thread id)
    if thread_ids is not None:
        threads = [(tenant, t) for t in thread_ids]
    elif all_tenants:
        threads = [found async for t in saver.alist_threads() if (found := owner_of(t.thread_id, graph)) is not None]
    else:
        prefix = key_of(tenant, graph, "")
        threads = [(tenant, t.thread_id[len(prefix) :]) async for t in saver.alist_threads(prefix=prefix)]
    records = open_run_store(saver)
    for owner, thread_id in threads:
        deleted, runs = await prune_one(saver, records, key_of(owner, graph, thread_id), keep_last=keep_last, older_than=older_than)
        yield Pruned(thread_id, deleted, owner, runs)


async def prune_one(
    saver: Any, records: RunStore, key: str, *, keep_last: int | None = None, older_than: timedelta | None = None
) -> tuple[int, int]:
    """Prune thread ``key``'s versions and its ended runs (see the module's doc): (versions, runs) deleted.
    The one prune of ``graphwire prune``, the PruneThread RPC and the thread sweeper's ``keep_latest``."""
    deleted = await saver.aprune(key, keep_last=keep_last, older_than=older_than)
    runs = await records.aprune(key, ended_before=now() - older_than if older_than is not None else None, keep_last=keep_last)
    return deleted, runs
