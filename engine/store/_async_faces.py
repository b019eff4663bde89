"""The TTL methods of LangGraph's async stores, which are coroutines there.

LangGraph's ``AsyncSqliteStore`` and ``AsyncPostgresStore`` answer
``await store.sweep_ttl()``, ``await store.start_ttl_sweeper()`` and ``await
store.stop_ttl_sweeper()``; the engine's stores are one class for both faces,
whose TTL methods are sync (and ``asweep_ttl`` async). The async openings mix
this in: the same work, awaited. The sweeper is the store's thread either way.
"""

from __future__ import annotations

import asyncio
from typing import Any

from engine.store.base import BaseStore

__all__ = ["AsyncTTLFaces"]


class AsyncTTLFaces:
    """``sweep_ttl``, ``start_ttl_sweeper`` and ``stop_ttl_sweeper`` as coroutines (LangGraph's async stores')."""

    async def sweep_ttl(self: Any) -> int:
        """Delete expired items now; how many went."""
        return int(await self.asweep_ttl())

    async def start_ttl_sweeper(self: Any, sweep_interval_minutes: float | None = None) -> asyncio.Future[None]:
        """Start the store's sweeper (a thread); a future that completes when it stops."""
        return asyncio.wrap_future(BaseStore.start_ttl_sweeper(self, sweep_interval_minutes))

    async def stop_ttl_sweeper(self: Any, timeout: float | None = None) -> bool:
        """Stop the sweeper; whether it stopped within ``timeout`` seconds (True when none ran)."""
        return await asyncio.to_thread(BaseStore.stop_ttl_sweeper, self, timeout)
