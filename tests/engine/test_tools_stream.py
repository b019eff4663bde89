"""Stream mode "tools" and ToolRuntime.emit_output_delta (engine._langchain.tools): each tool call's
start, output deltas, end or error, as LangGraph 1.2 streams them; the functional API's tasks under
LangChain's config (engine._langchain.calls). tests/sidebyside/tools_stream.py compares them with LangGraph."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel, GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from typing_extensions import TypedDict  # noqa: E402

from engine.errors import GraphDrained  # noqa: E402
from engine.events import ToolEvent  # noqa: E402
from engine.func import entrypoint, task  # noqa: E402
from engine.graph import END, START, StateGraph  # noqa: E402
from engine.graph.message import add_messages  # noqa: E402
from engine.prebuilt import InjectedState, ToolNode, ToolRuntime, create_react_agent  # noqa: E402
from engine.pregel._stream import STREAM_MODES  # noqa: E402
from engine._langchain.tools import _tool_call_writer  # noqa: E402
from engine.runtime import RunControl  # noqa: E402
from engine.types import Command, interrupt  # noqa: E402


class State(TypedDict):
    messages: Annotated[list, add_messages]


@tool
def spell(word: str, runtime: ToolRuntime) -> str:
    """Spell a word letter by letter."""
    for letter in word:
        runtime.emit_output_delta(letter)
    return word.upper()


@tool
async def aspell(word: str, runtime: ToolRuntime) -> str:
    """Spell a word, async."""
    for letter in word:
        runtime.emit_output_delta(letter)
    return word.upper()


@tool
def boom(reason: str) -> str:
    """Fail."""
    raise ValueError(f"no: {reason}")


@tool
def ask(question: str) -> str:
    """Ask the user."""
    return f"answer: {interrupt(question)}"


@tool
def plain(text: str) -> str:
    """Echo."""
    return text


def calling(*calls: tuple[str, dict[str, Any], str]) -> Any:
    def caller(state: State) -> dict[str, Any]:
        return {"messages": [AIMessage("", id="ai", tool_calls=[{"name": n, "args": a, "id": i} for n, a, i in calls])]}

    return caller


def graph(caller: Any, tools: list[Any], **compile_kwargs: Any) -> Any:
    g = StateGraph(State).add_node("caller", caller).add_node("tools", ToolNode(tools))
    return g.add_edge(START, "caller").add_edge("caller", "tools").add_edge("tools", END).compile(**compile_kwargs)


def started(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"event": "tool-started", "tool_call_id": call_id, "tool_name": name, "input": args}


def delta(call_id: str, value: Any) -> dict[str, Any]:
    return {"event": "tool-output-delta", "tool_call_id": call_id, "delta": value}


def finished(call_id: str, name: str, content: str) -> dict[str, Any]:
    return {"event": "tool-finished", "tool_call_id": call_id, "output": ("ToolMessage", content, name, call_id)}


def bare(payloads: Any) -> list[Any]:
    """The payloads, a finished call's ToolMessage as (class, content, name, tool_call_id): its id is
    the one add_messages gives it once the node's writes are applied (the very object, as on LangGraph)."""
    out = []
    for p in payloads:
        m = p.get("output")
        if isinstance(m, ToolMessage):
            p = {**p, "output": (type(m).__name__, m.content, m.name, m.tool_call_id)}
        out.append(p)
    return out


def test_tools_is_a_stream_mode() -> None:
    assert "tools" in STREAM_MODES


def test_a_tool_node_streams_its_calls_start_deltas_and_end_between_the_updates() -> None:
    chunks = list(graph(calling(("spell", {"word": "ab"}, "t1")), [spell]).stream({"messages": []}, stream_mode=["tools", "updates"], subgraphs=True))
    assert [mode for _, mode, _ in chunks] == ["updates", "tools", "tools", "tools", "tools", "updates"]
    assert all(ns == () for ns, _, _ in chunks)
    assert bare(payload for _, mode, payload in chunks if mode == "tools") == [
        started("t1", "spell", {"word": "ab"}),
        delta("t1", "a"),
        delta("t1", "b"),
        finished("t1", "spell", "AB"),
    ]


def test_an_async_tool_streams_under_astream() -> None:
    async def run() -> list[Any]:
        g = graph(calling(("aspell", {"word": "xy"}, "t2")), [aspell])
        return [c async for c in g.astream({"messages": []}, stream_mode="tools")]

    assert bare(asyncio.run(run())) == [started("t2", "aspell", {"word": "xy"}), delta("t2", "x"), delta("t2", "y"), finished("t2", "aspell", "XY")]


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_react_agent_tool_deltas_come_between_the_agent_and_tools_updates() -> None:
    class Agent(FakeMessagesListChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    model = Agent(responses=[AIMessage("", id="a1", tool_calls=[{"name": "spell", "args": {"word": "hi"}, "id": "c1"}]), AIMessage("done", id="a2")])
    chunks = list(create_react_agent(model, [spell]).stream({"messages": [("user", "spell")]}, stream_mode=["tools", "updates"]))
    shown = [(mode, payload["event"] if mode == "tools" else next(iter(payload))) for mode, payload in chunks]
    assert shown == [
        ("updates", "agent"),
        ("tools", "tool-started"),
        ("tools", "tool-output-delta"),
        ("tools", "tool-output-delta"),
        ("tools", "tool-finished"),
        ("updates", "tools"),
        ("updates", "agent"),
    ]


def test_parallel_calls_keep_their_deltas_apart() -> None:
    chunks = list(graph(calling(("spell", {"word": "ab"}, "p1"), ("spell", {"word": "cd"}, "p2")), [spell]).stream({"messages": []}, stream_mode="tools"))
    by_id: dict[str, list[Any]] = {}
    for payload in chunks:
        by_id.setdefault(payload["tool_call_id"], []).append(payload.get("delta", payload["event"]))
    assert by_id == {"p1": ["tool-started", "a", "b", "tool-finished"], "p2": ["tool-started", "c", "d", "tool-finished"]}


def test_a_failing_tool_reports_tool_error_and_the_run_raises() -> None:
    seen: list[Any] = []
    with pytest.raises(ValueError, match="no: x"):
        for payload in graph(calling(("boom", {"reason": "x"}, "e1")), [boom]).stream({"messages": []}, stream_mode="tools"):
            seen.append(payload)
    assert seen == [started("e1", "boom", {"reason": "x"}), {"event": "tool-error", "tool_call_id": "e1", "message": "no: x"}]


def test_an_interrupted_tool_is_no_error_and_starts_again_on_resume(checkpointer: Any) -> None:
    g = graph(calling(("ask", {"question": "ok?"}, "q1")), [ask], checkpointer=checkpointer)
    config = {"configurable": {"thread_id": "1"}}
    assert list(g.stream({"messages": []}, config, stream_mode="tools")) == [started("q1", "ask", {"question": "ok?"})]
    assert bare(g.stream(Command(resume="yes"), config, stream_mode="tools")) == [
        started("q1", "ask", {"question": "ok?"}),
        finished("q1", "ask", "answer: yes"),
    ]


def test_a_drained_tool_is_no_error() -> None:
    control = RunControl()

    def request_drain(state: State) -> dict[str, Any]:
        control.request_drain()
        return {}

    inner = StateGraph(State).add_node("request_drain", request_drain).add_node("after", lambda s: {})
    inner = inner.add_edge(START, "request_drain").add_edge("request_drain", "after").compile()

    @tool
    def drained() -> str:
        """Drains the graph it runs (its own RunControl, not the caller's)."""
        inner.invoke({"messages": []}, control=control)
        return "unreachable"

    seen: list[Any] = []
    with pytest.raises(GraphDrained):
        for payload in graph(calling(("drained", {}, "d1")), [drained]).stream({"messages": []}, stream_mode="tools"):
            seen.append(payload)
    assert seen == [started("d1", "drained", {})]


def test_a_subgraphs_tools_stream_under_its_namespace_only_with_subgraphs() -> None:
    inner = graph(calling(("spell", {"word": "i"}, "s1")), [spell])
    outer = StateGraph(State).add_node("sub", inner).add_edge(START, "sub").compile()
    chunks = list(outer.stream({"messages": []}, stream_mode="tools", subgraphs=True))
    assert [payload["event"] for _, payload in chunks] == ["tool-started", "tool-output-delta", "tool-finished"]
    assert {tuple(level.split(":")[0] for level in ns) for ns, _ in chunks} == {("sub",)}
    assert list(outer.stream({"messages": []}, stream_mode="tools")) == []


def test_a_node_streaming_a_graph_gets_its_tools_the_caller_does_not() -> None:
    child = graph(calling(("spell", {"word": "c"}, "k1")), [spell])
    received: list[Any] = []

    def node(state: State) -> dict[str, Any]:
        received.extend(child.stream({"messages": []}, stream_mode="tools"))
        return {}

    parent = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    assert list(parent.stream({"messages": []}, stream_mode="tools")) == []
    assert [p["event"] for p in received] == ["tool-started", "tool-output-delta", "tool-finished"]


def test_a_tool_called_by_hand_and_a_model_stream_in_the_order_they_run() -> None:
    def by_hand(state: State) -> dict[str, Any]:
        plain.invoke({"text": "first"})
        return {"messages": [GenericFakeChatModel(messages=iter(["one two"])).invoke("hi")]}

    app = StateGraph(State).add_node("by_hand", by_hand).add_edge(START, "by_hand").compile()
    chunks = list(app.stream({"messages": []}, stream_mode=["messages", "tools"]))
    shown = [payload[0].content if mode == "messages" else payload["event"] for mode, payload in chunks]
    assert shown == ["tool-started", "tool-finished", "one", " ", "two"]
    start, end = chunks[0][1], chunks[1][1]
    # no tool call: the call is named by its LangChain run id; its output is what the tool returned
    assert start["tool_call_id"] == end["tool_call_id"] and len(start["tool_call_id"]) == 36
    assert (start["tool_name"], start["input"], end["output"]) == ("plain", {"text": "first"}, "first")


def test_a_nostream_tool_and_a_run_without_the_mode_send_nothing() -> None:
    def quiet(state: State) -> dict[str, Any]:
        plain.invoke({"text": "hush"}, {"tags": ["nostream"]})
        return {}

    app = StateGraph(State).add_node("quiet", quiet).add_edge(START, "quiet").compile()
    assert list(app.stream({"messages": []}, stream_mode="tools")) == []
    chunks = list(graph(calling(("spell", {"word": "z"}, "n1")), [spell]).stream({"messages": []}, stream_mode="updates"))
    assert [next(iter(c)) for c in chunks] == ["caller", "tools"]


def test_emit_output_delta_outside_a_streamed_call_does_nothing() -> None:
    assert _tool_call_writer.get() is None
    # a ToolNode on its own: no run streaming "tools", the deltas go nowhere, without error
    out = ToolNode([spell]).invoke({"messages": [AIMessage("", tool_calls=[{"name": "spell", "args": {"word": "q"}, "id": "o1"}])]})
    assert out == {"messages": [ToolMessage("Q", name="spell", tool_call_id="o1")]}
    assert _tool_call_writer.get() is None


@task
def chat_and_echo(text: str) -> str:
    plain.invoke({"text": text})
    return GenericFakeChatModel(messages=iter(["one two"])).invoke("hi").content


@entrypoint()
def workflow(inputs: dict[str, Any]) -> str:
    return chat_and_echo(inputs["text"]).result()


@task
async def achat_and_echo(text: str) -> str:
    await plain.ainvoke({"text": text})
    return (await GenericFakeChatModel(messages=iter(["one two"])).ainvoke("hi")).content


@entrypoint()
async def aworkflow(inputs: dict[str, Any]) -> str:
    return await achat_and_echo(inputs["text"])


def summary(chunks: Any) -> list[Any]:
    return [(mode, payload["event"] if mode == "tools" else (payload[0].content, payload[1]["langgraph_node"])) for mode, payload in chunks]


def test_a_functional_tasks_tool_calls_and_tokens_stream() -> None:
    expected = [
        ("tools", "tool-started"),
        ("tools", "tool-finished"),
        ("messages", ("one", "chat_and_echo")),
        ("messages", (" ", "chat_and_echo")),
        ("messages", ("two", "chat_and_echo")),
    ]
    assert summary(workflow.stream({"text": "t"}, stream_mode=["tools", "messages"])) == expected

    async def run() -> list[Any]:
        return summary([c async for c in aworkflow.astream({"text": "t"}, stream_mode=["tools", "messages"])])

    assert asyncio.run(run()) == [(mode, (p[0], "achat_and_echo") if mode == "messages" else p) for mode, p in expected]


def test_callbacks_see_an_entrypoints_and_its_tasks_runs() -> None:
    seen: list[Any] = []

    class Seen(BaseCallbackHandler):
        def on_chain_start(self, serialized: Any, inputs: Any, *, name: str | None = None, **kwargs: Any) -> None:
            seen.append(("chain", name))

        def on_tool_start(self, serialized: Any, input_str: str, **kwargs: Any) -> None:
            seen.append(("tool", serialized.get("name")))

    assert workflow.invoke({"text": "u"}, {"callbacks": [Seen()]}) == "one two"
    assert seen == [("chain", "LangGraph"), ("chain", "workflow"), ("chain", "chat_and_echo"), ("tool", "plain")]


def test_tool_events_go_only_to_a_caller_naming_them() -> None:
    g = graph(calling(("spell", {"word": "ab"}, "k1")), [spell])

    async def kinds_seen(kinds: Any) -> list[str]:
        return [type(ev).__name__ async for ev in g.aevents({"messages": []}, kinds=kinds)]

    every = asyncio.run(kinds_seen(None))  # a host taking every event: the wire has no form for these
    assert "ToolEvent" not in every and "TaskFinished" in every
    assert asyncio.run(kinds_seen(frozenset({ToolEvent}))) == ["ToolEvent"] * 4 + ["RunFinished"]


def test_a_node_streaming_tools_of_a_graph_gets_them_under_a_caller_taking_every_event() -> None:
    child = graph(calling(("spell", {"word": "c"}, "k2")), [spell])
    received: list[Any] = []

    async def node(state: State) -> dict[str, Any]:
        received.extend([p async for p in child.astream({"messages": []}, stream_mode="tools")])
        return {}

    parent = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()

    async def run() -> list[Any]:
        return [ev async for ev in parent.aevents({"messages": []}, kinds=None, subgraphs=True)]

    events = asyncio.run(run())
    assert [p["event"] for p in received] == ["tool-started", "tool-output-delta", "tool-finished"]
    assert not any(isinstance(ev, ToolEvent) for ev in events)


def test_bad_arguments_are_a_tool_error_and_an_unknown_tool_no_run() -> None:
    @tool
    def num(n: int) -> int:
        """A number."""
        return n

    chunks = list(graph(calling(("num", {"n": "x"}, "m1"), ("nope", {}, "m2")), [num]).stream({"messages": []}, stream_mode=["tools", "updates"]))
    tools = [payload for mode, payload in chunks if mode == "tools"]
    assert [(p["event"], p["tool_call_id"]) for p in tools] == [("tool-started", "m1"), ("tool-error", "m1")]
    assert "valid integer" in tools[1]["message"]
    answers = chunks[-1][1]["tools"]["messages"]  # the ToolNode answers both, as errors
    assert [(m.tool_call_id, m.status) for m in answers] == [("m1", "error"), ("m2", "error")]


def test_a_tool_answering_with_a_command_finishes_with_it_its_injected_state_not_in_the_input() -> None:
    @tool
    def commands(x: str, state: Annotated[dict, InjectedState]) -> Command:
        """Answers with a Command."""
        return Command(update={"messages": [ToolMessage(f"seen {len(state['messages'])}", tool_call_id="m3")]})

    chunks = list(graph(calling(("commands", {"x": "1"}, "m3")), [commands]).stream({"messages": []}, stream_mode="tools"))
    assert chunks[0] == started("m3", "commands", {"x": "1"})
    assert chunks[1]["event"] == "tool-finished" and isinstance(chunks[1]["output"], Command)
    assert [m.content for m in chunks[1]["output"].update["messages"]] == ["seen 1"]
