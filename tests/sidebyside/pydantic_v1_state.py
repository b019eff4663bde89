"""A ``pydantic.v1`` model as a StateGraph's state, as LangGraph reads it: its annotated keys are the channels
(a reducer key folds), nodes get a dict (not the model), values are not validated, a node may return an
instance; a ToolNode reached by an edge or by a Send of bare calls sees the same state types."""

import operator
import warnings
from typing import Annotated, Any

from langchain_core.messages import AIMessage, ToolCall
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import InjectedState, ToolNode, ToolRuntime
from langgraph.types import Send

from observe import call, history, record

warnings.filterwarnings("ignore")
from pydantic.v1 import BaseModel as BaseModelV1  # noqa: E402


class State(BaseModelV1):
    foo: str
    items: Annotated[list, operator.add] = []


seen = []


def first(state):
    seen.append((type(state).__name__, state["foo"]))
    return {"foo": f"{state['foo']}!", "items": [1]}


def second(state):
    seen.append(sorted(state))
    return State(foo="from a model", items=[2])


g = StateGraph(State).add_node("first", first).add_node("second", second).add_edge(START, "first")
g = g.add_edge("first", "second").compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
record("result", g.invoke({"foo": "a", "items": []}, cfg))
record("channels", sorted(k for k in g.channels if not k.startswith("branch:")))
history(g, cfg)
record("not validated", g.invoke({"foo": 1}, {"configurable": {"thread_id": "2"}}))
call("missing key", g.invoke, {"items": [5]}, {"configurable": {"thread_id": "3"}})
record("seen", seen)


class ToolState(BaseModelV1):
    messages: list
    foo: str


tc = ToolCall(name="record_types", args={}, id="call_1", type="tool_call")
types = []


def record_types(runtime: ToolRuntime, state: Annotated[Any, InjectedState]) -> str:
    """Records the state types the tool gets."""
    types.append((type(runtime.state).__name__, type(state).__name__))
    return "ok"


def agent(state):
    return {"messages": [AIMessage("", tool_calls=[tc])]}


for how, route in [("send", lambda _: [Send("tools", [tc])]), ("edge", lambda _: "tools")]:
    graph = (
        StateGraph(ToolState)
        .add_node("agent", agent)
        .add_node("tools", ToolNode([record_types]))
        .add_edge(START, "agent")
        .add_conditional_edges("agent", route, ["tools"])
        .compile()
    )
    record(f"tools by {how}", graph.invoke({"messages": [], "foo": "bar"}))
record("tool state types", types)
