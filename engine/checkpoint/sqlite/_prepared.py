"""A chain of versions made ready for one transaction, stored alone or with the end of the run that made them.

:meth:`SqliteSaver.prepare_many <engine.checkpoint.sqlite.SqliteSaver.prepare_many>`
does what ``aput_many`` does before its transaction (serialize, plan each
version's deltas, which the delta cache assumes until it commits) and hands
back a :class:`PreparedWrite`. A host that holds a run's last write
(``engine.host.Landing(takes_last=True)``, engine/pregel/_landing.py) has the
run store write the run's end (its record, last events, thread's mark) in the
same transaction (:class:`Ending`, ``SqliteRuns.afinish(versions=...)``): one
call on the file and one commit where there were two. PostgreSQL's
counterpart is engine/checkpoint/postgres/_prepared.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.checkpoint._helpers import make_config
from engine.checkpoint._sql_write import SqlDeltas

__all__ = ["Ending", "PreparedWrite"]


class Ending:
    """A run's end, written in the versions' transaction: ``fn(cursor)``; what it returned is :attr:`value`
    once the transaction committed."""

    __slots__ = ("fn", "value")

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.value: Any = None


class PreparedWrite:
    """Versions of one thread (and pending writes of them), serialized and planned, to store once.

    ``put`` is the file's transaction that stores them (``Writes._put``), ``work`` the file's
    :meth:`~engine.checkpoint.sqlite._file.SaverFile.work` (a run store of the same file checks
    it before writing its end here)."""

    __slots__ = ("work", "_put", "_deltas", "_versions", "_rows", "_thread_id")

    def __init__(
        self, work: Callable[..., Any], put: Callable[..., Any], deltas: SqlDeltas, versions: Sequence[Any], rows: Sequence[Any],
        thread_id: str,
    ) -> None:
        self.work = work
        self._put = put
        self._deltas = deltas
        self._versions = versions
        self._rows = rows
        self._thread_id = thread_id

    async def astore(self, ending: Ending | None = None) -> list[dict[str, Any]]:
        """Store them (and ``ending``, in the same transaction): all or none. Their configs."""
        try:
            inserted = await self.work(self._put, self._versions, self._rows, ending)
        except BaseException:
            self._deltas.forget_thread(self._thread_id)
            raise
        for (tid, ns, plan, _), channels in zip(self._versions, inserted):
            self._deltas.commit(tid, ns, plan, channels)
        return [make_config(tid, ns, row[2]) for tid, ns, _, row in self._versions]
