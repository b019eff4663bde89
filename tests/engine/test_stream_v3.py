"""LangGraph's v3 streaming protocol on the engine (``stream_events``/``astream_events(version="v3")``).

The twin of tests/sidebyside/stream_events_v3.py: the values its LangGraph run
records, asserted here on the engine's own imports.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from typing_extensions import TypedDict

from engine.checkpoint import InMemorySaver
from engine.graph import END, START, MessagesState, StateGraph
from engine.stream import StreamChannel, StreamTransformer
from engine.stream.transformers import UpdatesTransformer
from engine.types import interrupt

INPUT = {"messages": [("user", "hello")], "done": False}


class State(MessagesState):
    done: bool


def _build(*, fail: bool = False, ask: bool = False, checkpointer: Any = None) -> Any:
    model = GenericFakeChatModel(messages=iter(["inner says hi", "outer answers"]))

    def think(state: MessagesState) -> dict[str, Any]:
        if fail:
            raise ValueError("inner broke")
        return {"messages": [model.invoke(state["messages"])]}

    def note(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage("a note", id="note-1")]}

    inner = StateGraph(MessagesState).add_node("think", think).add_node("note", note)
    inner = inner.add_edge(START, "think").add_edge("think", "note").compile()

    def answer(state: State) -> dict[str, Any]:
        if ask:
            interrupt("sure?")
        return {"messages": [model.invoke(state["messages"])], "done": True}

    g = StateGraph(State).add_node("inner", inner).add_node("answer", answer)
    return g.add_edge(START, "inner").add_edge("inner", "answer").add_edge("answer", END).compile(checkpointer=checkpointer)


def _ns(namespace: Any) -> list[str]:
    return [seg.split(":")[0] for seg in namespace]


def test_the_main_log_in_order() -> None:
    async def main() -> list[tuple[int, str, list[str]]]:
        run = await _build().astream_events(INPUT, version="v3")
        return [(e["seq"], e["method"], _ns(e["params"]["namespace"])) async for e in run]

    log = asyncio.run(main())
    assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1))
    methods = [(m, ns) for _, m, ns in log]
    # the root's input values, the subgraph's, then its start; no tasks events (folded into lifecycle)
    assert methods[:3] == [("values", []), ("values", ["inner"]), ("lifecycle", [])]
    assert ("tasks", []) not in methods and ("tasks", ["inner"]) not in methods
    assert methods.count(("lifecycle", [])) == 2
    # one model call in the subgraph, one at the root: each from message-start to message-finish
    assert [ns for m, ns in methods if m == "messages"].count(["inner"]) >= 3
    assert methods[-1] == ("values", [])


def test_messages_subgraphs_lifecycle_and_output() -> None:
    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        run = await _build().astream_events(INPUT, version="v3")
        out["root"] = [(s.node, [d async for d in s.text], (await s).text) async for s in run.messages]
        out["keys"] = sorted(run.extensions)
        run = await _build().astream_events(INPUT, version="v3")
        handles = []
        async for h in run.subgraphs:
            values = [len(v["messages"]) async for v in h.values]
            handles.append((_ns(h.path), h.graph_name, h.status, values))
        out["handles"] = handles
        run = await _build().astream_events(INPUT, version="v3")
        async for h in run.subgraphs:
            out["inner"] = [(s.node, (await s).text) async for s in h.messages]
        run = await _build().astream_events(INPUT, version="v3")
        out["lifecycle"] = [(p["event"], _ns(p["namespace"]), p.get("graph_name")) async for p in run.lifecycle]
        out["output"] = [(m.type, m.text) for m in (await run.output())["messages"]]
        return out

    out = asyncio.run(main())
    assert out["root"] == [("answer", ["outer", " ", "answers"], "outer answers")]
    assert out["keys"] == ["lifecycle", "messages", "subgraphs", "values"]
    assert out["handles"] == [(["inner"], "inner", "completed", [2, 3])]
    assert out["inner"] == [("think", "inner says hi"), ("note", "a note")]
    assert out["lifecycle"] == [("started", ["inner"], "inner"), ("completed", ["inner"], None)]
    assert out["output"] == [("human", "hello"), ("ai", "inner says hi"), ("ai", "a note"), ("ai", "outer answers")]


def test_an_interrupt_a_failure_and_abort() -> None:
    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        app = _build(ask=True, checkpointer=InMemorySaver())
        run = await app.astream_events(INPUT, {"configurable": {"thread_id": "t"}}, version="v3")
        out["interrupted"] = (await run.interrupted(), [i.value for i in await run.interrupts()])
        run = await _build(fail=True).astream_events(INPUT, version="v3")
        seen: list[Any] = []
        with pytest.raises(ValueError, match="inner broke"):
            async for p in run.lifecycle:
                seen.append((p["event"], p.get("error")))
        out["failed"] = seen
        run = await _build().astream_events(INPUT, version="v3")
        async with run:
            first = await run.values.__aiter__().__anext__()
        out["abort"] = (len(first["messages"]), run._exhausted)
        return out

    out = asyncio.run(main())
    assert out["interrupted"] == (True, ["sure?"])
    assert out["failed"] == [("started", None), ("failed", "inner broke")]
    assert out["abort"] == (1, True)


class Steps(TypedDict):
    log: Annotated[list[str], operator.add]


class Counter(StreamTransformer):
    required_stream_modes = ("updates",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self.channel: StreamChannel[list[str]] = StreamChannel("steps")

    def init(self) -> dict[str, Any]:
        return {"steps": self.channel}

    def process(self, event: Any) -> bool:
        if event["method"] == "updates" and not event["params"]["namespace"]:
            self.channel.push(sorted(event["params"]["data"]))
        return True


def _plain() -> Any:
    g = StateGraph(Steps).add_node("a", lambda s: {"log": ["a"]}).add_node("b", lambda s: {"log": ["b"]})
    return g.add_edge(START, "a").add_edge("a", "b").compile()


def test_sync_a_named_channel_and_interleave() -> None:
    run = _plain().stream_events({"log": []}, version="v3", transformers=[Counter, UpdatesTransformer])
    assert [(e["method"], e["params"]["data"]) for e in run] == [
        ("values", {"log": []}),
        ("custom:steps", ["a"]), ("updates", {"a": {"log": ["a"]}}), ("values", {"log": ["a"]}),
        ("custom:steps", ["b"]), ("updates", {"b": {"log": ["b"]}}), ("values", {"log": ["a", "b"]}),
    ]  # fmt: skip
    run = _plain().stream_events({"log": []}, version="v3", transformers=[Counter, UpdatesTransformer])
    assert [name for name, _ in run.interleave("values", "updates", "steps")] == [
        "values", "steps", "updates", "values", "steps", "updates", "values",
    ]  # fmt: skip
    assert run.extensions["values"]._subscribed is False


def test_refused_arguments() -> None:
    with pytest.raises(TypeError, match="stream_mode"):
        _plain().stream_events({"log": []}, version="v3", stream_mode="values")
    with pytest.raises(TypeError, match="pre-built instance Counter"):
        _plain().stream_events({"log": []}, version="v3", transformers=[Counter()])


def test_a_v1_stream_inside_a_v3_run_keeps_v1_chunks() -> None:
    model = GenericFakeChatModel(messages=iter(["nested path"]))
    inner = StateGraph(MessagesState).add_node("m", lambda s: {"messages": model.invoke(s["messages"])})
    inner = inner.add_edge(START, "m").compile()

    class O(TypedDict, total=False):
        kinds: list[str]

    def outer_node(state: O, config: RunnableConfig) -> dict[str, Any]:
        return {"kinds": sorted({type(p).__name__ for p, _ in inner.stream({"messages": "hi"}, config, stream_mode="messages")})}

    outer = StateGraph(O).add_node("n", outer_node).add_edge(START, "n").compile()
    assert outer.stream_events({}, version="v3").output == {"kinds": ["AIMessageChunk"]}


def test_a_low_level_graph_s_stream_transformers() -> None:
    from engine.channels import LastValue
    from engine.pregel import NodeBuilder, Pregel

    node = NodeBuilder().subscribe_only("a").do(lambda x: x + 1).write_to("b")
    app = Pregel(nodes={"n": node}, channels={"a": LastValue(int), "b": LastValue(int)}, input_channels="a",
                 output_channels="b", stream_transformers=[UpdatesTransformer])  # fmt: skip
    run = app.stream_events(1, version="v3")
    assert list(run.updates) == [{"n": {"b": 2}}]
    assert run.output == {"a": 1, "b": 2}


class LogState(TypedDict):
    log: Annotated[list[str], operator.add]


def _nested() -> Any:
    def leaf(name: str) -> Any:
        return lambda s: {"log": [name]}

    g3 = StateGraph(LogState).add_node("deep", leaf("deep")).add_edge(START, "deep").compile()
    g2 = StateGraph(LogState).add_node("mid", leaf("mid")).add_node("g3", g3).add_edge(START, "mid").add_edge("mid", "g3").compile()
    return StateGraph(LogState).add_node("start", leaf("start")).add_node("g2", g2).add_edge(START, "start").add_edge("start", "g2").compile()


def test_a_subgraph_of_a_subgraph() -> None:
    run = _nested().stream_events({"log": []}, version="v3", transformers=[UpdatesTransformer])
    lifecycle = [(e["params"]["data"]["event"], _ns(e["params"]["data"]["namespace"])) for e in run if e["method"] == "lifecycle"]
    assert lifecycle == [("started", ["g2"]), ("started", ["g2", "g3"]), ("completed", ["g2", "g3"]), ("completed", ["g2"])]

    def walk(h: Any, depth: int) -> list[Any]:
        out: list[Any] = [(depth, _ns(h.path), h.graph_name)]
        for name, item in h.interleave("values", "subgraphs"):
            out.extend(walk(item, depth + 1) if name == "subgraphs" else [sorted(item["log"])])
        return [*out, h.status]

    run = _nested().stream_events({"log": []}, version="v3")
    tree = [x for h in run.subgraphs for x in walk(h, 1)]
    assert tree == [
        (1, ["g2"], "g2"), ["mid", "start"],
        (2, ["g2", "g3"], "g3"), ["deep", "mid", "start"], "completed",
        ["deep", "mid", "mid", "start", "start"], "completed",
    ]  # fmt: skip
    assert sorted(run.output["log"]) == ["deep", "mid", "mid", "start", "start", "start"]
