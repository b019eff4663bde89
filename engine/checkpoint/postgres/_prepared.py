"""A chain of versions made ready for one statement, stored alone or with the end of the run that made them.

:meth:`PostgresSaver.prepare_many` does what ``aput_many`` does before its
statement (serialize, plan each version's deltas, which the saver's delta
cache assumes until the statement commits) and hands back a
:class:`PreparedPut`; ``aput_many`` is ``prepare_many`` then :meth:`PreparedPut.astore`.

Why a host wants it: a run of fast steps writes its versions together at its
end (the writer's linger), and the host then writes the run's end (its
record's status and final event, its last events, its thread's mark, its lease
let go): two statements, two commits, where one does. A host that holds a
run's last write (``engine.host.Landing(takes_last=True)``) gets it prepared
and has the run store put the end's parts into the same statement
(:meth:`PreparedPut.astore` with an ``ending``: :data:`~._queries.PUT_ENDING`
and ``PostgresRuns``). The end's parts are written only if the lease's fence
matched, so a refused write stores neither the versions nor the end.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from engine.checkpoint._delta import record_size
from engine.checkpoint._helpers import make_config, parse_config
from engine.checkpoint.base import LEASE_KEY, Lease, check_chain
from engine.checkpoint.postgres._rows import Batch, Put, TaskWrites

__all__ = ["Ending", "PreparedPut", "prepare"]

#: The row an ending adds to the statement's result, and its name there.
END_ROW = "graphwire:end"


class Ending:
    """The end's part of a fused statement (made by ``PostgresRuns``): the whole statement, with
    positional placeholders (``sql``; its parameters' names in order: ``names``, see
    ``engine._sql.postgres.text.positional``: it is longer than psycopg remembers parsed), and the
    end's parameters (prefixed, so they meet none of the put's). After the statement, :attr:`value`
    holds what the end's row said."""

    __slots__ = ("sql", "names", "params", "value")

    def __init__(self, sql: str, names: tuple[str, ...], params: dict[str, Any]) -> None:
        self.sql = sql
        self.names = names
        self.params = params
        self.value: int | None = None

    def values(self, put: dict[str, Any]) -> list[Any]:
        """The statement's values in order: ``put``'s parameters (the versions', the fence's) and the end's."""
        both = {**put, **self.params}
        return [both[name] for name in self.names]


class PreparedPut:
    """Versions of one thread and namespace, and pending writes of them, ready for one statement
    (see the module's doc), to store once (the saver's delta cache assumes it is)."""

    __slots__ = ("saver", "batch", "config", "last_id")

    def __init__(self, saver: Any, batch: Batch, config: Mapping[str, Any]) -> None:
        self.saver = saver  # a PostgresSaver
        self.batch = batch
        self.config = config  # the first put's (its lease is the batch's fencing token)
        #: the id of the chain's last version
        self.last_id = batch.puts[-1].checkpoint_id

    @property
    def tables(self) -> dict[str, str]:
        """The saver's tables: a run store fuses its end in only when they are its own."""
        return self.saver._q.tables

    def lease(self) -> Lease | None:
        """The fencing token the statement checks, when it moves the thread's head (a root-namespace
        chain): an ending needs one, and its release must be this lease."""
        lease = (self.config.get("configurable") or {}).get(LEASE_KEY)
        return lease if isinstance(lease, Lease) and self.batch.ns == "" else None

    async def astore(self, ending: Ending | None = None) -> list[dict[str, Any]]:
        """Store the chain (and, with ``ending``, the run's end: its row's value goes to
        ``ending.value``); the configs of the versions stored."""
        saver, batch = self.saver, self.batch
        thread_id, ns = batch.thread_id, batch.ns
        try:
            inserted = await saver._run("put", saver._storer(batch, self.config, ending))
        except BaseException:
            saver._deltas.forget_thread(thread_id)
            raise
        for put, channels in zip(batch.puts, inserted):
            record_size(put.plan, channels)
            saver._deltas.committed(put.plan)
        if any(len(channels) != len(put.plan.rows) for put, channels in zip(batch.puts, inserted)):
            # Some rows were there already (a batch stored again after an unknown
            # outcome): they hold what was stored first, which the cache must not assume.
            saver._deltas.forget_thread(thread_id)
        return [make_config(thread_id, ns, put.checkpoint_id) for put in batch.puts]


def prepare(saver: Any, puts: Sequence[tuple[Any, ...]], writes: Sequence[tuple[Any, ...]]) -> PreparedPut | None:
    """``PostgresSaver.prepare_many`` (``saver``'s ``aput_many`` up to its statement); None for what one
    statement cannot store (no version, or a version named twice)."""
    check_chain(puts)
    if not puts or len({cp["id"] for _, cp, _, _ in puts}) < len(puts):
        return None
    dumped = [(c, tid, path[0] if path else "", saver._dump_writes(c, w, tid)) for c, w, tid, *path in writes]
    thread_id, ns, _ = parse_config(puts[0][0])
    prepared: list[Put] = []
    try:
        for config, checkpoint, metadata, new_versions in puts:
            tid, ns, put = saver._prepare_put(config, checkpoint, metadata, new_versions)
            saver._deltas.assume(tid, ns, put.plan)
            prepared.append(put)
        task_writes = TaskWrites.with_versions(saver.serde, dumped, prepared, thread_id, ns)
    except BaseException:
        saver._deltas.forget_thread(thread_id)
        raise
    return PreparedPut(saver, Batch(thread_id, ns, prepared, task_writes), puts[0][0])
