"""The run routes (server/http/_runs.py) driven by the real ``langgraph-sdk`` client over HTTP.

The routes are served by uvicorn on port 0 (tests/http/_serving.py) over a
graphwire service on SQLite in the test's event loop, and called through
``langgraph_sdk.get_client``: the calls and the stream parts a LangGraph user
gets. A gated node (tests/graphs.py) holds a run open; nothing sleeps to
synchronise.
"""

from __future__ import annotations

import asyncio
import functools
import operator
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any, TypedDict

import httpx
import pytest
from langgraph.graph import START, StateGraph
from langgraph.pregel.remote import RemoteGraph
from langgraph_sdk import get_client

from engine.host import RUN_KEY
from server._reads import key_of
from tests.hardening.conftest import until
from tests.http import _sse_graphs
from tests.http._serving import TOKENS, serving
from tests.http.test_sse import INPUT, langgraph_frames, masked


def in_loop(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


#: Tests of the thread's slot (cancel, strategies, rollback) run on PostgreSQL too: leases, the cancel relay.
BACKENDS = pytest.mark.parametrize("backend", ["sqlite", "postgres"])


@pytest.fixture
def gates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "gates").mkdir()
    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(tmp_path / "gates"))
    return tmp_path / "gates"


def tid() -> str:
    return str(uuid.uuid4())


async def made(client: Any, graph: str) -> str:
    """A new thread of ``graph``, made as an SDK user makes one before running on it."""
    return str((await client.threads.create(graph_id=graph))["thread_id"])


@in_loop
async def test_a_stream_through_the_sdk_gives_langgraphs_parts(tmp_path: Path) -> None:
    modes = ("values", "updates", "messages-tuple", "custom")
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        parts = [p async for p in client.runs.stream(await made(client, "sse"), "sse", input=INPUT, stream_mode=list(modes), stream_subgraphs=True)]
    assert parts[0].event == "metadata" and parts[0].data["attempt"] == 1
    expected = await langgraph_frames(_sse_graphs.graph, modes, True)
    # The server's own metadata keys (the run, its assistant, the caller's thread) aside.
    drop = frozenset({"run_id", "assistant_id", "thread_id"})
    assert masked([(p.event, p.data) for p in parts[1:]], drop) == masked(expected, drop)
    assert all(p.data[1]["assistant_id"] for p in parts if p.event == "messages")
    assert {p.data[1]["run_id"] for p in parts if p.event == "messages"} == {parts[0].data["run_id"]}  # every chunk's, as LangGraph's server
    assert all(p.id is not None and p.id.isdigit() for p in parts[1:])


@in_loop
async def test_an_interrupt_answered_with_command_resume(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "sse")
        asked = await client.runs.wait(thread, "sse", input=INPUT)
        assert [i["value"] for i in asked["__interrupt__"]] == ["ok?"]
        assert asked["log"] == ["talk", "talk", "inner"]
        done = await client.runs.wait(thread, "sse", command={"resume": "yes"})
        assert done["log"][-1] == "yes" and "__interrupt__" not in done
        runs = await client.runs.list(thread)
        # A run that stopped at an interrupt succeeded, as on LangGraph's server (its thread is "interrupted").
        assert [r["status"] for r in runs] == ["success", "success"]
        assert all(r["thread_id"] == thread for r in runs)
        assert [r["run_id"] for r in await client.runs.list(thread, limit=1, offset=1)] == [runs[1]["run_id"]]
        assert await client.runs.list(thread, status="interrupted") == []
        # select: those fields only (LangGraph's names); an unknown thread: 404, not an empty list
        assert await client.runs.list(thread, select=["run_id", "status"]) == [{"run_id": r["run_id"], "status": "success"} for r in runs]
        with pytest.raises(httpx.HTTPStatusError) as unknown:
            await client.runs.list(str(uuid.uuid4()))
        assert unknown.value.response.status_code == 404


@in_loop
async def test_a_background_run_is_created_got_joined_and_its_stream_resumed(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "chain3")
        run = await client.runs.create(thread, "chain3", input={"n": 0})
        assert run["thread_id"] == thread and run["status"] in ("pending", "running", "success")
        result = await client.runs.join(thread, run["run_id"])
        assert result["n"] == 3 and result["log"] == ["a", "b", "c"]
        got = await client.runs.get(thread, run["run_id"])
        assert got["status"] == "success" and got["run_id"] == run["run_id"]
        whole = [p async for p in client.runs.join_stream(thread, run["run_id"], stream_mode="values")]
        assert [p.event for p in whole] == ["metadata", "values", "values", "values", "values"]  # no `end` frame, as LangGraph's
        # A client that saw the first two values resumes after them.
        rest = [p async for p in client.runs.join_stream(thread, run["run_id"], stream_mode="values", last_event_id=whole[2].id)]
        assert [p.data for p in rest] == [p.data for p in whole[3:]]


@BACKENDS
@in_loop
async def test_a_run_is_cancelled_and_waited_for(tmp_path: Path, gates: Path, backend: str) -> None:
    async with serving(tmp_path, backend) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "gated")
        run = await client.runs.create(thread, "gated", input={"gate": "never", "label": "x"})
        await until(lambda: _running(served, thread, run["run_id"]), "the run's engine to start")
        with pytest.raises(httpx.HTTPStatusError) as busy:  # the thread is busy: "reject" refuses
            await client.runs.wait(thread, "gated", input={"label": "y"}, multitask_strategy="reject")
        assert busy.value.response.status_code == 409 and "already has a run" in busy.value.response.json()["detail"]
        await client.runs.cancel(thread, run["run_id"], wait=True)
        got = await client.runs.get(thread, run["run_id"])
        assert got["status"] == "interrupted"
        # The thread is free again.
        assert (await client.runs.wait(thread, "gated", input={"gate": "", "label": "y"}))["log"] == ["y"]


def _key(thread: str) -> str:
    """The storage key of the first tenant's ``gated`` thread (the clients call as that tenant)."""
    return key_of("acme", "gated", thread)


def _running(served: Any, thread: str, run_id: str) -> bool:
    """Whether the run holds its thread with its engine started (what a cancel stops)."""
    handle = served.service.runs.active(_key(thread))
    return handle is not None and handle.run_id == run_id and handle.task is not None


@in_loop
async def test_a_stream_whose_caller_leaves_cancels_its_run(tmp_path: Path, gates: Path) -> None:
    async with serving(tmp_path) as served:
        thread = await made(get_client(url=served.url, api_key=served.key), "gated")
        body = {"assistant_id": "gated", "input": {"gate": "never", "label": "x"}, "stream_mode": ["custom"]}
        async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}) as http:
            async with http.stream("POST", f"/threads/{thread}/runs/stream", json=body) as res:
                assert res.status_code == 200 and res.headers["content-type"].startswith("text/event-stream")
                run_id = res.headers["content-location"].rsplit("/", 1)[1]
                async for line in res.aiter_lines():
                    if line.startswith("event: custom"):
                        break  # the node runs: the caller goes
        record = await until(lambda: _ended(served, run_id), "the run to end")
        assert record.status == "CANCELLED"


@in_loop
async def test_a_wait_whose_caller_leaves_cancels_its_run_unless_it_goes_on(tmp_path: Path, gates: Path) -> None:
    """``/wait`` sends its headers at once and its body at the run's end; a caller that leaves before
    then cancels the run, as a stream's does, unless ``on_disconnect`` is "continue"."""
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        ended = {}
        for on_disconnect, gate in (("cancel", "never"), ("continue", "wait-go-on")):
            thread = await made(client, "gated")
            body = {"assistant_id": "gated", "input": {"gate": gate, "label": "x"}, "on_disconnect": on_disconnect}
            async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}) as http:
                async with http.stream("POST", f"/threads/{thread}/runs/wait", json=body) as res:
                    assert res.status_code == 200 and res.headers["content-type"] == "application/json"
                    run_id = res.headers["content-location"].rsplit("/", 1)[1]
                    await until(lambda: _running(served, thread, run_id), "the run's engine to start")
            if gate != "never":  # the caller is gone; the run waits at its gate: let it finish
                (gates / gate).touch()
            ended[on_disconnect] = await until(lambda: _ended(served, run_id), "the run to end")
    assert ended["cancel"].status == "CANCELLED"
    assert ended["continue"].status == "SUCCESS"


async def _ended(served: Any, run_id: str) -> Any:
    found = await served.service.records.store.aget(run_id)
    return found if found is not None and found.ended_at is not None else None


@in_loop
async def test_a_stateless_run_leaves_no_thread(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        created: list[Any] = []
        result = await client.runs.wait(None, "chain3", input={"n": 1}, on_run_created=created.append)
        assert result["n"] == 4
        run_id = created[0]["run_id"]
        assert await served.service.records.store.aget(run_id) is None  # deleted with its thread
        kept = await client.runs.wait(None, "chain3", input={"n": 1}, on_completion="keep", on_run_created=created.append)
        assert kept["n"] == 4 and await served.service.records.store.aget(created[1]["run_id"]) is not None


@in_loop
async def test_a_failed_run_and_bad_calls(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        failed = await client.runs.wait(await made(client, "broken"), "broken", input=INPUT, raise_error=False)
        assert failed == {"__error__": {"error": "ValueError", "message": "no way"}}
        parts = [p async for p in client.runs.stream(await made(client, "broken"), "broken", input=INPUT)]
        assert [p.event for p in parts] == ["metadata", "values", "error"]
        assert parts[2].data == {"error": "ValueError", "message": "no way"}
        with pytest.raises(httpx.HTTPStatusError) as unknown:
            await client.runs.wait(await made(client, "chain3"), "nope", input={})
        assert unknown.value.response.status_code == 404 and unknown.value.response.json() == {"detail": "no assistant 'nope'"}
        for options, field in [
            ({"webhook": "mailto:ann@example.com"}, "webhook"), ({"stream_mode": "eventful"}, "stream_mode 'eventful'"),
            ({"command": {"jump": "a"}}, "command.jump"), ({"config": {"callbacks": 1}}, "config.callbacks"),
            ({"multitask_strategy": "sometimes"}, "multitask_strategy"), ({"after_seconds": -5}, "after_seconds: a number of seconds"),
        ]:  # fmt: skip
            async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}) as http:
                res = await http.post(f"/threads/{tid()}/runs/wait", json={"assistant_id": "chain3", "input": {}, **options})
            assert res.status_code == 422, (options, res.text)
            assert field in res.json()["detail"], res.text
        with pytest.raises(httpx.HTTPStatusError) as missing:  # LangGraph's default if_not_exists: "reject"
            await client.runs.wait(tid(), "chain3", input={"n": 0})
        assert missing.value.response.status_code == 404 and "not found" in missing.value.response.json()["detail"]
        made_by_run = tid()  # "create", when asked, makes the thread
        assert (await client.runs.wait(made_by_run, "chain3", input={"n": 0}, if_not_exists="create"))["n"] == 3
        assert (await client.threads.get(made_by_run))["status"] == "idle"


class Counted(TypedDict, total=False):
    n: int
    log: Annotated[list[str], operator.add]


@in_loop
async def test_remote_graph_runs_a_served_graph_alone_and_as_a_node(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        remote = RemoteGraph("chain3", url=served.url, api_key=served.key)
        assert await remote.ainvoke({"n": 0}) == {"n": 3, "log": ["a", "b", "c"]}
        parts = [p async for p in remote.astream({"n": 0}, stream_mode="updates")]
        assert parts == [{"a": {"n": 1, "log": ["a"]}}, {"b": {"n": 2, "log": ["b"]}}, {"c": {"n": 3, "log": ["c"]}}]
        builder = StateGraph(Counted)
        builder.add_node("remote", remote)
        builder.add_edge(START, "remote")
        local = builder.compile()
        assert await local.ainvoke({"n": 5}) == {"n": 8, "log": ["a", "b", "c"]}
        nested = [p async for p in local.astream({"n": 5}, stream_mode="updates", subgraphs=True)]
        assert [list(update) for _, update in nested] == [["a"], ["b"], ["c"], ["remote"]]
        assert [ns[0].split(":")[0] if ns else "" for ns, _ in nested] == ["remote", "remote", "remote", ""]


@BACKENDS
@in_loop
async def test_the_multitask_strategies_over_http(tmp_path: Path, gates: Path, backend: str) -> None:
    async with serving(tmp_path, backend) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "gated")
        first = await client.runs.create(thread, "gated", input={"gate": "one", "label": "first"})
        await until(lambda: _running(served, thread, first["run_id"]), "the first run's engine to start")
        # enqueue: waits for the running run, then runs.
        queued = asyncio.ensure_future(client.runs.wait(thread, "gated", input={"gate": "", "label": "queued"}, multitask_strategy="enqueue"))
        await until(lambda: served.service.runs.waiting(_key(thread)), "the second call to wait its turn")
        (gates / "one").touch()
        assert (await queued)["log"] == ["first", "queued"]
        # interrupt: cancels the running run, keeps what it saved, and runs.
        held = await client.runs.create(thread, "gated", input={"gate": "two", "label": "held"})
        await until(lambda: _running(served, thread, held["run_id"]), "the held run's engine to start")
        replaced = await client.runs.wait(thread, "gated", input={"gate": "", "label": "new"}, multitask_strategy="interrupt")
        assert replaced["log"] == ["first", "queued", "new"]
        got = await client.runs.get(thread, held["run_id"])
        assert got["status"] == "interrupted" and "replaced by run" in got["cancel_reason"]
        # rollback: cancels the running run and deletes what it saved, then runs.
        doomed = await client.runs.create(thread, "gated", input={"gate": "three", "label": "doomed"})
        await until(lambda: _running(served, thread, doomed["run_id"]), "the doomed run's engine to start")
        # its input's version, at least (stored within the server's version linger of the run's start)
        await until(lambda: _versions(served, thread, doomed["run_id"]), "the doomed run's first version")
        after = await client.runs.wait(thread, "gated", input={"gate": "", "label": "after"}, multitask_strategy="rollback")
        assert after["log"] == ["first", "queued", "new", "after"]  # nothing of "doomed"
        assert await _versions(served, thread, doomed["run_id"]) == 0
        rolled = await client.runs.get(thread, doomed["run_id"])
        assert rolled["status"] == "interrupted" and "replaced by run" in rolled["cancel_reason"]
        # reject: refused while a run goes on (409), as test_a_run_is_cancelled_and_waited_for shows.


@in_loop
async def test_a_resumable_stream_cut_and_rejoined_with_last_event_id(tmp_path: Path, gates: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "gated")
        body = {
            "assistant_id": "gated", "input": {"gate": "cut", "label": "x"}, "stream_mode": ["values", "custom"],
            "stream_resumable": True, "on_disconnect": "continue",
        }  # fmt: skip
        seen: list[tuple[str, str]] = []
        async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}) as http:
            async with http.stream("POST", f"/threads/{thread}/runs/stream", json=body) as res:
                assert res.headers["location"].endswith("/stream")
                run_id = res.headers["content-location"].rsplit("/", 1)[1]
                event = ""
                async for line in res.aiter_lines():
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("id: "):
                        seen.append((event, line[4:]))
                        if event == "custom":
                            break  # the connection drops while the node waits
        (gates / "cut").touch()
        rest = [p async for p in client.runs.join_stream(thread, run_id, stream_mode=["values", "custom"], last_event_id=seen[-1][1])]
        whole = [p async for p in client.runs.join_stream(thread, run_id, stream_mode=["values", "custom"])]
        assert [(p.event, p.id) for p in whole[1:]] == seen + [(p.event, p.id) for p in rest]
        assert rest[-1].event == "values" and rest[-1].data["log"] == ["x"]


@in_loop
async def test_a_tenant_sees_only_its_own_runs(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        acme, other = get_client(url=served.url, api_key=TOKENS["acme"]), get_client(url=served.url, api_key=TOKENS["other"])
        thread = await made(acme, "chain3")
        assert (await acme.runs.wait(thread, "chain3", input={"n": 0}))["n"] == 3
        (run,) = await acme.runs.list(thread)
        with pytest.raises(httpx.HTTPStatusError) as not_theirs:  # acme's thread is no thread of the other tenant's
            await other.runs.list(thread)
        assert not_theirs.value.response.status_code == 404
        with pytest.raises(httpx.HTTPStatusError) as hidden:
            await other.runs.get(thread, run["run_id"])
        assert hidden.value.response.status_code == 404
        with pytest.raises(httpx.HTTPStatusError) as unseen:  # acme's thread is not the other tenant's
            await other.runs.wait(thread, "chain3", input={"n": 10})
        assert unseen.value.response.status_code == 404
        # The same thread id is another thread for the other tenant: its run starts from nothing.
        assert (await other.runs.wait(thread, "chain3", input={"n": 10}, if_not_exists="create"))["log"] == ["a", "b", "c"]
        assert (await acme.runs.get(thread, run["run_id"]))["status"] == "success"


@in_loop
async def test_a_caller_that_leaves_while_queued_never_runs(tmp_path: Path, gates: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "gated")
        key = _key(thread)
        first = await client.runs.create(thread, "gated", input={"gate": "hold", "label": "first"})
        await until(lambda: _running(served, thread, first["run_id"]), "the first run's engine to start")
        body = {"assistant_id": "gated", "input": {"gate": "", "label": "queued"}, "multitask_strategy": "enqueue"}

        async def queued() -> None:
            async with httpx.AsyncClient(base_url=served.url, timeout=60, headers={"x-api-key": served.key}) as http:
                await http.post(f"/threads/{thread}/runs/stream", json=body)

        call = asyncio.ensure_future(queued())
        await until(lambda: served.service.runs.waiting(key), "the second call to wait its turn")
        call.cancel()  # the caller goes while it waits
        await asyncio.gather(call, return_exceptions=True)
        await until(lambda: not served.service.runs.waiting(key), "the queued call to end")
        (gates / "hold").touch()
        assert (await client.runs.join(thread, first["run_id"]))["log"] == ["first"]
        assert [r["run_id"] for r in await client.runs.list(thread)] == [first["run_id"]]


@BACKENDS
@in_loop
async def test_a_run_cancelled_with_rollback_leaves_none_of_its_versions(tmp_path: Path, gates: Path, backend: str) -> None:
    async with serving(tmp_path, backend) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "gated")
        assert (await client.runs.wait(thread, "gated", input={"label": "kept"}))["log"] == ["kept"]
        run = await client.runs.create(thread, "gated", input={"gate": "never", "label": "dropped"})
        await until(lambda: _running(served, thread, run["run_id"]), "the run's engine to start")
        # its input version is saved (within the server's version linger of the run's start)
        await until(lambda: _versions(served, thread, run["run_id"]), "the run's first version")
        await client.runs.cancel(thread, run["run_id"], action="rollback")
        assert await _versions(served, thread, run["run_id"]) == 0
        assert (await client.runs.get(thread, run["run_id"]))["status"] == "interrupted"
        assert (await client.runs.wait(thread, "gated", input={"gate": "", "label": "next"}))["log"] == ["kept", "next"]
        with pytest.raises(httpx.HTTPStatusError) as ended:  # it has ended: nothing to roll back (404, as LangGraph's server)
            await client.runs.cancel(thread, run["run_id"], action="rollback")
        assert ended.value.response.status_code == 404


async def _versions(served: Any, thread: str, run_id: str) -> int:
    """How many versions of the thread the run saved."""
    config = {"configurable": {"thread_id": _key(thread)}}
    return len([c async for c in served.service.checkpointer.alist(config, filter={RUN_KEY: run_id})])


@in_loop
async def test_a_thread_made_over_http_runs_its_own_graphs_assistants(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = (await client.threads.create(graph_id="chain3"))["thread_id"]
        assert (await client.runs.wait(thread, "chain3", input={"n": 1}, if_not_exists="reject"))["n"] == 4
        with pytest.raises(httpx.HTTPStatusError) as other:
            await client.runs.wait(thread, "gated", input={"label": "x"})
        assert other.value.response.status_code == 409
        assert "belongs to graph 'chain3'" in other.value.response.json()["detail"]
        assert (await client.threads.get(thread))["status"] == "idle"


@in_loop
async def test_a_joined_stream_that_cancels_on_disconnect(tmp_path: Path, gates: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "gated")
        run = await client.runs.create(thread, "gated", input={"gate": "never", "label": "x"}, stream_mode=["values", "custom"])
        path = f"/threads/{thread}/runs/{run['run_id']}/stream"
        async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}) as http:
            params = {"stream_mode": ["values", "custom"], "cancel_on_disconnect": "true"}
            async with http.stream("GET", path, params=params) as res:
                assert res.status_code == 200
                async for line in res.aiter_lines():
                    if line.startswith("event: custom"):
                        break  # the node runs; the joiner leaves
        record = await until(lambda: _ended(served, run["run_id"]), "the run to end")
        assert record.status == "CANCELLED"


@in_loop
async def test_stateless_background_runs_and_a_batch(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        kept = await client.runs.create(None, "chain3", input={"n": 0}, on_completion="keep")
        assert (await client.runs.join(kept["thread_id"], kept["run_id"]))["n"] == 3
        gone = await client.runs.create(None, "chain3", input={"n": 0})
        await until(lambda: _deleted(served, gone["run_id"]), "the stateless run's thread to be deleted")
        assert await served.service.records.store.aget(kept["run_id"]) is not None
        batch = await client.runs.create_batch([
            {"assistant_id": "chain3", "input": {"n": 1}, "on_completion": "keep"},
            {"assistant_id": "chain3", "input": {"n": 2}, "on_completion": "keep"},
        ])  # fmt: skip
        assert len({r["thread_id"] for r in batch}) == 2
        assert [(await client.runs.join(r["thread_id"], r["run_id"]))["n"] for r in batch] == [4, 5]


async def _deleted(served: Any, run_id: str) -> bool:
    return await served.service.records.store.aget(run_id) is None
