"""The store contract: long-term memory shared across threads.

A store keeps JSON-like dicts under ``(namespace, key)``, where a namespace is
a tuple of labels (``("memories", user_id)``). A graph compiled with
``store=`` hands it to nodes that ask for it (a ``store`` parameter, or
:func:`engine.config.get_store`), so what one conversation learns another
can read.

Written once, async: a store implements :meth:`BaseStore.abatch`; every
other method builds ops and calls it, and the sync face (``get``, ``put``…)
is derived through :mod:`engine._internal._sync`, never hand-copied.
"""

from __future__ import annotations

import abc
import concurrent.futures
import logging
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from engine._internal._sync import run_sync
from engine.errors import InvalidNamespaceError
from engine.store.base._types import (
    NOT_PROVIDED,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    NamespacePath,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    validate_labels,
    validate_namespace,
)

__all__ = ["BaseStore"]

_log = logging.getLogger(__name__)


def _namespace(namespace: Any) -> tuple[str, ...]:
    if isinstance(namespace, str):
        raise InvalidNamespaceError(f"A namespace is a tuple of labels, not a string: use ({namespace!r},)")
    return tuple(namespace)


class BaseStore(abc.ABC):
    """Items under hierarchical namespaces, with optional TTLs and semantic search.

    Subclasses implement :meth:`abatch` (every op of a batch checked before
    any runs, reads seeing the store as it was before the batch's puts); TTL
    stores set ``supports_ttl`` and implement :meth:`asweep_ttl`.
    """

    supports_ttl: bool = False
    ttl_config: TTLConfig | None = None

    @abc.abstractmethod
    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` as one batch; one result per op, in order (None for a put)."""

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return run_sync(self.abatch(list(ops)))

    # -- the methods graph code calls ----------------------------------------
    def _refresh(self, refresh_ttl: bool | None) -> bool:
        if refresh_ttl is not None:
            return refresh_ttl
        return True if self.ttl_config is None else self.ttl_config.get("refresh_on_read", True)

    def _ttl(self, ttl: float | None | NotProvided) -> float | None:
        if isinstance(ttl, NotProvided):
            return self.ttl_config.get("default_ttl") if self.ttl_config else None
        if ttl is not None and not self.supports_ttl:
            raise NotImplementedError(
                f"TTL is not supported by {type(self).__name__}. "
                "Use a store implementation that supports TTL or set ttl=None."
            )
        return ttl

    async def aget(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None) -> Item | None:
        """The item at ``(namespace, key)``, or None."""
        namespace = _namespace(namespace)
        validate_labels(namespace)
        return (await self.abatch([GetOp(namespace, str(key), self._refresh(refresh_ttl))]))[0]  # type: ignore[return-value]

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """Items under ``namespace_prefix`` that match ``filter``, ranked by ``query`` when the store indexes."""
        namespace_prefix = _namespace(namespace_prefix)
        validate_labels(namespace_prefix)
        op = SearchOp(namespace_prefix, filter, limit, offset, query, self._refresh(refresh_ttl))
        return (await self.abatch([op]))[0]  # type: ignore[return-value]

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | None | NotProvided = NOT_PROVIDED,
    ) -> None:
        """Store ``value`` at ``(namespace, key)``; ``ttl`` minutes (default: the store's ``default_ttl``)."""
        namespace = _namespace(namespace)
        validate_namespace(namespace)
        await self.abatch([PutOp(namespace, str(key), value, index=index, ttl=self._ttl(ttl))])

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """Delete the item at ``(namespace, key)`` (nothing happens when there is none)."""
        namespace = _namespace(namespace)
        validate_labels(namespace)
        await self.abatch([PutOp(namespace, str(key), None)])

    async def alist_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """Namespaces holding items, sorted, optionally under ``prefix`` / ending in ``suffix`` (``"*"``: any label)."""
        conditions = []
        if prefix:
            prefix = _namespace(prefix)
            validate_labels(prefix)
            conditions.append(MatchCondition(match_type="prefix", path=prefix))
        if suffix:
            suffix = _namespace(suffix)
            validate_labels(suffix)
            conditions.append(MatchCondition(match_type="suffix", path=suffix))
        op = ListNamespacesOp(match_conditions=tuple(conditions), max_depth=max_depth, limit=limit, offset=offset)
        return (await self.abatch([op]))[0]  # type: ignore[return-value]

    async def asweep_ttl(self) -> int:
        """Delete expired items now; how many went.

        Raises:
            NotImplementedError: this store has no TTLs (``supports_ttl`` is false).
        """
        raise NotImplementedError(f"{type(self).__name__} has no TTLs (supports_ttl is False)")

    async def aclose(self) -> None:
        """Release resources (connections, files) and stop the TTL sweeper."""

    # -- the sync face, derived -----------------------------------------------
    def get(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None) -> Item | None:
        return run_sync(self.aget(namespace, key, refresh_ttl=refresh_ttl))

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        return run_sync(
            self.asearch(
                namespace_prefix, query=query, filter=filter, limit=limit, offset=offset, refresh_ttl=refresh_ttl
            )
        )

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | None | NotProvided = NOT_PROVIDED,
    ) -> None:
        return run_sync(self.aput(namespace, key, value, index, ttl=ttl))

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        return run_sync(self.adelete(namespace, key))

    def list_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        return run_sync(
            self.alist_namespaces(prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset)
        )

    def sweep_ttl(self) -> int:
        return run_sync(self.asweep_ttl())

    def close(self) -> None:
        BaseStore.stop_ttl_sweeper(self)  # (the sync one: an async store's own is a coroutine)
        return run_sync(self.aclose())

    # -- the background sweeper -----------------------------------------------
    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> concurrent.futures.Future[None]:
        """Sweep expired items every ``sweep_interval_minutes`` (default: the TTL config's, else 5) on a thread.

        Returns a future that completes when :meth:`stop_ttl_sweeper` stops
        it. Starting it twice returns the running sweeper's future.

        Raises:
            NotImplementedError: this store has no TTLs.
        """
        if not self.supports_ttl:
            raise NotImplementedError(f"{type(self).__name__} has no TTLs (supports_ttl is False)")
        running: tuple[threading.Event, concurrent.futures.Future[None]] | None = getattr(self, "_sweeper", None)
        if running is not None and not running[1].done():
            return running[1]
        minutes = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5
        stop, done = threading.Event(), concurrent.futures.Future[None]()

        def loop() -> None:
            while not stop.wait(minutes * 60):
                try:
                    run_sync(self.asweep_ttl())  # (not sweep_ttl: an async store's is a coroutine)
                except Exception:  # a failed sweep is retried at the next interval
                    _log.exception("store TTL sweep failed")
            done.set_result(None)

        self._sweeper = (stop, done)
        threading.Thread(target=loop, name=f"{type(self).__name__}-ttl-sweeper", daemon=True).start()
        return done

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; whether it stopped within ``timeout`` seconds (True when none ran)."""
        running = getattr(self, "_sweeper", None)
        if running is None:
            return True
        running[0].set()
        try:
            running[1].result(timeout)
        except concurrent.futures.TimeoutError:
            return False
        return True
