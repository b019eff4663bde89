"""A run's start that checks its thread's record in its own write (``ThreadMark(expected=)``).

LangGraph's HTTP API checks a run's thread before the run; on a chat's later
turns there is nothing to do, so the server hands the start what it expects of
the record (:class:`engine.host.Expected`) and the store checks it in the
start's transaction (SQLite: ``astart``; PostgreSQL: ``astart_taking``, the
lease, the record and the mark in one statement, or ``astart`` for a run that
took its lease on its own). Unmet, nothing is written:
no run record, no mark, no lease taken, and :class:`engine.host.RecordChanged`
is raised. Each test runs on every saver kind (the ``saver`` fixture).
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from engine.checkpoint import InMemorySaver
from engine.host import Expected, RecordChanged, ThreadMark, ThreadRecord, runs_of, threads_of
from tests.checkpoint.test_runs import T0, record

LABELS = {"graph_id": "g", "assistant_id": "a"}
EXPECTED = Expected("g:t", holds=LABELS, lacks={"unbound": True})


def thread(key: str = "g:t", graph: str = "g", caller: str = "t", metadata: dict[str, Any] | None = None) -> ThreadRecord:
    return ThreadRecord(key, graph, caller, T0, T0, metadata=dict(LABELS if metadata is None else metadata))


async def _start(saver: Any, run_id: str, expected: Expected = EXPECTED) -> Any:
    """The run's start as the server makes it on this saver: with its lease where there are leases."""
    runs = runs_of(saver)
    mark = ThreadMark(thread(), T0 + timedelta(seconds=5), status="busy", interrupts=b"", expected=expected)
    if runs.leases is not None:
        lease, first = await runs.astart_taking(record(run_id), "r1", 60, mark=mark)
        assert lease is not None and first is None
        await runs.leases.arelease_lease(lease)
        return lease
    assert await runs.astart(record(run_id), mark=mark) is None
    return None


@pytest.mark.parametrize(
    "case",
    ["no record", "another assistant", "labels missing", "unbound", "another graph's too"],
)
def test_an_unmet_expectation_writes_nothing(saver: Any, case: str) -> None:
    if isinstance(saver, InMemorySaver):
        pytest.skip("the memory run store writes no thread record (the server checks it with a read)")
    runs, threads = runs_of(saver), threads_of(saver)

    async def go() -> None:
        if case != "no record":
            metadata = {
                "another assistant": {**LABELS, "assistant_id": "b"}, "labels missing": {"graph_id": "g"},
                "unbound": {**LABELS, "unbound": True}, "another graph's too": LABELS,
            }[case]  # fmt: skip
            await threads.acreate(thread(metadata=metadata))
        if case == "another graph's too":  # the caller's thread id names a thread of another graph as well
            await threads.acreate(thread("h:t", graph="h"))
        before = await threads.aget("g:t")
        holder = await runs.leases.alease_holder("g:t") if runs.leases is not None else None
        with pytest.raises(RecordChanged):
            await _start(saver, "run-x")
        assert await runs.aget("run-x") is None
        assert await threads.aget("g:t") == before  # not made, not marked
        if runs.leases is not None:
            assert await runs.leases.alease_holder("g:t") == holder  # not taken
            taken = await runs.leases.aacquire_lease("g:t", "r2", ttl=60)
            assert taken is not None and taken.epoch == 1  # the first lease ever: none was taken before
            await runs.leases.arelease_lease(taken)

    asyncio.run(go())


def test_a_met_expectation_starts_the_run_and_marks_the_thread(saver: Any) -> None:
    if isinstance(saver, InMemorySaver):
        pytest.skip("the memory run store writes no thread record")
    runs, threads = runs_of(saver), threads_of(saver)

    async def go() -> None:
        await threads.acreate(thread(metadata={**LABELS, "unbound": False, "topic": "x"}))  # more keys: contained
        await _start(saver, "run-1")
        rec = await runs.aget("run-1")
        assert rec is not None and rec.status == "RUNNING"
        got = await threads.aget("g:t")
        assert got is not None and got.status == "busy" and got.updated_at == T0 + timedelta(seconds=5)
        assert got.metadata == {**LABELS, "unbound": False, "topic": "x"}  # the mark changes no metadata
        # Without an expectation the start is as before: it makes the record of a thread that has none.
        mark = ThreadMark(thread("g:u", caller="u", metadata={}), T0, status="busy")
        if runs.leases is not None:
            lease, _ = await runs.astart_taking(record("run-2", "g:u"), "r1", 60, mark=mark)
            assert lease is not None
        else:
            assert await runs.astart(record("run-2", "g:u"), mark=mark) is None
        assert await threads.aget("g:u") is not None

    asyncio.run(go())


def test_postgresqls_start_after_its_lease_checks_it_too(saver: Any) -> None:
    """``astart`` on PostgreSQL (a run whose start waited for another replica's lease, then took it on
    its own) checks the record in the same statement as the record and the mark."""
    runs, threads = runs_of(saver), threads_of(saver)
    if runs.leases is None:
        pytest.skip("only PostgreSQL's run store takes leases with its records")

    async def go() -> None:
        mark = ThreadMark(thread(), T0 + timedelta(seconds=5), status="busy", expected=EXPECTED)
        await threads.acreate(thread(metadata={**LABELS, "assistant_id": "b"}))
        with pytest.raises(RecordChanged):
            await runs.astart(record("run-3"), mark=mark)
        assert await runs.aget("run-3") is None
        got = await threads.aget("g:t")
        assert got is not None and got.status == "idle" and got.updated_at == T0  # not marked
        await threads.aupdate("g:t", T0 + timedelta(seconds=1), metadata=LABELS)
        assert await runs.astart(record("run-3"), mark=mark) is None
        got = await threads.aget("g:t")
        assert await runs.aget("run-3") is not None and got is not None and got.status == "busy"

    asyncio.run(go())


def test_expected_is_met_by_exactly_its_record() -> None:
    mine = thread()
    assert EXPECTED.met_by([mine])
    assert not EXPECTED.met_by([])
    assert not EXPECTED.met_by([mine, thread("h:t", graph="h")])
    assert not EXPECTED.met_by([thread("h:t", graph="h")])  # another key
    assert not EXPECTED.met_by([thread(metadata={**LABELS, "unbound": True})])
    assert EXPECTED.met_by([thread(metadata={**LABELS, "unbound": 1})])  # JSON's 1 is not true (as PostgreSQL's @>)
    assert not EXPECTED.met_by([thread(metadata={**LABELS, "assistant_id": ["a"]})])
