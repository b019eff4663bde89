"""The Python clients survive the network, against the real server.

Every call here goes through a TCP proxy the test starts on 127.0.0.1
(tests/_proxy.py), which cuts connections when the test says so:

* a stream cut mid-run, the run started with ``on_disconnect="continue"``:
  the client re-joins it (JoinRun after the last seq it saw) and the caller
  gets every event once, in order, with one RunFinished;
* a retried Invoke: the request reached the server, which ran it, but its
  caller heard nothing before the connection was cut (UNAVAILABLE); the
  client's retry carries the same request_id, and the user's message is in
  the history exactly once;
* connections refused at first: the call is retried until one gets through.

No sleeps: the gated graph waits for a file the test creates, and what the
server holds is polled with a deadline.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import graphwire
import pytest
from graphwire import CustomEvent, FinishReason, Retry, RunFinished, RunStarted, RunStatus

from tests._proxy import TcpProxy
from tests.conftest import ServerProcess

#: Reconnect at once after a cut (grpc's own default waits a second first).
CHANNEL = (("grpc.initial_reconnect_backoff_ms", 50), ("grpc.max_reconnect_backoff_ms", 200))
RETRY = Retry(attempts=8, initial_backoff=0.05, max_backoff=0.5)
DEADLINE = 30.0


@pytest.fixture
def proxy(server: ServerProcess) -> Iterator[TcpProxy]:
    with TcpProxy(server.address) as p:
        yield p


def wait_until(condition: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + DEADLINE
    while not (got := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)  # polling what the server holds, not waiting a guessed time
    return got


def contiguous(events: list[Any]) -> bool:
    seqs = [e.seq for e in events]
    return seqs == list(range(1, len(seqs) + 1))


def test_a_stream_cut_mid_run_with_continue_is_rejoined(server: ServerProcess, proxy: TcpProxy, thread_id: str) -> None:
    gate = f"cut-{thread_id}"
    with graphwire.Client(proxy.address, options=CHANNEL, retry=RETRY) as client:
        run = client.stream("gated", thread_id, {"gate": gate, "label": "done"}, on_disconnect="continue")
        events = []
        for event in run:
            events.append(event)
            if isinstance(event, CustomEvent):  # the node waits at its gate: cut now, then let it finish
                assert proxy.cut() == 1
                server.open_gate(gate)
        assert run.calls >= 2, "the stream was never re-joined"
    assert isinstance(events[0], RunStarted) and isinstance(events[-1], RunFinished)
    assert contiguous(events), [e.seq for e in events]  # no gap, no repeat
    assert sum(isinstance(e, RunFinished) for e in events) == 1
    assert events[-1].reason is FinishReason.END and events[-1].values["log"] == ["done"]
    assert run.seq == events[-1].seq and run.run_id == events[0].run_id


def test_the_async_client_rejoins_too(server: ServerProcess, proxy: TcpProxy, thread_id: str) -> None:
    gate = f"cut-{thread_id}"

    async def body() -> tuple[list[Any], int]:
        async with graphwire.AsyncClient(proxy.address, options=CHANNEL, retry=RETRY) as client:
            run = client.stream("gated", thread_id, {"gate": gate, "label": "async"}, on_disconnect="continue")
            events = []
            async for event in run:
                events.append(event)
                if isinstance(event, CustomEvent):
                    proxy.cut()
                    server.open_gate(gate)
            return events, run.calls

    events, calls = asyncio.run(body())
    assert calls >= 2 and contiguous(events) and isinstance(events[-1], RunFinished)
    assert events[-1].values["log"] == ["async"]


def test_a_cut_without_continue_cancels_the_run_and_raises(server: ServerProcess, proxy: TcpProxy, thread_id: str) -> None:
    gate = f"cut-{thread_id}"
    with graphwire.Client(proxy.address, options=CHANNEL, retry=RETRY) as client:
        run = client.stream("gated", thread_id, {"gate": gate, "label": "never"})
        with pytest.raises(graphwire.Unavailable):
            for event in run:
                if isinstance(event, CustomEvent):
                    proxy.cut()
        assert run.calls == 1  # no retry once events arrived: that run is cancelled
        info = wait_until(lambda: (r := client.get_run(run.run_id)).ended and r, "the cancelled run's record")
    assert info.status is RunStatus.CANCELLED


def test_a_cut_run_says_how_to_finish_it_and_its_request_id_does(server: ServerProcess, proxy: TcpProxy, thread_id: str) -> None:
    """A user who calls again after a mid-run UNAVAILABLE: with the error's request_id the call
    continues the stopped run (the input applied once); a fresh call would apply it again."""
    gate = f"cut-{thread_id}"
    call = ("gated", thread_id, {"gate": gate, "label": "again", "log": ["user said hi"]})
    with graphwire.Client(proxy.address, options=CHANNEL, retry=RETRY) as client, server.client() as direct:
        run = client.stream(*call)
        with pytest.raises(graphwire.Unavailable) as raised:
            for event in run:
                if isinstance(event, CustomEvent):
                    proxy.cut()
        error = raised.value
        assert (error.run_id, error.request_id) == (run.run_id, run.request_id) and error.request_id
        assert f"request_id={run.request_id!r}" in str(error) and run.run_id in str(error)
        wait_until(lambda: client.get_run(run.run_id).ended, "the cancelled run's record")
        server.open_gate(gate)
        result = client.stream(*call, request_id=error.request_id).result()  # the same call: stream again
        history = direct.history("gated", thread_id)
    assert result.reason is FinishReason.END and result.values["log"] == ["user said hi", "again"]
    assert sum(s.checkpoint.source == "input" for s in history) == 1


def test_a_retried_invoke_applies_the_message_once(server: ServerProcess, proxy: TcpProxy, thread_id: str) -> None:
    message = {"role": "user", "content": "remind me to call mom at 5pm"}
    with graphwire.Client(proxy.address, options=CHANNEL, retry=RETRY) as client, server.client() as direct:
        client.graphs()  # the connection is up: what follows reaches the server
        proxy.hold()  # ... but nothing the server answers reaches the client
        outcome: dict[str, Any] = {}

        def call() -> None:
            try:
                outcome["result"] = client.invoke("reminders", thread_id, {"messages": [message]})
            except BaseException as exc:  # noqa: BLE001 - reported below
                outcome["error"] = exc

        caller = threading.Thread(target=call)
        caller.start()
        # The turn ran to its interrupt on the server; its caller has heard nothing.
        first = wait_until(lambda: _interrupted(direct, thread_id), "the first attempt's run to end")
        assert proxy.cut() >= 1  # UNAVAILABLE, before any event: the client retries
        caller.join(DEADLINE)
        assert not caller.is_alive() and "error" not in outcome, outcome
        result = outcome["result"]
        history = direct.history("reminders", thread_id)
    assert result.reason is FinishReason.INTERRUPT
    assert result.checkpoint is not None and result.checkpoint.checkpoint_id == first.checkpoint.checkpoint_id
    users = [m for m in first.values["messages"] if graphwire.message_role(m) == "user"]
    assert len(users) == 1, first.values["messages"]
    assert sum(s.checkpoint.source == "input" for s in history) == 1  # one input version: applied once


def test_a_retried_continuing_invoke_joins_the_run_it_started(server: ServerProcess, proxy: TcpProxy, thread_id: str) -> None:
    gate = f"held-{thread_id}"
    with graphwire.Client(proxy.address, options=CHANNEL, retry=RETRY) as client, server.client() as direct:
        client.graphs()
        proxy.hold()
        run = client.stream("gated", thread_id, {"gate": gate, "label": "once", "log": ["user said hi"]}, on_disconnect="continue")
        events: list[Any] = []
        reader = threading.Thread(target=lambda: events.extend(run))
        reader.start()
        wait_until(lambda: _log(direct, thread_id) == ["user said hi"], "the run to wait at its gate")
        proxy.cut()  # the first attempt heard nothing; its run goes on
        server.open_gate(gate)
        reader.join(DEADLINE)
        assert not reader.is_alive()
        log = _log(direct, thread_id)
    assert log == ["user said hi", "once"]  # the input applied once, the node run once
    assert contiguous(events) and isinstance(events[-1], RunFinished) and events[-1].reason is FinishReason.END


def test_refused_connections_are_retried(server: ServerProcess, proxy: TcpProxy, thread_id: str) -> None:
    proxy.refuse(2)
    with graphwire.Client(proxy.address, options=CHANNEL, retry=RETRY) as client:
        result = client.invoke("chain3", thread_id, {"n": 0})
    assert result.reason is FinishReason.END and result.values["log"] == ["a", "b", "c"]
    assert proxy.refused == 2


def _interrupted(client: graphwire.Client, thread_id: str) -> Any:
    try:
        state = client.get_state("reminders", thread_id)
    except graphwire.NotFound:
        return None
    return state if state.interrupts else None


def _log(client: graphwire.Client, thread_id: str) -> list[str] | None:
    try:
        return client.get_state("gated", thread_id).values.get("log")
    except graphwire.NotFound:
        return None
