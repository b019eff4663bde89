"""The engine's ``RemoteGraph`` calling graphwire's own HTTP face (``graphwire serve --http``) through ``langgraph-sdk``.

Alone, sync and async: it runs a served graph (``invoke``, ``stream``) and
reads and writes the server's thread (``get_state``, ``update_state``,
``get_state_history``, ``get_graph``). As a node of a graph the engine runs
(on the parent's thread id): the remote graph's interrupts stop the parent,
``Command(resume=...)`` on the parent answers them on the remote thread, and
the parent's ``stream(subgraphs=True)`` carries the remote graph's chunks under
the node's namespace. The server is a real one (tests/http/conftest.py's
``served``, tests/graphs.py's graphs on SQLite).
"""

from __future__ import annotations

import asyncio
import operator
import sys
import uuid
from typing import Annotated, Any

import pytest
from langchain_core.runnables import RunnableConfig
from typing_extensions import TypedDict

from engine.checkpoint import InMemorySaver
from engine.graph import START, StateGraph
from engine.pregel.remote import RemoteException, RemoteGraph
from engine.types import Command, Interrupt, StateSnapshot
from tests.conftest import ServerProcess
from tests.http.conftest import sdk_url


class Asked(TypedDict, total=False):
    log: Annotated[list, operator.add]


class Counted(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


def _thread() -> dict[str, Any]:
    return {"configurable": {"thread_id": str(uuid.uuid4())}}


def _parent(remote: RemoteGraph, state: type = Asked) -> Any:
    return StateGraph(state).add_node(remote).add_edge(START, remote.name).compile(checkpointer=InMemorySaver())


def test_alone_it_runs_a_served_graph_and_reads_and_writes_its_thread(served: ServerProcess) -> None:
    remote = RemoteGraph("chain3", url=sdk_url(served))
    assert remote.invoke({"n": 0}) == {"n": 3, "log": ["a", "b", "c"]}
    assert list(remote.stream({"n": 0})) == [{"a": {"n": 1, "log": ["a"]}}, {"b": {"n": 2, "log": ["b"]}}, {"c": {"n": 3, "log": ["c"]}}]
    modes = [(part.event, part.data) for part in remote.stream({"n": 1}, stream_mode=["values", "updates"])]
    assert modes[0] == ("values", {"n": 1, "log": []}) and modes[-1] == ("values", {"n": 4, "log": ["a", "b", "c"]})
    v2 = remote.invoke({"n": 0}, version="v2")
    assert v2.value == {"n": 3, "log": ["a", "b", "c"]} and v2.interrupts == ()

    config = _thread()
    remote.invoke({"n": 10}, config)
    state = remote.get_state(config)
    assert isinstance(state, StateSnapshot)
    assert state.values == {"n": 13, "log": ["a", "b", "c"]} and state.next == () and state.metadata["step"] == 3
    history = list(remote.get_state_history(config))
    assert [s.next for s in history] == [(), ("c",), ("b",), ("a",), ("__start__",)]
    assert history[0].config == state.config and history[1].config == state.parent_config
    # an update with no as_node: the server takes the node that wrote last
    updated = remote.update_state(config, {"n": 100})
    assert updated["configurable"]["thread_id"] == config["configurable"]["thread_id"]
    assert remote.get_state(config).values == {"n": 100, "log": ["a", "b", "c"]}
    remote.update_state(config, {"log": ["x"]}, as_node="a")
    assert remote.get_state(config).values["log"] == ["a", "b", "c", "x"]
    # an older version, read by its config
    assert remote.get_state(history[1].config).values == {"n": 12, "log": ["a", "b"]}

    drawn = remote.get_graph()
    assert list(drawn.nodes) == ["__start__", "a", "b", "c", "__end__"]
    assert [(e.source, e.target) for e in drawn.edges] == [("__start__", "a"), ("a", "b"), ("b", "c"), ("c", "__end__")]


def test_alone_its_async_face_does_the_same(served: ServerProcess) -> None:
    async def go() -> None:
        remote = RemoteGraph("chain3", url=sdk_url(served))
        assert await remote.ainvoke({"n": 0}) == {"n": 3, "log": ["a", "b", "c"]}
        assert [c async for c in remote.astream({"n": 0}, stream_mode="values")][-1] == {"n": 3, "log": ["a", "b", "c"]}
        config = _thread()
        await remote.ainvoke({"n": 1}, config)
        assert (await remote.aget_state(config)).values == {"n": 4, "log": ["a", "b", "c"]}
        assert len([s async for s in remote.aget_state_history(config, limit=2)]) == 2
        await remote.aupdate_state(config, {"n": 0}, as_node="c")
        assert (await remote.aget_state(config)).values["n"] == 0
        assert list((await remote.aget_graph()).nodes) == ["__start__", "a", "b", "c", "__end__"]

    asyncio.run(go())


def test_alone_at_an_interrupt_it_returns_the_question_and_resumes_with_a_command(served: ServerProcess) -> None:
    remote = RemoteGraph("questions", url=sdk_url(served))
    config = _thread()
    first = remote.invoke({"log": []}, config)
    assert [i["value"] for i in first["__interrupt__"]] == ["first?"]  # not raised: no graph around it
    assert [i.value for i in remote.get_state(config).interrupts] == ["first?"]
    remote.invoke(Command(resume="yes"), config)
    assert remote.invoke(Command(resume="sure"), config) == {"log": ["first:yes", "second:sure"]}


def test_as_a_node_its_interrupts_stop_the_parent_and_the_parents_resume_answers_them(served: ServerProcess) -> None:
    parent = _parent(RemoteGraph("questions", url=sdk_url(served), name="remote"))
    config = _thread()
    stopped = parent.invoke({"log": ["start"]}, config)
    (asked,) = stopped["__interrupt__"]
    assert isinstance(asked, Interrupt) and asked.value == "first?"
    state = parent.get_state(config)
    assert state.next == ("remote",) and [i.value for i in state.interrupts] == ["first?"]
    # the remote graph ran on the parent's thread id, on the server
    remote_state = RemoteGraph("questions", url=sdk_url(served)).get_state(config)
    assert remote_state.next == ("ask",) and remote_state.interrupts[0].id == asked.id

    again = parent.invoke(Command(resume="yes"), config)
    assert [i.value for i in again["__interrupt__"]] == ["second?"]
    done = parent.invoke(Command(resume={again["__interrupt__"][0].id: "ok"}), config)
    # the node's update is the remote graph's last values (its log added to the parent's)
    assert done == {"log": ["start", "start", "first:yes", "second:ok"]}
    assert parent.get_state(config).next == ()


def test_as_a_node_behind_a_breakpoint_it_runs_with_its_input_when_the_parent_goes_on(served: ServerProcess) -> None:
    remote = RemoteGraph("chain3", url=sdk_url(served), name="remote")
    parent = StateGraph(Counted).add_node(remote).add_edge(START, "remote").compile(
        checkpointer=InMemorySaver(), interrupt_before=["remote"]
    )
    config = _thread()
    assert parent.invoke({"n": 1}, config)["n"] == 1
    assert parent.get_state(config).next == ("remote",)
    assert parent.invoke(None, config) == {"n": 4, "log": ["a", "b", "c"]}


def test_as_a_node_its_chunks_go_to_the_parents_stream_under_its_namespace(served: ServerProcess) -> None:
    parent = _parent(RemoteGraph("chain3", url=sdk_url(served), name="remote"), Counted)
    chunks = list(parent.stream({"n": 0}, _thread(), stream_mode=["updates", "values"], subgraphs=True))
    nested = [(ns, mode, data) for ns, mode, data in chunks if ns]
    assert {ns for ns, _, _ in nested} == {(f"remote:{nested[0][0][0].split(':', 1)[1]}",)}
    assert [data for _, mode, data in nested if mode == "updates"] == [
        {"a": {"n": 1, "log": ["a"]}}, {"b": {"n": 2, "log": ["b"]}}, {"c": {"n": 3, "log": ["c"]}},
    ]  # fmt: skip
    assert [data for ns, mode, data in chunks if not ns and mode == "updates"] == [{"remote": {"n": 3, "log": ["a", "b", "c"]}}]
    # without subgraphs=True, the parent's stream has only its own chunks
    assert list(parent.stream({"n": 0}, _thread(), stream_mode="updates")) == [{"remote": {"n": 3, "log": ["a", "b", "c"]}}]


def test_as_a_node_it_is_drawn_with_xray_as_its_server_draws_it(served: ServerProcess) -> None:
    parent = _parent(RemoteGraph("chain3", url=sdk_url(served), name="remote"), Counted)
    assert list(parent.get_graph().nodes) == ["__start__", "remote", "__end__"]
    drawn = parent.get_graph(xray=True).to_json()
    assert [n["id"] for n in drawn["nodes"]] == ["__start__", "__end__", "remote:a", "remote:b", "remote:c"]
    assert drawn["nodes"][2] == {"id": "remote:a", "type": "unknown", "data": "remote:a"}  # LangChain's shape for it
    assert [(e["source"], e["target"]) for e in drawn["edges"]] == [
        ("__start__", "remote:a"), ("remote:c", "__end__"), ("remote:a", "remote:b"), ("remote:b", "remote:c"),
    ]  # fmt: skip


def test_as_a_node_of_an_async_call_it_stops_and_resumes_alike(served: ServerProcess) -> None:
    async def go() -> None:
        parent = _parent(RemoteGraph("questions", url=sdk_url(served), name="remote"))
        config = _thread()
        first = await parent.ainvoke({"log": []}, config)
        assert [i.value for i in first["__interrupt__"]] == ["first?"]
        await parent.ainvoke(Command(resume="a"), config)
        assert await parent.ainvoke(Command(resume="b"), config) == {"log": ["first:a", "second:b"]}

    asyncio.run(go())


def test_a_failed_remote_run_raises_and_a_bad_call_says_why(served: ServerProcess) -> None:
    remote = RemoteGraph("failing", url=sdk_url(served))
    with pytest.raises(RemoteException):
        remote.invoke({"fail": True})
    with pytest.raises(ValueError, match="no sync client"):
        RemoteGraph("chain3").invoke({"n": 0})
    with pytest.raises(ValueError, match="no async client"):
        asyncio.run(RemoteGraph("chain3").ainvoke({"n": 0}))


def test_without_langgraph_sdk_making_one_from_a_url_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in sys.modules if n == "langgraph_sdk" or n.startswith("langgraph_sdk.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "langgraph_sdk", None)  # as if not installed: its import fails
    with pytest.raises(ImportError, match="langgraph-sdk"):
        RemoteGraph("chain3", url="http://127.0.0.1:1")


def test_called_from_a_node_on_a_thread_of_its_own_it_streams_to_the_parent_and_resumes(served: ServerProcess) -> None:
    """As langgraph-supervisor calls a RemoteGraph agent: ``invoke`` inside a node function, on a thread id of its own."""
    remote = RemoteGraph("questions", url=sdk_url(served))
    own_threads: list[str] = []

    def agent(state: Asked, config: RunnableConfig) -> dict[str, Any]:
        own = str(uuid.uuid5(uuid.UUID(config["configurable"]["thread_id"]), "agent"))
        own_threads.append(own)
        out = remote.invoke(state, {**config, "configurable": {**config["configurable"], "thread_id": own}})
        return {"log": out["log"]}

    parent = StateGraph(Asked).add_node("agent", agent).add_edge(START, "agent").compile(checkpointer=InMemorySaver())
    config = _thread()
    chunks = list(parent.stream({"log": []}, config, stream_mode="updates", subgraphs=True))
    (ns, asked), (root, stopped) = chunks
    assert ns[0].startswith("agent:") and [i["value"] for i in asked["__interrupt__"]] == ["first?"]
    assert root == () and [i.value for i in stopped["__interrupt__"]] == ["first?"]
    parent.invoke(Command(resume="one"), config)
    assert parent.invoke(Command(resume="two"), config) == {"log": ["first:one", "second:two"]}
    assert len(set(own_threads)) == 1 and own_threads[0] != config["configurable"]["thread_id"]
    assert remote.get_state({"configurable": {"thread_id": own_threads[0]}}).values == {"log": ["first:one", "second:two"]}


def test_langgraphs_own_remote_graph_node_is_resumed_as_langgraphs_server_resumes_it(served: ServerProcess) -> None:
    # Real LangGraph runs the parent; its RemoteGraph node passes its task's __pregel_resuming,
    # __pregel_resume_map and __pregel_durability in configurable. As LangGraph's server (langgraph dev,
    # side by side): answers by interrupt id resume the remote thread; a plain answer does not reach it, so
    # its question is asked again; the parent's durability is the remote run's.
    from langgraph.checkpoint.memory import InMemorySaver as TheirSaver
    from langgraph.graph import START as THEIR_START
    from langgraph.graph import StateGraph as TheirGraph
    from langgraph.pregel.remote import RemoteGraph as TheirRemote
    from langgraph.types import Command as TheirCommand
    from langgraph_sdk import get_sync_client

    assert TheirRemote.__module__ == "langgraph.pregel.remote"  # LangGraph's own, not the engine's
    builder = TheirGraph(Asked)
    builder.add_node("questions", TheirRemote("questions", url=sdk_url(served)))
    builder.add_edge(THEIR_START, "questions")
    parent = builder.compile(checkpointer=TheirSaver())
    config = _thread()

    def asked(out: dict[str, Any]) -> list[Any]:
        return [i.value for i in out.get("__interrupt__", [])]

    assert asked(parent.invoke({"log": []}, config)) == ["first?"]
    assert asked(parent.invoke(TheirCommand(resume="plain"), config)) == ["first?"]
    first = parent.get_state(config).interrupts[0].id
    assert asked(parent.invoke(TheirCommand(resume={first: "one"}), config, durability="exit")) == ["second?"]
    second = parent.get_state(config).interrupts[0].id
    assert parent.invoke(TheirCommand(resume={second: "two"}), config) == {"log": ["first:one", "second:two"]}
    remote = get_sync_client(url=sdk_url(served)).threads.get_state(config["configurable"]["thread_id"])
    assert remote["values"] == {"log": ["first:one", "second:two"]} and remote["next"] == []
