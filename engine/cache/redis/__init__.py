"""A node cache in Redis, at LangGraph's import path (``langgraph.cache.redis``).

For a team that already runs Redis beside its graphs: graphwire itself needs
no Redis (its caches in a database are :class:`~engine.cache.sqlite.SqliteCache`
and :class:`~engine.cache.postgres.PostgresCache`), and coordinates nothing
through it. The client is redis-py's (``redis.Redis``, sync; ``pip install
redis``), given by the program, as LangGraph's cache takes it.

An entry is one Redis string under ``<prefix><number of ns parts>:<part>:…:<key>``
(``:`` and ``\\`` escaped in each part, so namespaces and keys match exactly) holding ``<expiry or empty>|<type tag>|<bytes>``: the ttl is enforced twice,
by Redis's own expiry (which frees the memory) and by the expiry time read
back through the cache's clock (so a read never returns an expired value,
and a test's moved clock is obeyed). Values go through the engine's
allowlisted serializer, never pickle. A Redis that cannot be reached makes a
read a miss and a write a no-op (the node runs, as without a cache), each
logged once a minute, as LangGraph's cache also carries on without it.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

from engine.cache.base import BaseCache, FullKey, Namespace, ValueT
from engine.serde import Serializer

__all__ = ["RedisCache"]

log = logging.getLogger("engine.cache.redis")
_LOG_EVERY = 60.0


class RedisCache(BaseCache[ValueT]):
    """Cached node writes in Redis, each with an optional ttl in seconds.

    Args:
        redis: a redis-py client (``redis.Redis``).
        serde: the serializer of cached values (default: the engine's).
        prefix: put before every key, so several caches can share one Redis.
    """

    def __init__(self, redis: Any, *, serde: Serializer | None = None, prefix: str = "langgraph:cache:") -> None:
        super().__init__(serde=serde)
        self.redis = redis
        self.prefix = prefix
        self._logged = 0.0

    def _key(self, ns: Namespace, key: str) -> str:
        return self._ns(ns) + _part(key)

    def _ns(self, ns: Namespace) -> str:
        return f"{self.prefix}{len(ns)}:" + "".join(_part(p) + ":" for p in ns)

    # -- the sync calls (redis-py's client is sync); the async ones run them off the loop --
    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        if not keys:
            return {}
        try:
            raw = self.redis.mget([self._key(ns, k) for ns, k in keys])
        except Exception as e:
            self._unavailable("read", e)
            return {}
        now, out, expired = self._now(), {}, []
        for full, value in zip(keys, raw):
            if value is None:
                continue
            try:
                expires, tag, data = bytes(value).split(b"|", 2)
                if expires and float(expires) <= now:
                    expired.append(self._key(*full))  # gone once read expired, as in every cache here
                    continue
                out[full] = self.serde.loads_typed((tag.decode(), data))
            except Exception:  # an entry this cache did not write, or a class no longer allowed: a miss
                continue
        if expired:
            try:
                self.redis.delete(*expired)
            except Exception as e:
                self._unavailable("delete", e)
        return out

    def set(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        if not pairs:
            return
        now = self._now()
        pipe = self.redis.pipeline()
        for (ns, key), (value, ttl) in pairs.items():
            tag, data = self.serde.dumps_typed(value)  # a value outside the allowlist fails here, loudly
            expires = b"" if ttl is None else repr(now + ttl).encode()
            stored = expires + b"|" + tag.encode() + b"|" + data
            if ttl is None:
                pipe.set(self._key(ns, key), stored)
            else:
                pipe.set(self._key(ns, key), stored, ex=max(1, math.ceil(ttl)))
        try:
            pipe.execute()
        except Exception as e:
            self._unavailable("write", e)

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        patterns = [f"{self.prefix}*"] if namespaces is None else [self._ns(ns) + "*" for ns in namespaces]
        try:
            for pattern in patterns:
                batch = list(self.redis.scan_iter(match=_escaped(pattern), count=500))
                if batch:
                    self.redis.delete(*batch)
        except Exception as e:
            self._unavailable("clear", e)

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        return await asyncio.to_thread(self.get, keys)

    async def aset(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        await asyncio.to_thread(self.set, pairs)

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        await asyncio.to_thread(self.clear, namespaces)

    def _unavailable(self, what: str, e: Exception) -> None:
        now = time.monotonic()
        if now - self._logged >= _LOG_EVERY:
            self._logged = now
            log.warning("node cache in Redis: %s failed (%s: %s); running without the cache", what, type(e).__name__, e)


def _part(text: str) -> str:
    return text.replace("\\", "\\\\").replace(":", "\\:")


def _escaped(pattern: str) -> str:
    """A SCAN pattern matching ``pattern``'s text literally up to its final ``*``."""
    body = pattern[:-1]
    for ch in "\\[]?*":
        body = body.replace(ch, "\\" + ch)
    return body + "*"
