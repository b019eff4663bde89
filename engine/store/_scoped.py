"""One store, seen through scopes: how a server keeps its tenants' memories apart.

A scope is a *root label* put in front of every namespace of the scope's
callers. The root holds a ``.``, which no label a caller passes may hold
(:func:`~engine.store.base.validate_op_namespace` refuses it), so no
caller can name, forge or reach into another scope's namespaces, whatever
labels it sends: ``ScopedStore(store, "tenant.acme")`` checks each op with
the usual rules first, then prefixes it, and takes the root off what comes
back. Prefix and namespace matching stay exact (whole labels), so
``("tenant.acme",)`` is never a prefix of ``("tenant.acme-2",)``.

``ScopedStore(store, None)`` is the view from outside every scope: the
store as it is, minus the scoped namespaces. Only reads that could reach a
scope (a search of every namespace, a listing whose prefix does not name
its first label) need work: they read pages until enough unscoped results
are found. Those extra pages are read after the batch's puts, and a search
refreshes the TTLs of the scoped items it skipped; both matter only to a
store used with and without scopes at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.store._logic import plan
from engine.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

__all__ = ["ScopedStore", "StoreView", "is_scoped"]


def is_scoped(namespace: tuple[str, ...]) -> bool:
    """Whether ``namespace`` lies in a scope (its first label is a root: it holds a ``.``)."""
    return bool(namespace) and "." in namespace[0]


def _runs_checked_batches(store: BaseStore) -> bool:
    return callable(getattr(type(store), "_run", None))


class StoreView(BaseStore):
    """A store that answers through another one (``self.store``), whose configuration it reads.

    The configuration is what the methods built on ``abatch`` read (default
    TTL, refresh on read) and what callers check (``index_config``).
    """

    store: BaseStore

    @property
    def supports_ttl(self) -> bool:  # type: ignore[override]
        return self.store.supports_ttl

    @property
    def ttl_config(self) -> TTLConfig | None:  # type: ignore[override]
        return self.store.ttl_config

    @property
    def index_config(self) -> dict[str, Any] | None:
        return getattr(self.store, "index_config", None)

    async def asweep_ttl(self) -> int:
        """Sweep the whole store (a sweep only removes what has expired, whoever wrote it)."""
        return await self.store.asweep_ttl()

    async def aclose(self) -> None:
        """Nothing: a view does not own the store it looks through."""


class ScopedStore(StoreView):
    """``store`` as the callers of one scope (``root``) see it, or from outside every scope (None).

    Args:
        store: one of the engine's stores (in-memory, SQLite, PostgreSQL).
        root: the scope's root label: non-empty, holding a ``.`` and no NUL.

    Raises:
        TypeError: ``store`` is not one of the engine's stores.
        ValueError: ``root`` cannot be a root label.
    """

    def __init__(self, store: BaseStore, root: str | None) -> None:
        if not _runs_checked_batches(store):
            raise TypeError(f"a {type(store).__name__} cannot be scoped: use InMemoryStore, SqliteStore or PostgresStore")
        if root is not None and (not isinstance(root, str) or "." not in root or "\x00" in root):
            raise ValueError(f"a scope's root label holds a '.' (which no caller's label may) and no NUL, got {root!r}")
        self.store = store
        self.root = root

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        plan(ops)  # the caller's ops, by the caller's rules: nothing runs if one is bad
        if self.root is None:
            return await self._outside(ops)
        inner = [self._into(op, self.root) for op in ops]
        results = await self.store._run(plan(inner, check_namespaces=False))  # type: ignore[attr-defined]
        return [self._out(result) for result in results]

    # -- into and out of a scope -------------------------------------------------
    @staticmethod
    def _into(op: Op, label: str) -> Op:
        root = (label,)
        if isinstance(op, (GetOp, PutOp)):
            return op._replace(namespace=root + op.namespace)
        if isinstance(op, SearchOp):
            return op._replace(namespace_prefix=root + op.namespace_prefix)
        assert isinstance(op, ListNamespacesOp)
        conditions = list(op.match_conditions or ())
        # A suffix lines up with a namespace's last labels; padding keeps it off the root: the
        # namespace must have at least as many labels of its own as the suffix has.
        depth = max((len(c.path) for c in conditions if c.match_type == "suffix"), default=0)
        scoped = [MatchCondition("prefix", root + ("*",) * depth)]
        for c in conditions:
            scoped.append(MatchCondition("prefix", root + tuple(c.path)) if c.match_type == "prefix" else c)
        max_depth = None if op.max_depth is None else op.max_depth + 1
        return op._replace(match_conditions=tuple(scoped), max_depth=max_depth)

    def _out(self, result: Result) -> Result:
        if isinstance(result, Item):
            return _moved(result, result.namespace[1:])
        if isinstance(result, list):
            return [_moved(r, r.namespace[1:]) if isinstance(r, Item) else tuple(r[1:]) for r in result]  # type: ignore[return-value]
        return result

    # -- outside every scope -----------------------------------------------------
    async def _outside(self, ops: list[Op]) -> list[Result]:
        """The store minus the scopes: reads that could reach one are paged past it."""
        wide = [_wide(op) if _reaches_scopes(op) else op for op in ops]
        results = await self.store.abatch(wide)
        for i, op in enumerate(ops):
            if wide[i] is not op:
                results[i] = await self._unscoped_page(op, results[i])  # type: ignore[arg-type]
        return results

    async def _unscoped_page(self, op: SearchOp | ListNamespacesOp, first: list[Any]) -> list[Any]:
        if isinstance(op, ListNamespacesOp) and op.max_depth == 0:
            # Every namespace truncates to (): there is one answer iff an unscoped namespace exists.
            probe = op._replace(max_depth=1, limit=1, offset=0)
            found = await self._unscoped_page(probe, (await self.store.abatch([probe]))[0])  # type: ignore[arg-type]
            return [()][op.offset : op.offset + op.limit] if found else []
        want = op.offset + op.limit
        fetched, got = want, first
        while True:
            visible = [r for r in got if not is_scoped(r.namespace if isinstance(r, Item) else r)]
            if len(visible) >= want or len(got) < fetched:
                return visible[op.offset : want]
            fetched += len(got) - len(visible)  # at least doubles when a whole page was scoped
            got = (await self.store.abatch([op._replace(offset=0, limit=fetched)]))[0]  # type: ignore[assignment]


def _moved(item: Item, namespace: tuple[str, ...]) -> Item:
    if isinstance(item, SearchItem):
        return SearchItem(namespace, item.key, item.value, item.created_at, item.updated_at, item.score)
    return Item(value=item.value, key=item.key, namespace=namespace, created_at=item.created_at, updated_at=item.updated_at)


def _reaches_scopes(op: Op) -> bool:
    """Whether a read may return scoped namespaces (its first label is not pinned to a caller's label)."""
    if isinstance(op, SearchOp):
        return not op.namespace_prefix
    if isinstance(op, ListNamespacesOp):
        return not any(c.match_type == "prefix" and c.path and c.path[0] != "*" for c in op.match_conditions or ())
    return False


def _wide(op: Op) -> Op:
    """``op`` from its first result on, so that its page can be cut after the scoped results are dropped."""
    assert isinstance(op, (SearchOp, ListNamespacesOp))
    return op._replace(offset=0, limit=op.offset + op.limit)
