"""Nodes as LangGraph 1.2 takes them (issue 15.4), token streaming (15.6) and with_config.

Observed on LangGraph 1.2.22 with langchain-core: tests/sidebyside/nodes_and_runnables.py
and react_agent.py ("messages mode") run the same programs on both.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.runnables import RunnableConfig, RunnableLambda

from engine import START, StateGraph, get_message_writer
from engine.graph import MessagesState
from engine.testing import said, thread
from engine.types import StreamWriter


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def on_chain_start(self, serialized: Any, inputs: Any, *, tags: Any = None, metadata: Any = None, **kw: Any) -> None:
        self.events.append(("chain", kw.get("name"), sorted(tags or [])))

    def on_chat_model_start(self, serialized: Any, messages: Any, *, tags: Any = None, metadata: Any = None, **kw: Any) -> None:
        meta = metadata or {}
        self.events.append(("chat", sorted(tags or []), meta.get("mine"), meta.get("langgraph_node")))


def _chain_graph(model: Any) -> StateGraph:
    def with_config(state: Log, config: RunnableConfig) -> dict:
        return {"log": [("config", config["metadata"]["mine"], config["configurable"]["thread_id"], sorted(config["tags"]))]}

    def with_writer(state: Log, writer: StreamWriter) -> dict:
        writer({"from": "writer"})
        return {"log": ["writer"]}

    def inner_model(state: Log) -> dict:
        return {"log": [model.invoke("hi").content]}  # no config passed: the run's reaches it

    chain = RunnableLambda(lambda s: {"log": ["lambda"]}) | RunnableLambda(lambda d: {"log": d["log"] + ["piped"]})
    b = StateGraph(Log)
    b.add_node("with_config", with_config)
    b.add_node("with_writer", with_writer)
    b.add_node("chain", chain)
    b.add_node("inner_model", inner_model)
    b.add_node(RunnableLambda(lambda s: {"log": ["named"]}, name="named_lambda"))
    for a, z in [(START, "with_config"), ("with_config", "with_writer"), ("with_writer", "chain"),
                 ("chain", "inner_model"), ("inner_model", "named_lambda")]:
        b.add_edge(a, z)
    return b


def test_injected_parameters_runnables_and_callbacks(checkpointer):
    model = GenericFakeChatModel(messages=iter([AIMessage("two tokens")]))
    app = _chain_graph(model).compile(checkpointer=checkpointer)
    rec = Recorder()
    config = {**thread(), "metadata": {"mine": 7}, "tags": ["mytag"], "callbacks": [rec]}
    out = list(app.stream({"log": []}, config, stream_mode=["updates", "custom"]))
    assert out == [
        ("updates", {"with_config": {"log": [("config", 7, "t1", ["mytag"])]}}),
        ("custom", {"from": "writer"}),
        ("updates", {"with_writer": {"log": ["writer"]}}),
        ("updates", {"chain": {"log": ["lambda", "piped"]}}),
        ("updates", {"inner_model": {"log": ["two tokens"]}}),
        ("updates", {"named_lambda": {"log": ["named"]}}),
    ]
    # the run, each node, and the model inside a plain function, as LangGraph reports them
    assert ("chat", ["mytag", "seq:step:1"], 7, "inner_model") in rec.events
    names = {e[1] for e in rec.events if e[0] == "chain"}
    assert {"LangGraph", "with_config", "with_writer", "chain", "inner_model", "named_lambda"} <= names
    assert app.get_state(thread()).values["log"][-1] == "named"


def test_a_runnable_node_is_named_after_itself_and_runs_async(checkpointer):
    async def afunc(state: Log) -> dict:
        await asyncio.sleep(0)
        return {"log": ["async lambda"]}

    b = StateGraph(Log)
    b.add_node(RunnableLambda(lambda s: {"log": ["sync"]}, afunc=afunc, name="both"))
    b.add_edge(START, "both")
    app = b.compile(checkpointer=checkpointer)
    assert app.invoke({"log": []}, thread("a")) == {"log": ["async lambda"]}
    assert asyncio.run(app.ainvoke({"log": []}, thread("b"))) == {"log": ["async lambda"]}


def test_with_config_is_applied(checkpointer):
    b = StateGraph(Log)
    b.add_node("n", lambda s, config: {"log": [(config["metadata"].get("who"), config.get("recursion_limit"))]})
    b.add_edge(START, "n")
    app = b.compile(checkpointer=checkpointer)
    bound = app.with_config({"configurable": {"thread_id": "bound"}, "metadata": {"who": "default"}}, recursion_limit=5)
    assert bound is not app
    assert bound.invoke({"log": []}) == {"log": [("default", 5)]}
    assert bound.invoke({"log": []}, {"metadata": {"who": "call"}})["log"][-1] == ("call", 5)
    assert [s.metadata["step"] for s in bound.get_state_history({})][:1] == [4]  # two turns on the bound thread
    assert app.get_state(thread("bound")).values == bound.get_state({}).values
    with pytest.raises(ValueError, match="thread_id"):
        app.invoke({"log": []})  # the original keeps no defaults


def test_messages_mode_streams_model_tokens_and_returned_messages(checkpointer):
    model = GenericFakeChatModel(messages=iter([AIMessage("hello there friend")]))

    def chat(state: MessagesState) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    def plain(state: MessagesState) -> dict:
        return {"messages": [AIMessage("made by hand", id="hand")]}

    def writer(state: MessagesState) -> dict:
        get_message_writer()({"content": "engine writer"})
        return {}

    b = StateGraph(MessagesState)
    b.add_node("chat", chat)
    b.add_node("plain", plain)
    b.add_node("writer", writer)
    b.add_edge(START, "chat")
    b.add_edge("chat", "plain")
    b.add_edge("plain", "writer")
    app = b.compile(checkpointer=checkpointer)
    config = {**thread(), "metadata": {"mine": 1}, "tags": ["t1"]}
    got = list(app.stream({"messages": [("user", "hi")]}, config, stream_mode="messages"))
    tokens = [(type(m).__name__, said(m)[1], meta["langgraph_node"], meta["langgraph_step"]) for m, meta in got]
    assert tokens == [
        ("AIMessageChunk", "hello", "chat", 1), ("AIMessageChunk", " ", "chat", 1), ("AIMessageChunk", "there", "chat", 1),
        ("AIMessageChunk", " ", "chat", 1), ("AIMessageChunk", "friend", "chat", 1),
        ("AIMessage", "made by hand", "plain", 2),
        ("dict", "engine writer", "writer", 3),
    ]
    first = got[0][1]
    assert first["mine"] == 1 and first["tags"] == ["t1"] and first["thread_id"] == "t1"
    assert first["ls_provider"] == "genericfakechatmodel"
    assert got[5][1]["ls_integration"] == "langgraph"
    # the streamed reply is stored once, as a whole message with the chunks' id
    stored = app.get_state(thread()).values["messages"]
    assert [type(m).__name__ for m in stored] == ["HumanMessage", "AIMessage", "AIMessage"]
    assert stored[1].id == got[0][0].id and stored[1].content == "hello there friend"
    assert isinstance(got[0][0], AIMessageChunk)


def test_nostream_models_send_no_tokens(checkpointer):
    model = GenericFakeChatModel(messages=iter([AIMessage("quiet please")])).with_config(tags=["nostream"])

    def chat(state: MessagesState) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    b = StateGraph(MessagesState)
    b.add_node("chat", chat)
    b.add_edge(START, "chat")
    got = list(b.compile(checkpointer=checkpointer).stream({"messages": [("user", "hi")]}, thread(), stream_mode="messages"))
    # nothing token by token; the node's reply, returned, is still sent once whole
    assert [(type(m).__name__, m.content) for m, _ in got] == [("AIMessage", "quiet please")]


def test_messages_mode_through_a_subgraph_node_sends_each_message_once(checkpointer):
    """As LangGraph (tests/sidebyside/subgraph_messages.py): a subgraph's model tokens go out once.

    With ``subgraphs=True`` under the subgraph's namespace (the parent's task
    sends nothing more); without, the parent sends the messages its
    subgraph node returned, whole, as that node's.
    """
    model = GenericFakeChatModel(messages=iter([AIMessage("a b", id="m1"), AIMessage("c d", id="m2"), AIMessage("e", id="m3")]))

    def chat(state: MessagesState) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    def handmade(state: MessagesState) -> dict:
        return {"messages": [AIMessage("hand", id="hm")]}

    inner = StateGraph(MessagesState).add_node("inner_chat", chat).add_node("hand", handmade)
    inner = inner.add_edge(START, "inner_chat").add_edge("inner_chat", "hand").compile()
    outer = StateGraph(MessagesState).add_node("agent", inner).add_edge(START, "agent").compile(checkpointer=checkpointer)
    flat = [(c.content, m["langgraph_node"]) for c, m in outer.stream({"messages": [("user", "q")]}, thread("1"), stream_mode="messages")]
    assert flat == [("a b", "agent"), ("hand", "agent")]
    nested = [
        (len(ns), c.content, m["langgraph_node"])
        for ns, (c, m) in outer.stream({"messages": [("user", "q")]}, thread("2"), stream_mode="messages", subgraphs=True)
    ]
    assert nested == [(1, "c", "inner_chat"), (1, " ", "inner_chat"), (1, "d", "inner_chat"), (1, "hand", "hand")]

    async def run() -> list:
        return [
            (len(ns), c.content)
            async for ns, (c, m) in outer.astream({"messages": [("user", "q")]}, thread("3"), stream_mode="messages", subgraphs=True)
        ]

    assert asyncio.run(run()) == [(1, "e"), (1, "hand")]

    # A graph called inside a node function: what it sent, the node does not send again when it returns it.
    def call_inner(state: MessagesState) -> dict:
        return inner.invoke(state)

    model = GenericFakeChatModel(messages=iter([AIMessage("a b", id="m1"), AIMessage("c d", id="m2")]))
    caller = StateGraph(MessagesState).add_node("agent", call_inner).add_edge(START, "agent").compile(checkpointer=checkpointer)
    nested = [
        (len(ns), c.content, m["langgraph_node"])
        for ns, (c, m) in caller.stream({"messages": [("user", "q")]}, thread("4"), stream_mode="messages", subgraphs=True)
    ]
    assert nested == [(1, "a", "inner_chat"), (1, " ", "inner_chat"), (1, "b", "inner_chat"), (1, "hand", "hand")]
    flat = [(c.content, m["langgraph_node"]) for c, m in caller.stream({"messages": [("user", "q")]}, thread("5"), stream_mode="messages")]
    assert flat == [("c d", "agent"), ("hand", "agent")]


def test_messages_mode_metadata_is_langgraphs_key_by_key(checkpointer):
    """tests/sidebyside/messages_metadata.py: no task_id, no configurable keys but those LangGraph copies
    (thread_id), the caller's tags without the run tree's seq:step:<n> ones, and no tags key without any."""
    model = GenericFakeChatModel(messages=iter([AIMessage("a", id="m1"), AIMessage("b", id="m2")]))

    def chat(state: MessagesState) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    flat = StateGraph(MessagesState).add_node("chat", chat).add_edge(START, "chat").compile(checkpointer=checkpointer)
    cfg = {"configurable": {"thread_id": "md", "user": "ann"}, "tags": ["mine"]}
    (_, meta), = list(flat.stream({"messages": [("user", "q")]}, cfg, stream_mode="messages"))
    assert "task_id" not in meta and "user" not in meta and meta["thread_id"] == "md"
    assert meta["tags"] == ["mine"] and meta["langgraph_node"] == "chat"
    inner = StateGraph(MessagesState).add_node("inner", chat).add_edge(START, "inner").compile()
    outer = StateGraph(MessagesState).add_node("agent", inner).add_edge(START, "agent").compile(checkpointer=checkpointer)
    (_, (_, meta)), = list(outer.stream({"messages": [("user", "q")]}, thread("md2"), stream_mode="messages", subgraphs=True))
    assert "tags" not in meta and meta["langgraph_node"] == "inner"  # the run tree's seq:step:1 is no tag of the caller's


def test_a_node_traced_by_langsmith_runs_under_its_run() -> None:
    """With LangSmith's tracer among the callbacks, a node's code sees its node's run as LangSmith's
    current one (``get_current_run_tree()``; a ``@traceable`` call nests under it), as on LangGraph."""
    from unittest.mock import MagicMock

    import langsmith
    from langchain_core.tracers import LangChainTracer
    from langsmith import get_current_run_tree

    seen: list[Any] = []

    def node(state: dict[str, Any]) -> dict[str, Any]:
        run = get_current_run_tree()
        seen.append(None if run is None else (run.name, run.id))
        return {}

    g = StateGraph(TypedDict("T", {"x": int}))  # type: ignore[operator]
    g.add_node("node", node)
    g.add_edge(START, "node")
    tracer = LangChainTracer(client=MagicMock(spec=langsmith.Client))
    g.compile().invoke({"x": 1}, {"callbacks": [tracer]})
    g.compile().invoke({"x": 1})
    assert seen[0] is not None and seen[0][0] == "node" and seen[1] is None
    assert get_current_run_tree() is None  # left as it was after the node


def _replying_graph() -> Any:
    def model(state: MessagesState) -> dict[str, Any]:
        reply = AIMessage("hi there", id="r1", response_metadata={"model_name": "fake"}, usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5})
        return {"messages": [GenericFakeChatModel(messages=iter([reply])).invoke(state["messages"])]}

    return StateGraph(MessagesState).add_node("model", model).add_node("after", lambda s: {}).add_edge(START, "model").add_edge("model", "after").compile()


def _tree(run: Any) -> list[Any]:
    return [run.name, [_tree(c) for c in sorted(run.child_runs, key=lambda r: r.dotted_order or "")]]


def test_a_call_without_callbacks_gets_the_handlers_langchain_adds_itself() -> None:
    # tests/sidebyside/langchain_handlers_asked.py: collect_runs() and get_usage_metadata_callback() register
    # configure hooks, which LangChain's managers apply to a call without callbacks; LangGraph's graph run
    # and node runs take the run's own manager (the collector, not inherited, sees the model's run as a root).
    from langchain_core.callbacks import get_usage_metadata_callback
    from langchain_core.tracers.context import collect_runs

    app = _replying_graph()
    with collect_runs() as collected:
        app.invoke({"messages": [("user", "hello")]})
    assert [_tree(r) for r in collected.traced_runs] == [["GenericFakeChatModel", []], ["LangGraph", []]]
    with get_usage_metadata_callback() as usage:
        app.invoke({"messages": [("user", "hello")]})
    assert [u["total_tokens"] for u in usage.usage_metadata.values()] == [5]


def test_langchains_debug_mode_prints_the_graphs_run(capsys: pytest.CaptureFixture[str]) -> None:
    from langchain_core.globals import set_debug

    set_debug(True)
    try:
        _replying_graph().invoke({"messages": [("user", "hello")]})
    finally:
        set_debug(False)
    printed = capsys.readouterr().out
    assert "[chain:LangGraph] Entering Chain run" in printed
    assert "[chain:LangGraph > chain:model]" in printed
