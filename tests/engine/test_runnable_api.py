"""A compiled graph is a LangChain Runnable, as LangGraph's (issue 15): batch, abatch and
astream_events(version="v2") come from langchain-core, on the engine's invoke/astream and
the chain runs it reports to callbacks.

The run tree is LangGraph 1.2.22's, observed on the same programs
(tests/sidebyside/astream_events.py, astream_events_agent.py): the graph's run is named by
the caller's run_id; each node is a run tagged graph:step:<n> whose output is streamed; a
Runnable node runs as the node's first child (a sequence's steps as its children), a router
as a child tagged seq:step:<n>, a subgraph as a run of its own under its node.
"""

from __future__ import annotations

import asyncio
import operator
import uuid
from typing import Annotated, Any, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable, RunnableLambda

from engine import END, START, StateGraph
from engine.checkpoint import InMemorySaver
from engine.graph import MessagesState
from engine.types import Command, interrupt


class N(TypedDict):
    n: Annotated[int, operator.add]


class X(TypedDict):
    x: int


def counter() -> Any:
    g = StateGraph(N)
    g.add_node("inc", lambda s: {"n": 1})
    g.add_edge(START, "inc")
    return g.compile()


def events(app: Any, inp: Any, config: dict[str, Any], **kw: Any) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        return [ev async for ev in app.astream_events(inp, config, version="v2", **kw)]

    return asyncio.run(run())


def shape(evs: list[dict[str, Any]]) -> list[tuple[str, str, int, tuple[str, ...]]]:
    return [(e["event"], e["name"], len(e["parent_ids"]), tuple(sorted(e["tags"]))) for e in evs]


def test_a_compiled_graph_is_a_runnable_with_batch_and_abatch() -> None:
    app = counter()
    assert isinstance(app, Runnable)
    assert app.batch([{"n": 1}, {"n": 5}]) == [{"n": 2}, {"n": 6}]
    assert asyncio.run(app.abatch([{"n": 2}, {"n": 3}])) == [{"n": 3}, {"n": 4}]


def test_astream_events_names_the_run_by_the_callers_run_id_and_streams_each_node() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage("hello there")]))
    g = StateGraph(MessagesState)
    g.add_node("chat", lambda s: {"messages": [model.invoke(s["messages"])]})
    g.add_node("after", lambda s: {})
    g.add_edge(START, "chat")
    g.add_edge("chat", "after")
    g.add_edge("after", END)
    app = g.compile(checkpointer=InMemorySaver())
    run_id = uuid.uuid4()
    evs = events(app, {"messages": [("user", "hi")]}, {"configurable": {"thread_id": "1"}, "run_id": run_id})
    assert shape(evs) == [
        ("on_chain_start", "LangGraph", 0, ()),
        ("on_chain_start", "chat", 1, ("graph:step:1",)),
        ("on_chat_model_start", "GenericFakeChatModel", 2, ("seq:step:1",)),
        ("on_chat_model_stream", "GenericFakeChatModel", 2, ("seq:step:1",)),
        ("on_chat_model_stream", "GenericFakeChatModel", 2, ("seq:step:1",)),
        ("on_chat_model_stream", "GenericFakeChatModel", 2, ("seq:step:1",)),
        ("on_chat_model_end", "GenericFakeChatModel", 2, ("seq:step:1",)),
        ("on_chain_stream", "chat", 1, ("graph:step:1",)),
        ("on_chain_end", "chat", 1, ("graph:step:1",)),
        ("on_chain_stream", "LangGraph", 0, ()),
        ("on_chain_start", "after", 1, ("graph:step:2",)),
        ("on_chain_stream", "after", 1, ("graph:step:2",)),
        ("on_chain_end", "after", 1, ("graph:step:2",)),
        ("on_chain_stream", "LangGraph", 0, ()),
        ("on_chain_end", "LangGraph", 0, ()),
    ]
    root = evs[0]
    assert root["run_id"] == str(run_id)
    assert root["metadata"] == {"thread_id": "1", "ls_integration": "langgraph"}
    assert [e["data"]["chunk"] for e in evs if e["event"] == "on_chain_stream" and e["name"] == "LangGraph"][1] == {"after": None}
    assert [e["data"]["chunk"].content for e in evs if e["event"] == "on_chat_model_stream"] == ["hello", " ", "there"]
    assert evs[-1]["data"]["output"]["messages"][-1].content == "hello there"


def test_a_runnable_node_and_routers_are_children_of_the_node_run() -> None:
    def route(s: X) -> str:
        return "b" if s["x"] < 5 else END

    g = StateGraph(X)
    g.add_node("a", RunnableLambda(lambda s: {"x": s["x"] + 1}, name="inc"))
    g.add_node("b", lambda s: {"x": s["x"] * 10})
    g.add_edge(START, "a")
    g.add_conditional_edges("a", route)
    g.add_conditional_edges("a", lambda s: END)
    g.add_edge("b", END)
    evs = events(g.compile(), {"x": 1}, {})
    assert shape(evs)[:11] == [
        ("on_chain_start", "LangGraph", 0, ()),
        ("on_chain_start", "a", 1, ("graph:step:1",)),
        ("on_chain_start", "inc", 2, ("seq:step:1",)),
        ("on_chain_stream", "inc", 2, ("seq:step:1",)),
        ("on_chain_end", "inc", 2, ("seq:step:1",)),
        # a node is a sequence: its function, its update, then its branches
        ("on_chain_start", "route", 2, ("seq:step:3",)),
        ("on_chain_end", "route", 2, ("seq:step:3",)),
        ("on_chain_start", "Unnamed", 2, ("seq:step:4",)),  # a lambda router has no name
        ("on_chain_end", "Unnamed", 2, ("seq:step:4",)),
        ("on_chain_stream", "a", 1, ("graph:step:1",)),
        ("on_chain_end", "a", 1, ("graph:step:1",)),
    ]
    assert [e["data"]["output"] for e in evs if e["event"] == "on_chain_end" and e["name"] == "route"] == ["b"]
    assert evs[-1]["data"]["output"] == {"x": 20}


def test_a_subgraph_runs_under_its_node_and_an_interrupt_ends_neither_run() -> None:
    def ask(s: X) -> dict[str, Any]:
        return {"x": interrupt("ok?")}

    inner = StateGraph(X)
    inner.add_node("ask", ask)
    inner.add_edge(START, "ask")
    outer = StateGraph(X)
    outer.add_node("sub", inner.compile())
    outer.add_node("end", lambda s: {"x": s["x"] + 1})
    outer.add_edge(START, "sub")
    outer.add_edge("sub", "end")
    app = outer.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "s"}}
    assert shape(events(app, {"x": 0}, cfg)) == [
        ("on_chain_start", "LangGraph", 0, ()),
        ("on_chain_start", "sub", 1, ("graph:step:1",)),
        ("on_chain_start", "LangGraph", 2, ("seq:step:1",)),
        ("on_chain_start", "ask", 3, ("graph:step:1",)),
        ("on_chain_stream", "LangGraph", 0, ()),  # the interrupt
        ("on_chain_end", "LangGraph", 0, ()),
    ]
    resumed = events(app, Command(resume=41), cfg)
    assert shape(resumed)[:9] == [
        ("on_chain_start", "LangGraph", 0, ()),
        ("on_chain_start", "sub", 1, ("graph:step:1",)),
        ("on_chain_start", "LangGraph", 2, ("seq:step:1",)),
        ("on_chain_start", "ask", 3, ("graph:step:1",)),
        ("on_chain_stream", "ask", 3, ("graph:step:1",)),
        ("on_chain_end", "ask", 3, ("graph:step:1",)),
        ("on_chain_end", "LangGraph", 2, ("seq:step:1",)),
        ("on_chain_stream", "sub", 1, ("graph:step:1",)),
        ("on_chain_end", "sub", 1, ("graph:step:1",)),
    ]
    assert resumed[-1]["data"]["output"] == {"x": 42}


def test_a_graph_composes_in_lcel_and_with_config_names_its_run() -> None:
    """As LangGraph (tests/sidebyside/lcel_graph.py): ``step | graph | step`` runs the graph as
    one step of a RunnableSequence, and ``with_config(run_name=, tags=)`` names its run."""
    chain = RunnableLambda(lambda x: {"n": x}) | counter() | RunnableLambda(lambda out: out["n"])
    assert chain.invoke(3) == 4 and chain.batch([1, 5]) == [2, 6]
    named = counter().with_config(run_name="counter", tags=["mine"])
    evs = events(named, {"n": 2}, {}, include_tags=["mine"])
    assert (evs[0]["event"], evs[0]["name"], evs[0]["tags"]) == ("on_chain_start", "counter", ["mine"])
    assert evs[-1]["event"] == "on_chain_end" and evs[-1]["data"]["output"] == {"n": 3}
