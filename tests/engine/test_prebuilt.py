"""engine.prebuilt (issue 15.5): ToolNode, tools_condition and create_react_agent.

Each expectation was observed on LangGraph 1.2.22 (tests/sidebyside/tool_node.py and
react_agent.py run the same programs there and here).
"""

from __future__ import annotations

from typing import Annotated

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool

from engine import START, Command, StateGraph, interrupt
from engine.graph import MessagesState
from engine.prebuilt import InjectedState, ToolNode, create_react_agent, tools_condition
from engine.testing import history_summary, thread


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def boom(x: str) -> str:
    """Always fails."""
    raise ValueError(f"no {x}")


@tool
def who(question: str, state: Annotated[dict, InjectedState]) -> str:
    """Reads the state."""
    return f"{question}: {len(state['messages'])} messages"


@tool
def topic(value: Annotated[str, InjectedState("topic")], tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Reads one key, knows its call."""
    return f"{value} ({tool_call_id})"


@tool
def ask(question: str) -> str:
    """Asks the user."""
    return f"user said {interrupt(question)}"


class State(MessagesState):
    topic: str


def ai(*calls: tuple[str, dict]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(calls)])


def run(node, state, checkpointer, tid="t1"):
    g = StateGraph(State)
    g.add_node("tools", node)
    g.add_edge(START, "tools")
    return g.compile(checkpointer=checkpointer).invoke(state, thread(tid))


def tool_messages(out):
    return [(m.name, m.content, m.status) for m in out["messages"] if isinstance(m, ToolMessage)]


def test_tool_node_runs_every_call_and_injects(checkpointer):
    state = {"messages": [HumanMessage("hi"), ai(("add", {"a": 1, "b": 2}), ("who", {"question": "n"}), ("topic", {}))],
             "topic": "cats"}
    out = run(ToolNode([add, who, topic]), state, checkpointer)
    assert tool_messages(out) == [("add", "3", "success"), ("who", "n: 2 messages", "success"), ("topic", "cats (c2)", "success")]
    assert ToolNode([add, who]).tools_by_name["who"].tool_call_schema.model_json_schema()["properties"].keys() == {"question"}


def test_tool_errors_become_tool_messages_as_configured(checkpointer):
    unknown = run(ToolNode([add]), {"messages": [ai(("nope", {}))]}, checkpointer, "a")
    assert tool_messages(unknown) == [("nope", "Error: nope is not a valid tool, try one of [add].", "error")]
    bad = run(ToolNode([add]), {"messages": [ai(("add", {"a": "x"}))]}, checkpointer, "b")
    assert tool_messages(bad)[0][1] == (
        "Error invoking tool 'add' with kwargs {'a': 'x'} with error:\n a: Input should be a valid integer, "
        "unable to parse string as an integer\nb: Field required\n Please fix the error and try again."
    )
    with pytest.raises(ValueError, match="no y"):
        run(ToolNode([boom]), {"messages": [ai(("boom", {"x": "y"}))]}, checkpointer, "c")
    handled = run(ToolNode([boom], handle_tool_errors=True), {"messages": [ai(("boom", {"x": "y"}))]}, checkpointer, "d")
    assert tool_messages(handled) == [("boom", "Error: ValueError('no y')\n Please fix your mistakes.", "error")]
    text = run(ToolNode([boom], handle_tool_errors="sorry"), {"messages": [ai(("boom", {"x": "y"}))]}, checkpointer, "e")
    assert tool_messages(text)[0][1] == "sorry"
    with pytest.raises(ValueError):
        run(ToolNode([boom], handle_tool_errors=(KeyError,)), {"messages": [ai(("boom", {"x": "y"}))]}, checkpointer, "f")


def test_a_tool_returning_a_command_updates_the_state(checkpointer):
    @tool
    def retitle(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Changes the topic."""
        return Command(update={"messages": [ToolMessage("done", tool_call_id=tool_call_id)], "topic": "dogs"})

    out = run(ToolNode([retitle]), {"messages": [ai(("retitle", {}))], "topic": "cats"}, checkpointer)
    assert out["topic"] == "dogs" and tool_messages(out) == [("retitle", "done", "success")]


def test_tools_condition():
    assert tools_condition({"messages": [ai(("add", {}))]}) == "tools"
    assert tools_condition([AIMessage("done")]) == "__end__"
    with pytest.raises(ValueError):
        tools_condition({"messages": []})


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def model(*replies: AIMessage) -> Fake:
    return Fake(messages=iter(replies))


def test_react_agent_turn_history_and_breakpoint(checkpointer):
    m = model(ai(("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4})), AIMessage("3 and 7"))
    agent = create_react_agent(m, [add], prompt="be brief", checkpointer=checkpointer, interrupt_before=["tools"])
    edges = {(e.source, e.target, e.conditional) for e in agent.get_graph().edges}
    assert edges == {("__start__", "agent", False), ("agent", "tools", True), ("agent", "__end__", True), ("tools", "agent", False)}
    agent.invoke({"messages": [("user", "hi")]}, thread())
    assert agent.get_state(thread()).next == ("tools", "tools")  # one task per tool call (v2)
    out = agent.invoke(None, thread())
    assert [type(x).__name__ for x in out["messages"]] == ["HumanMessage", "AIMessage", "ToolMessage", "ToolMessage", "AIMessage"]
    assert [x.content for x in out["messages"][2:]] == ["3", "7", "3 and 7"]
    assert [s for s, _, _ in history_summary(agent, thread())] == ["loop", "loop", "loop", "loop", "input"]


def test_react_agent_step_limit_and_interrupt_in_a_tool(checkpointer):
    m = model(ai(("add", {"a": 1, "b": 1})), AIMessage("never"))
    out = create_react_agent(m, [add]).invoke({"messages": [("user", "go")]}, {"recursion_limit": 2})
    assert out["messages"][-1].content == "Sorry, need more steps to process this request."

    m = model(ai(("ask", {"question": "really?"})), AIMessage("ok then"))
    agent = create_react_agent(m, [ask], checkpointer=checkpointer)
    first = agent.invoke({"messages": [("user", "go")]}, thread("ask"))
    assert [i.value for i in first["__interrupt__"]] == ["really?"]
    done = agent.invoke(Command(resume="yes"), thread("ask"))
    assert [x.content for x in done["messages"][-2:]] == ["user said yes", "ok then"]


def _handoff(agent: str):
    @tool(f"transfer_to_{agent}")
    def handoff(state: Annotated[MessagesState, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]):
        """Hand the conversation to another agent."""
        done = ToolMessage(f"to {agent}", name=f"transfer_to_{agent}", tool_call_id=tool_call_id, id=f"t-{agent}")
        return Command(goto=agent, graph=Command.PARENT, update={"messages": [*state["messages"], done]})

    return handoff


def test_a_handoff_tool_inside_an_agent_moves_the_parent_to_another_agent(checkpointer):
    """The multi-agent how-to (tests/sidebyside/handoff_tools.py): a tool's ``Command(graph=PARENT)``
    ends its agent's turn and runs the agent it names; replies carry their agent's name."""
    # distinct call ids: a tool's Command names every answer to its call id after the tool (as LangGraph's)
    handoff_call = AIMessage("", tool_calls=[{"name": "transfer_to_bob", "args": {}, "id": "c1"}])
    alice_model = Fake(messages=iter([ai(("add", {"a": 1, "b": 2})), handoff_call]))
    bob_model = Fake(messages=iter([AIMessage("bob says 3")]))
    alice = create_react_agent(alice_model, [add, _handoff("bob")], name="alice")
    bob = create_react_agent(bob_model, [_handoff("alice")], name="bob")
    g = StateGraph(MessagesState).add_node(alice, destinations=("bob",)).add_node(bob, destinations=("alice",))
    app = g.add_edge(START, "alice").compile(checkpointer=checkpointer)
    out = app.invoke({"messages": [("user", "1+2?")]}, thread("swarm"))
    assert [(type(m).__name__, m.content, m.name) for m in out["messages"]] == [
        ("HumanMessage", "1+2?", None),
        ("AIMessage", "", "alice"),
        ("ToolMessage", "3", "add"),
        ("AIMessage", "", "alice"),
        ("ToolMessage", "to bob", "transfer_to_bob"),
        ("AIMessage", "bob says 3", "bob"),
    ]
    assert [s.next for s in app.get_state_history(thread("swarm"))] == [(), ("bob",), ("alice",), ("__start__",)]


@tool
def _progress_search(q: str) -> str:
    """Search, writing progress."""
    from engine.config import get_stream_writer

    for pct in (50, 100):
        get_stream_writer()({"q": q, "progress": pct})
    return f"results for {q}"


@tool
async def _async_fetch(url: str) -> str:
    """Fetch, async only."""
    return f"page {url}"


def _two_calls_graph():
    def agent(state: MessagesState):
        return {"messages": [AIMessage("", tool_calls=[
            {"name": "_progress_search", "args": {"q": "cats"}, "id": "s1"},
            {"name": "_async_fetch", "args": {"url": "a.com"}, "id": "f1"},
        ])]}  # fmt: skip

    g = StateGraph(MessagesState)
    g.add_node("agent", agent)
    g.add_node("tools", ToolNode([_progress_search, _async_fetch]))
    g.add_edge(START, "agent")
    g.add_edge("agent", "tools")
    return g.compile()


def test_tools_write_custom_events_and_an_async_only_tool_runs_under_a_sync_call() -> None:
    """As LangGraph (tests/sidebyside/tool_streaming.py): a tool's get_stream_writer() events
    come in "custom" mode; and, a kept difference (tool_async_sync.py, README), an async-only
    tool runs under a sync invoke, where LangGraph raises NotImplementedError."""
    app = _two_calls_graph()
    chunks = list(app.stream({"messages": [HumanMessage("go")]}, stream_mode=["custom", "updates"]))
    assert sorted(c["progress"] for m, c in chunks if m == "custom") == [50, 100]
    assert [sorted(c) for m, c in chunks if m == "updates"] == [["agent"], ["tools"]]
    out = app.invoke({"messages": [HumanMessage("go")]})
    assert [m.content for m in out["messages"][-2:]] == ["results for cats", "page a.com"]
