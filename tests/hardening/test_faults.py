"""Persistence faults: a saver failing 1% and 10% of its calls loses nothing.

A real server runs in-process (in the test's event loop) on SQLite and on
PostgreSQL, its saver wrapped in :class:`tests.hardening._faults.FaultySaver`
(seeded: errors, timeouts, and writes committed but reported as timeouts).
A bounded workload (20 chain3 and 6 fan-out threads × 5 turns, and 6 reminders
conversations with interrupts and resumes) runs concurrently through the
Python client. Then:

* callers saw only UNAVAILABLE or ABORTED (never UNKNOWN or INTERNAL), or
  successful results ending as expected;
* with faults switched off, recovering each failed thread (re-send the turn
  when nothing was stored, else ``invoke(None)`` / resume again) completes
  every script;
* each thread's history is one chain (every parent exists, one child per
  parent), with as many versions, of the same sources and steps, as a
  fault-free run: no duplicate and no orphaned versions;
* the final state of every thread equals that of a fault-free run of the same
  inputs (ids of messages aside, which the scripted model draws at random).

No sleeps and no timing assertions: faults are decided per (seed, method,
thread, call number), so the threads of sequential graphs meet the same faults
on every run (the fan-out graph's parallel tasks can shift its own).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from graphwire import AsyncClient

from engine.checkpoint import InMemorySaver, SqliteSaver
from engine.errors import CheckpointError
from server.app import build_server
from server.config import ServerConfig
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg
from tests.hardening._faults import (
    FAULT_KINDS,
    FaultySaver,
    Script,
    drive,
    normalize,
    scripts,
)

GRAPHS = {
    "chain3": "tests.graphs:chain3",
    "fanout": "tests.hardening._faults:fanout",
    "reminders": "tests.hardening._faults:reminders",
}
SEED = 8
ALLOWED = {"ok", "Unavailable", "Aborted"}


async def _history_shape(client: AsyncClient, s: Script) -> list[tuple[str, int]]:
    """Check ``s``'s history is one chain; return its (source, step) per version, oldest first."""
    hist = await client.history(s.graph, s.thread)
    ids = {h.checkpoint.checkpoint_id for h in hist}
    assert len(ids) == len(hist), f"{s.thread}: duplicate checkpoint ids"
    children: dict[str | None, list[str]] = {}
    for h in hist:
        parent = h.checkpoint.parent_id
        assert parent is None or parent in ids, f"{s.thread}: version {h.checkpoint.checkpoint_id} has no parent {parent}"
        children.setdefault(parent, []).append(h.checkpoint.checkpoint_id)
    forks = {p: c for p, c in children.items() if len(c) > 1}
    assert not forks, f"{s.thread}: versions with several children: {forks}"
    assert len(children.get(None, [])) == 1, f"{s.thread}: {len(children.get(None, []))} root versions"
    # Walk the chain from the root: it must reach every version.
    order, cur = [], children[None][0]
    while True:
        order.append(cur)
        nxt = children.get(cur)
        if not nxt:
            break
        cur = nxt[0]
    assert len(order) == len(hist), f"{s.thread}: the chain from the root misses versions"
    by_id = {h.checkpoint.checkpoint_id: h for h in hist}
    return [(by_id[c].checkpoint.source, by_id[c].checkpoint.step) for c in order]


async def _workload(saver: Any, work: list[Script], linger: float | None = None) -> dict[str, Any]:
    """Run ``work`` on a server over ``saver`` (``linger``: its ``version_linger_seconds``, None: the
    default); recover after faults stop. Returns per-thread results."""
    cfg = ServerConfig(address="127.0.0.1:0", graphs=dict(GRAPHS))
    if linger is not None:
        cfg.version_linger_seconds = linger
    srv = await build_server(cfg, checkpointer=saver)
    try:
        # retry=False: the callers see each fault's status as the server answers it, and
        # recover with the scripts' own retries (drive), not the client's.
        async with AsyncClient(f"127.0.0.1:{srv.port}", retry=False) as client:
            left = await asyncio.gather(*(drive(client, s) for s in work))
            during = {s.thread: list(s.outcomes) for s in work}
            if isinstance(saver, FaultySaver):
                saver.enabled = False
            # Faults off: every unfinished script completes, without a single failure.
            for s, i in zip(work, left):
                if i is not None:
                    s.outcomes.clear()
                    assert await drive(client, s, start=i, recovering=True, retries=0) is None, (
                        f"{s.thread}: recovery failed: {s.outcomes}"
                    )
            out = {}
            for s in work:
                state = await client.get_state(s.graph, s.thread)
                assert not state.tasks and not state.interrupts, f"{s.thread}: unfinished: {state.tasks}"
                out[s.thread] = {
                    "values": normalize(state.values),
                    "shape": await _history_shape(client, s),
                    "during": during[s.thread],
                    "recovered": left[work.index(s)] is not None,
                }
            return out
    finally:
        await srv.stop(grace=5)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The fault-free run of the workload (SQLite, no wrapper)."""
    db = tmp_path_factory.mktemp("faults-baseline") / "baseline.db"
    result = asyncio.run(_workload(SqliteSaver(str(db)), scripts()))
    assert all(o[0] == "ok" for r in result.values() for o in r["during"])
    return result


def _check(result: dict[str, Any], baseline: dict[str, Any], saver: FaultySaver, rate: float) -> None:
    codes = [(t, o) for t, r in result.items() for o in r["during"]]
    bad = [(t, o) for t, o in codes if o[0] not in ALLOWED]
    assert not bad, f"callers saw codes other than UNAVAILABLE/ABORTED: {bad[:5]}"
    unavailable = [(t, o) for t, o in codes if o[0] == "Unavailable"]
    foreign = [(t, o) for t, o in unavailable if "injected fault" not in o[2]]
    assert not foreign, f"UNAVAILABLE not caused by an injected fault: {foreign[:5]}"
    # The faults did happen, and callers saw some of them.
    assert saver.injected, "no fault was injected"
    assert unavailable, f"no caller saw a fault ({len(saver.injected)} injected)"
    if rate >= 0.1:
        assert {k for *_, k in saver.injected} == set(FAULT_KINDS)
        assert {m for m, *_ in saver.injected} == {"aput", "aput_writes", "aget_tuple", "alist"}
    assert set(result) == set(baseline)
    for thread, r in result.items():
        want = baseline[thread]
        assert r["shape"] == want["shape"], f"{thread}: history {r['shape']} != fault-free {want['shape']}"
        assert r["values"] == want["values"], f"{thread}: final state differs from the fault-free run"


RATES = [pytest.param(0.01, id="1pct"), pytest.param(0.10, id="10pct")]


@pytest.mark.parametrize("rate", RATES)
def test_sqlite_faults(rate: float, baseline: dict[str, Any], tmp_path: Path) -> None:
    saver = FaultySaver(SqliteSaver(str(tmp_path / "faults.db")), rate=rate, seed=SEED)
    result = asyncio.run(_workload(saver, scripts()))
    _check(result, baseline, saver, rate)


@pytest.mark.parametrize("rate", RATES)
def test_postgres_faults(rate: float, baseline: dict[str, Any]) -> None:
    require_pg()
    from engine.checkpoint.postgres import PostgresSaver

    schema = new_schema_name()
    try:
        saver = FaultySaver(PostgresSaver.from_dsn(DSN, schema=schema), rate=rate, seed=SEED)
        result = asyncio.run(_workload(saver, scripts()))
        _check(result, baseline, saver, rate)
    finally:
        drop_schema(schema)


def test_same_seed_same_faults() -> None:
    """The faults a workload meets depend on the seed, not on how its threads interleave.

    (Sequential graphs only: with parallel tasks, which task's writes land
    first is up to the scheduler, and so are the calls that follow a fault.)
    """
    runs = []
    for _ in range(2):
        # An in-memory saver: its calls never yield to the event loop, so which versions an
        # async-durability write batches does not depend on timing. (The SQLite saver's SQL runs
        # on a worker thread: a write is in flight while the next step runs, as on PostgreSQL.)
        # No linger: whether a run ends before a linger runs out is timing too.
        saver = FaultySaver(InMemorySaver(), rate=0.10, seed=SEED)
        asyncio.run(_workload(saver, scripts(chain_threads=10, chat_threads=4, fanout_threads=0), linger=0))
        runs.append(sorted(saver.injected))
    assert runs[0] == runs[1]


def test_faults_switch_off(tmp_path: Path) -> None:
    """A disabled wrapper is the inner saver: rate 1.0, switched off, injects nothing."""
    saver = FaultySaver(SqliteSaver(str(tmp_path / "off.db")), rate=1.0, seed=SEED)
    saver.enabled = False
    result = asyncio.run(_workload(saver, scripts(chain_threads=2, chat_threads=1, fanout_threads=1)))
    assert not saver.injected
    assert all(o[0] == "ok" for r in result.values() for o in r["during"])


def test_every_call_failing_is_unavailable(tmp_path: Path) -> None:
    """At rate 1.0, each kind of fault alone reaches every caller as UNAVAILABLE, and recovery completes."""
    for kind in FAULT_KINDS:
        saver = FaultySaver(SqliteSaver(str(tmp_path / f"all-{kind}.db")), rate=1.0, seed=SEED, kinds=[kind])
        work = scripts(chain_threads=1, chain_turns=2, chat_threads=1, fanout_threads=1, prefix=kind)
        result = asyncio.run(_workload(saver, work))
        assert {k for *_, k in saver.injected} == {kind}
        for thread, r in result.items():
            codes = {o[0] for o in r["during"]}
            assert codes == {"Unavailable"}, f"{kind}: {thread} saw {r['during']}"
            assert r["recovered"]


class _FailsOnce(InMemorySaver):
    """An in-memory saver whose put of the version of step ``fail_step`` fails once, as a
    disk or a database that went away mid-run would."""

    fail_step: int | None = None

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> dict[str, Any]:
        if self.fail_step is not None and metadata.get("step") == self.fail_step:
            self.fail_step = None
            raise CheckpointError("injected fault: the storage went away")
        return await super().aput(config, checkpoint, metadata, new_versions)


def test_a_retry_after_a_storage_failure_mid_run_continues_it_and_applies_the_input_once() -> None:
    """A run that stopped on a storage failure ended with no RunFinished: a retry with its
    request_id (once storage is back) continues it from its newest version, without
    applying the user's message again, and finishes the turn."""
    from graphwire_proto.v1 import graphwire_pb2 as pb
    from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
    import grpc

    async def main() -> tuple[Any, list[Any], list[Any], Any]:
        saver = _FailsOnce()
        saver.fail_step = 1  # the input and START's versions land; the reply's does not
        srv = await build_server(ServerConfig(address="127.0.0.1:0", graphs={"turn": "tests.hardening._faults:turn"}),
                                 checkpointer=saver)  # fmt: skip
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
                rpc = pb_grpc.GraphServiceStub(channel)
                request = pb.InvokeRequest(graph="turn", thread_id="t", input_json='{"log": ["user message"]}',
                                           request_id="turn-1")  # fmt: skip
                first: list[Any] = []
                with pytest.raises(grpc.aio.AioRpcError) as failed:
                    async for e in rpc.Invoke(request, timeout=60):
                        first.append(e)
                again = [e async for e in rpc.Invoke(request, timeout=60)]
                state = await rpc.GetState(pb.GetStateRequest(graph="turn", thread_id="t"), timeout=60)
                run = await rpc.GetRun(pb.GetRunRequest(run_id=again[0].run_id), timeout=60)
            return failed.value.code(), first, again, (state, run)
        finally:
            await srv.stop(0)

    code, first, again, (state, run) = asyncio.run(main())
    assert code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL)
    assert not any(e.WhichOneof("event") == "run_finished" for e in first)
    assert again[-1].run_finished.reason == pb.FINISH_REASON_END
    assert json.loads(state.values_json) == {"log": ["user message", "reply"]}
    assert run.attempts == 2 and run.status == pb.RUN_STATUS_SUCCESS
