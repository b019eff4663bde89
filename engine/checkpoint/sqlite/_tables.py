"""What the SQLite saver's record stores (threads, assistants, crons, webhooks, delayed runs) share:
the saver's worker and lock, and one transaction per call."""

from __future__ import annotations

from typing import Any

from engine.checkpoint.sqlite._runs import Transaction, Work

__all__ = ["FileTables"]


class FileTables:
    """Tables in a SQLite saver's file, reached on its ``work`` (its worker thread) and ``transaction``
    (its lock and a transaction begun with the given statement)."""

    def __init__(self, work: Work, transaction: Transaction) -> None:
        self._work = work
        self._transaction = transaction

    async def _in(self, begin: str, fn: Any) -> Any:
        """``fn(cursor)`` in one transaction begun with ``begin`` ("BEGIN", or "BEGIN IMMEDIATE" to write)."""

        def work() -> Any:
            with self._transaction(begin) as cur:
                return fn(cur)

        return await self._work(work)
