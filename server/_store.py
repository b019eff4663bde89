"""The server's store: opened beside the checkpointer, seen through each caller's tenant.

``store`` in graphwire.toml names the store's database as ``checkpointer``
names the saver's (a SQLite path, ``":memory:"`` or a ``postgresql://``
DSN); unset, it is the checkpointer's own (the same SQLite file, or the same
PostgreSQL database and ``pg_schema``), whose store tables have migrations
of their own, applied as the store opens. ``[store_ttl]`` configures TTLs
(a :class:`TtlSweeper` then deletes expired items), ``[store_index]``
semantic search (``embed`` names an embedding function as a graph spec
names a graph, or a ``provider:model`` LangChain's ``init_embeddings`` makes).

Every graph the server runs gets the store unless it was compiled with one
of its own, and every graph's store is a :class:`TenantStore`: what a node
writes and reads is scoped to the tenant whose call runs it, exactly as the
store RPCs are. A tenant's namespaces are kept under a root label
(``tenant.NAME``) that no caller's label can be or reach, since labels may
not hold a ``.`` (see :class:`engine.store.ScopedStore`); without tenants
the store is seen from outside every tenant's scope.

The node cache is configured the same way: ``cache`` names its database
(unset: the checkpointer's; ``"off"``: none), :func:`open_cache` opens it
with the saver's serializer (it holds writes the saver will store, so it
allows what the saver allows), and :func:`attach_cache` gives it to every
graph compiled without a cache of its own. With tenants, a graph's cache is
a :class:`TenantCache`: a node of one tenant never gets the writes another
tenant's run of it cached, however equal their inputs (the node may have
read that tenant's memories or context to make them).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.host import LeaseStore, ScopedCache
from engine.cache.base import BaseCache, FullKey, Namespace
from engine.cache.memory import InMemoryCache
from engine.serde import Serializer
from engine.store import InMemoryStore, ScopedStore, StoreView
from engine.store.base import BaseStore, Op, Result, TTLConfig
from server._periodic import alone
from server._registry import GraphEntry
from server._specs import resolve_spec
from server._tenants import TENANT
from server.config import is_postgres

#: The lease the replica sweeping the store's expired items holds (no thread's key: a graph name is never empty).
SWEEPER_KEY = ":sweeper:store"

__all__ = [
    "TenantCache", "TenantStore", "TtlSweeper", "attach_cache", "attach_store", "open_cache", "open_store", "root_of",
]  # fmt: skip

log = logging.getLogger("graphwire.server")


def root_of(tenant: str) -> str:
    """The root label of ``tenant``'s namespaces (the ``.`` is what no caller's label may hold)."""
    return f"tenant.{tenant}"


def _names_a_provider(embed: str) -> bool:
    """``provider:model`` (as langgraph.json's ``store.index.embed`` may be), not ``module:function``.

    A model's name is no Python attribute path (``text-embedding-3-small``,
    ``nomic-ai/nomic-embed-text-v1.5``), and a provider is no file.
    """
    module, _, attr = embed.partition(":")
    return bool(attr) and "/" not in module and not module.endswith(".py") and not all(p.isidentifier() for p in attr.split("."))


def _index(config: Mapping[str, Any] | None, base_dir: str | None) -> dict[str, Any] | None:
    if not config:
        return None
    index = dict(config)
    if _names_a_provider(index["embed"]):
        return index  # "openai:text-embedding-3-small": LangChain's init_embeddings makes it (engine.store)
    embed = resolve_spec(index["embed"], name="store_index.embed", base_dir=base_dir)
    if not callable(embed) and not hasattr(embed, "aembed_documents"):
        raise ValueError(f"store_index.embed {index['embed']!r} is a {type(embed).__name__}, not an embedding function")
    index["embed"] = embed
    return index


def open_store(
    spec: str,
    *,
    pg_schema: str | None = None,
    ttl: TTLConfig | None = None,
    index: Mapping[str, Any] | None = None,
    base_dir: str | None = None,
) -> BaseStore:
    """A store on ``spec`` (a SQLite path, ``":memory:"`` or a postgresql:// DSN), its tables migrated.

    ``index``: ``[store_index]`` as configured (``embed`` a spec, imported here, as
    graph specs are: ``base_dir`` anchors a file spec).

    Raises:
        ValueError: a bad spec, schema name or embedding spec.
        StoreError: the database cannot be reached, migrating it failed, or
            semantic search needs what the database lacks.
    """
    options: dict[str, Any] = {"ttl": ttl, "index": _index(index, base_dir)}
    if is_postgres(spec):
        from engine.store.postgres import PostgresStore

        try:
            return PostgresStore.from_dsn(spec, schema=pg_schema, **options)
        except NotImplementedError as exc:
            raise ValueError(f"store_index: {exc}") from None
    if spec == ":memory:":
        return InMemoryStore(**options)
    from engine.store.sqlite import SqliteStore

    return SqliteStore(spec, **options)


class TenantStore(StoreView):
    """``store`` as the caller sees it: the calling tenant's scope, or the outside of every scope.

    The tenant is read (from :data:`server._tenants.TENANT`) at each call,
    so one object serves the store RPCs and every run's nodes. With tenants
    configured, a call that has none fails closed rather than reading
    outside the scopes.
    """

    def __init__(self, store: BaseStore, *, tenants: bool) -> None:
        self.store = store
        self._tenants = tenants
        self._outside = ScopedStore(store, None)
        self._scopes: dict[str, ScopedStore] = {}

    def view(self) -> ScopedStore:
        tenant = TENANT.get()
        if tenant is None:
            if self._tenants:  # a bug (a context lost on the way to a node), never a caller's doing
                raise RuntimeError("the store was used outside a tenant's call on a server with tenants")
            return self._outside
        scope = self._scopes.get(tenant)
        if scope is None:
            scope = self._scopes[tenant] = ScopedStore(self.store, root_of(tenant))
        return scope

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await self.view().abatch(ops)


def attach_store(graphs: Mapping[str, GraphEntry], store: BaseStore, *, tenants: bool) -> TenantStore:
    """Give every graph the server's store (or keep its own), seen through the caller's tenant.

    Returns the server's own store as the RPCs see it.

    Raises:
        ValueError: with tenants, a graph compiled with a store of its own that cannot be scoped.
    """
    served = TenantStore(store, tenants=tenants)
    for entry in graphs.values():
        own = entry.graph.store
        if own is None:
            entry.graph.store = served
            continue
        log.info("graph %r keeps its own store (%s), which the store RPCs do not reach", entry.name, type(own).__name__)
        try:
            entry.graph.store = TenantStore(own, tenants=tenants)
        except TypeError as exc:
            if tenants:
                raise ValueError(
                    f"graph {entry.name!r} was compiled with its own store, which tenants cannot keep apart ({exc}); "
                    "compile it without store= to use the server's"
                ) from None
    return served


class TtlSweeper:
    """Delete the store's expired items every ``minutes``, in a task of the server's loop, until stopped.

    ``leases``: the checkpointer's lease store, when replicas share it: a sweep takes the lease
    :data:`SWEEPER_KEY` first (as owner ``owner``), so one replica at a time sweeps, as the thread
    sweeper does (:mod:`server._thread_sweep`); a replica that finds it held skips that sweep.
    """

    def __init__(self, store: BaseStore, minutes: float, *, leases: LeaseStore | None = None, owner: str = "") -> None:
        self.store = store
        self.minutes = minutes
        self.leases, self.owner = leases, owner
        self.sweeps = 0  # sweeps finished (successful or not), for tests to wait on
        self._done = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="graphwire-store-ttl-sweeper")

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.minutes * 60)
            try:
                await self._sweep()
            except Exception:  # a failed sweep (the database down) is retried at the next one
                log.exception("store: the TTL sweep failed")
            async with self._done:
                self.sweeps += 1
                self._done.notify_all()

    async def _sweep(self) -> None:
        gone = await alone(self.leases, SWEEPER_KEY, self.owner, max(self.minutes * 120, 30.0), self.store.asweep_ttl)
        if gone:  # None: another replica sweeps now
            log.info("store: %d expired item(s) deleted", gone)

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def wait_sweeps(self, count: int) -> None:
        """Return once ``count`` sweeps have finished."""
        async with self._done:
            await self._done.wait_for(lambda: self.sweeps >= count)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None


def open_cache(spec: str, *, pg_schema: str | None = None, serde: Serializer) -> BaseCache[Any]:
    """A node cache on ``spec`` (a SQLite path, ``":memory:"`` or a postgresql:// DSN), its table migrated.

    Raises:
        ValueError: a bad schema name.
        CacheError: the database cannot be opened, or migrating it failed.
    """
    if is_postgres(spec):
        from engine.cache.postgres import PostgresCache

        return PostgresCache.from_dsn(spec, schema=pg_schema, serde=serde)
    if spec == ":memory:":
        return InMemoryCache(serde=serde)
    from engine.cache.sqlite import SqliteCache

    return SqliteCache(path=spec, serde=serde)


class TenantCache(BaseCache[Any]):
    """``cache`` as the calling tenant's run sees it: its scope, or the cache itself without tenants.

    The tenant is read (from :data:`server._tenants.TENANT`) at each call, as
    :class:`TenantStore` does. With tenants configured, a call that has none
    fails closed.
    """

    def __init__(self, cache: BaseCache[Any], *, tenants: bool) -> None:
        super().__init__(serde=cache.serde)
        self.cache = cache
        self._tenants = tenants
        self._scopes: dict[str, ScopedCache] = {}

    def view(self) -> BaseCache[Any]:
        tenant = TENANT.get()
        if tenant is None:
            if self._tenants:  # a bug (a context lost on the way to a node), never a caller's doing
                raise RuntimeError("the cache was used outside a tenant's call on a server with tenants")
            return self.cache
        scope = self._scopes.get(tenant)
        if scope is None:
            scope = self._scopes[tenant] = ScopedCache(self.cache, root_of(tenant))
        return scope

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        return await self.view().aget(keys)

    async def aset(self, pairs: Mapping[FullKey, tuple[Any, int | None]]) -> None:
        await self.view().aset(pairs)

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        await self.view().aclear(namespaces)


def attach_cache(graphs: Mapping[str, GraphEntry], cache: BaseCache[Any] | None, *, tenants: bool) -> None:
    """Give every graph compiled without a cache the server's (None: no cache), each seen through the caller's tenant."""
    served = None if cache is None else TenantCache(cache, tenants=tenants)
    for entry in graphs.values():
        own = entry.graph.cache
        if own is None:
            entry.graph.cache = served
            continue
        log.info("graph %r keeps its own cache (%s)", entry.name, type(own).__name__)
        if tenants:
            entry.graph.cache = TenantCache(own, tenants=True)
