"""What the SQL caches share: keys as stored, expiry, decoding, and the sweep that rides on writes.

A full key is stored as two text columns: the namespace as a JSON array
and the key as a JSON string (``json.dumps`` with ASCII escapes). That
encoding is exact (a namespace ``("a,b",)`` never meets ``("a", "b")``, as
it would if labels were joined) and holds any text, NUL and lone surrogates
included, so no caller's label or key needs refusing or can change a
statement: every statement is fixed text with bound parameters.

An entry's ``expires_at`` is seconds since the epoch (NULL: never), on the
writing process's clock (``_now``), so every cache kind expires alike and a
test moves one clock for all. An expired entry is a miss; the read that
finds it deletes it (only if it is still expired: a replica may have just
written it again), and at most every :attr:`SqlCache.sweep_seconds` a write
also deletes every expired entry, so keys that are never read again do not
pile up.

A row that does not decode (written by a newer graphwire, or damaged) is a
miss, logged: the node runs and its new writes replace the row. Decoding
never imports or calls what the bytes name (:mod:`engine.serde`).
"""

from __future__ import annotations

import abc
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from engine._internal._sync import run_sync
from engine.cache.base import BaseCache, FullKey, Namespace
from engine.serde import Serializer

__all__ = ["Row", "SqlCache", "encode_key", "encode_ns"]

log = logging.getLogger("graphwire.cache")

#: ``(ns, key, expires_at, encoding, value)`` as stored.
Row = tuple[str, str, float | None, str, bytes]


def encode_ns(ns: Namespace) -> str:
    if not isinstance(ns, tuple) or not all(isinstance(label, str) for label in ns):
        raise TypeError(f"a cache namespace is a tuple of strings, not {ns!r}")
    return json.dumps(list(ns))


def encode_key(key: str) -> str:
    if not isinstance(key, str):
        raise TypeError(f"a cache key is a string, not {key!r}")
    return json.dumps(key)


class SqlCache(BaseCache[Any], abc.ABC):
    """The cache contract over a table of :data:`Row`; a subclass supplies the five statements' runs."""

    #: How often (seconds, at most) a write also deletes every expired entry.
    sweep_seconds: float = 300.0

    def __init__(self, *, serde: Serializer | None = None) -> None:
        super().__init__(serde=serde)
        self._next_sweep = float("-inf")

    # -- what a backend runs ------------------------------------------------------
    @abc.abstractmethod
    async def _select(self, keys: Sequence[tuple[str, str]]) -> list[Row]:
        """The rows of those encoded ``keys`` that exist (expired or not)."""

    @abc.abstractmethod
    async def _delete_expired(self, keys: Sequence[tuple[str, str]], now: float) -> None:
        """Delete those of ``keys`` whose entry is still expired at ``now``."""

    @abc.abstractmethod
    async def _upsert(self, rows: Sequence[Row], sweep_at: float | None) -> None:
        """Write ``rows`` in one transaction (in this order); with ``sweep_at``, also delete what expired by then."""

    @abc.abstractmethod
    async def _delete(self, namespaces: Sequence[str] | None) -> None:
        """Delete every entry in those encoded namespaces (None: every entry)."""

    @abc.abstractmethod
    async def _sweep(self, now: float) -> int:
        """Delete every entry expired at ``now``; how many."""

    # -- the contract ---------------------------------------------------------------
    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        wanted = {(encode_ns(ns), encode_key(key)): (ns, key) for ns, key in keys}
        if not wanted:
            return {}
        rows = await self._select(sorted(wanted))
        now = self._now()
        out: dict[FullKey, Any] = {}
        expired: list[tuple[str, str]] = []
        for ns, key, expires_at, encoding, raw in rows:
            full = wanted.get((ns, key))
            if full is None:
                continue
            if expires_at is not None and expires_at <= now:
                expired.append((ns, key))
                continue
            try:
                out[full] = self._load((encoding, bytes(raw)))
            except Exception as exc:  # noqa: BLE001 - any undecodable row is a miss
                log.warning("cache: the entry %r does not decode (%s: %s); treated as a miss", full, type(exc).__name__, exc)
        if expired:
            await self._delete_expired(expired, now)
        return out

    async def aset(self, pairs: Mapping[FullKey, tuple[Any, int | None]]) -> None:
        if not pairs:
            return
        now = self._now()
        rows: list[Row] = []
        for (ns, key), (value, ttl) in pairs.items():
            if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, (int, float))):
                raise TypeError(f"a cache ttl is a number of seconds or None, not {ttl!r}")
            encoding, raw = self._dump(value)
            rows.append((encode_ns(ns), encode_key(key), None if ttl is None else now + ttl, encoding, raw))
        rows.sort(key=lambda r: (r[0], r[1]))  # one order for every writer: no deadlock between replicas
        sweep_at = None
        if now >= self._next_sweep:
            sweep_at, self._next_sweep = now, now + self.sweep_seconds
        await self._upsert(rows, sweep_at)

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        await self._delete(None if namespaces is None else sorted({encode_ns(ns) for ns in namespaces}))

    async def asweep(self) -> int:
        """Delete every expired entry now; how many were deleted."""
        return await self._sweep(self._now())

    def sweep(self) -> int:
        return run_sync(self.asweep())
