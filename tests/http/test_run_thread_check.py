"""A run's thread checked by the run's start, in its own write (server/http/_common.py ``expected_of``).

LangGraph's HTTP API checks a run's thread before the run (made when it is
missing and ``if_not_exists`` says so, bound, labelled with the run's graph and
assistant, or refused). On a chat's later turns there is nothing to do: the
run's start checks the record in its own write instead of a read before it,
and only when the record is not as expected is the thread checked as before
and the run started again (nothing of the first try written). Here: later turns
read no thread record; a thread changed, deleted, unbound or of another graph
is answered as before, with no run left behind by the first try. On SQLite,
PostgreSQL (leases) and in memory (the server checks with a read there).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from engine.checkpoint import InMemorySaver
from server._reads import key_of
from server._run_api import CallContext
from server.http._common import SeenThreads
from tests.http._serving import Served, _serving, serving
from tests.hardening.conftest import until
from tests.http.test_runs import _key, _running, gates, in_loop, made  # noqa: F401 - gates: a fixture

BACKENDS = pytest.mark.parametrize("backend", ["sqlite", "postgres", "memory"])


@contextlib.asynccontextmanager
async def _served(tmp_path: Path, backend: str) -> AsyncIterator[tuple[Served, list[Any]]]:
    """The app on ``backend``, and the thread searches its run checks made (a list that grows)."""
    ctx = _serving(InMemorySaver()) if backend == "memory" else serving(tmp_path, backend)
    async with ctx as served:
        rpcs = served.service.thread_records
        searched: list[Any] = []
        search = rpcs.SearchThreads

        async def counted(request: Any, context: Any) -> Any:
            searched.append(request)
            return await search(request, context)

        rpcs.SearchThreads = counted
        yield served, searched


@pytest.fixture
def tries(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What each run start the HTTP API made expected of its thread's record (None: checked before)."""
    seen: list[Any] = []
    made_context = CallContext.__init__

    def init(self: CallContext, metadata: Any = (), expected_thread: Any = None, langgraph_api: bool = False) -> None:
        seen.append(expected_thread)
        made_context(self, metadata, expected_thread, langgraph_api)

    monkeypatch.setattr(CallContext, "__init__", init)
    return seen


@BACKENDS
def test_later_turns_read_no_thread_record(tmp_path: Path, backend: str, tries: list[Any]) -> None:
    asyncio.run(_later_turns(tmp_path, backend))
    # The first turn's thread was new to this process: checked first, with no try that could fail.
    assert [t is not None for t in tries] == [False, True, True, True, True]


async def _later_turns(tmp_path: Path, backend: str) -> None:
    async with _served(tmp_path, backend) as (served, searched):
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "chain3")
        first = await client.runs.wait(thread, "chain3", input={"n": 0})
        assert first["n"] == 3
        checked = len(searched)  # the first run labels the thread with its assistant: checked as before
        for _ in range(3):
            assert (await client.runs.wait(thread, "chain3", input={"n": 0}))["n"] == 3
        parts = [p async for p in client.runs.stream(thread, "chain3", input={"n": 0}, stream_mode="values")]
        assert [p.data["n"] for p in parts if p.event == "values"][-1] == 3
        assert len(searched) == checked  # later turns: the start checked the record itself
        got = await client.threads.get(thread)
        assert got["metadata"]["graph_id"] == "chain3" and got["status"] == "idle"
        assert len(await client.runs.list(thread, limit=100)) == 5


@BACKENDS
@in_loop
async def test_a_thread_changed_meanwhile_is_checked_as_before(tmp_path: Path, backend: str) -> None:
    async with _served(tmp_path, backend) as (served, searched):
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "chain3")
        await client.runs.wait(thread, "chain3", input={"n": 0})
        labels = (await client.threads.get(thread))["metadata"]
        await client.threads.update(thread, metadata={"assistant_id": "someone-else"})
        checked = len(searched)
        assert (await client.runs.wait(thread, "chain3", input={"n": 0}))["n"] == 3
        assert len(searched) == checked + 1  # its start found the record changed: checked, then run
        assert (await client.threads.get(thread))["metadata"] == labels  # labelled again, as LangGraph's
        assert len(await client.runs.list(thread, limit=100)) == 2  # the first try left no run
        # Deleted: 404 (LangGraph's default), or made again with if_not_exists="create".
        await client.threads.delete(thread)
        async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}) as http:
            res = await http.post(f"/threads/{thread}/runs/wait", json={"assistant_id": "chain3", "input": {"n": 0}})
            assert res.status_code == 404, res.text
            res = await http.post(
                f"/threads/{thread}/runs/wait", json={"assistant_id": "chain3", "input": {"n": 0}, "if_not_exists": "create"}
            )
            assert res.status_code == 200 and res.json()["n"] == 3, res.text
        assert len(await client.runs.list(thread, limit=100)) == 1


@BACKENDS
@in_loop
async def test_a_thread_of_another_graph_or_unbound_is_answered_as_before(tmp_path: Path, backend: str) -> None:
    async with _served(tmp_path, backend) as (served, _):
        client = get_client(url=served.url, api_key=served.key)
        other = await made(client, "gated")
        async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}) as http:
            res = await http.post(f"/threads/{other}/runs/wait", json={"assistant_id": "chain3", "input": {"n": 0}})
        assert res.status_code == 409 and "belongs to graph 'gated'" in res.text, res.text
        assert await client.runs.list(other) == []
        # Made without a graph on a server of several: its first run binds it to the run's graph.
        unbound = str((await client.threads.create())["thread_id"])
        assert (await client.runs.wait(unbound, "chain3", input={"n": 0}))["n"] == 3
        got = await client.threads.get(unbound)
        assert got["metadata"]["graph_id"] == "chain3"
        assert (await client.runs.wait(unbound, "chain3", input={"n": 0}))["n"] == 3
        assert len(await client.runs.list(unbound, limit=100)) == 2
        # A thread id this run's first try never saw: nothing of it, no run either.
        missing = str(uuid.uuid4())
        with pytest.raises(Exception, match="404"):
            await client.runs.wait(missing, "chain3", input={"n": 0})


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@in_loop
async def test_a_run_queued_behind_another_checks_the_record_it_finds_then(tmp_path: Path, gates: Path, backend: str) -> None:
    """A run queued behind another on this replica starts once the first has let go of the thread, and its
    start checks the record as it is then."""
    async with _served(tmp_path, backend) as (served, searched):
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "gated")
        await client.runs.wait(thread, "gated", input={"gate": "", "label": "zero"})  # labels the thread
        labels = (await client.threads.get(thread))["metadata"]
        first = await client.runs.create(thread, "gated", input={"gate": "one", "label": "first"})
        await until(lambda: _running(served, thread, first["run_id"]), "the first run's engine to start")
        queued = asyncio.ensure_future(client.runs.wait(thread, "gated", input={"gate": "", "label": "queued"}))
        await until(lambda: served.service.runs.waiting(_key(thread)), "the second call to wait its turn")
        await client.threads.update(thread, metadata={"assistant_id": "someone-else"})  # meanwhile
        checked = len(searched)
        (gates / "one").touch()
        assert (await queued)["log"] == ["zero", "first", "queued"]
        assert len(searched) == checked + 1  # its start found the record changed: checked, then run
        assert (await client.threads.get(thread))["metadata"] == labels  # labelled again: the change was seen
        assert len(await client.runs.list(thread, limit=100)) == 3


@in_loop
async def test_a_run_that_waits_for_another_replicas_lease_checks_the_record_before_its_start(tmp_path: Path) -> None:
    """PostgreSQL: while another replica holds the thread's lease, the run's one-write start does not get it,
    and the run takes the lease on its own once it is free; its record's statement checks the thread then,
    and finds the change made meanwhile."""
    async with _served(tmp_path, "postgres") as (served, searched):
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "chain3")
        await client.runs.wait(thread, "chain3", input={"n": 0})  # labels the thread
        labels = (await client.threads.get(thread))["metadata"]
        leases = served.service.runs.leases.store
        other = await leases.aacquire_lease(key_of("acme", "chain3", thread), "another-replica", ttl=60)
        assert other is not None
        queued = asyncio.ensure_future(client.runs.wait(thread, "chain3", input={"n": 0}))
        await until(lambda: served.service.runs.waiting(key_of("acme", "chain3", thread)), "the call to wait for the lease")
        await client.threads.update(thread, metadata={"assistant_id": "someone-else"})  # meanwhile
        checked = len(searched)
        await leases.arelease_lease(other)
        assert (await queued)["n"] == 3
        assert len(searched) == checked + 1  # its start found the record changed: checked, then run
        assert (await client.threads.get(thread))["metadata"] == labels
        assert len(await client.runs.list(thread, limit=100)) == 2


def test_seen_threads_keep_the_most_recent() -> None:
    seen = SeenThreads()
    for i in range(SeenThreads.MAX + 10):
        seen.add(f"g:{i}")
    seen.add("g:10")  # used again: the most recent now
    assert "g:0" not in seen and "g:9" not in seen and "g:10" in seen and f"g:{SeenThreads.MAX + 9}" in seen
    seen.add("g:new")
    assert "g:11" not in seen and "g:10" in seen
    seen.discard("g:10")
    assert "g:10" not in seen
