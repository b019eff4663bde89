"""Issue 18 item 6: input/output schemas, private state keys declared by a node's own
annotation, node input schemas (add_node(input_schema=)), routers reading their own schema."""

import dataclasses
import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from observe import call, history, record


class In(TypedDict):
    question: str


class Out(TypedDict):
    answer: str


class Full(In, Out):
    scratch: int


class Private(TypedDict):
    secret: str
    question: str
    notes: Annotated[list, operator.add]


class Router(TypedDict):
    secret: str


seen: list = []


def a(state: In):
    seen.append(("a", dict(state)))
    return {"secret": "s-" + state["question"], "scratch": 1, "notes": ["a"], "not_a_key": 1}


def b(state: Private):
    seen.append(("b", dict(state)))
    return {"answer": state["secret"].upper(), "notes": ["b"]}


def c(state):
    seen.append(("c", dict(state)))
    return {"secret": "again", "extra": 3}


def route_c(state: Router):
    seen.append(("route_c", dict(state)))
    return END if state["secret"] == "again" else "c"


def route_b(state):
    seen.append(("route_b", dict(state)))
    return "c"


g = StateGraph(Full, input_schema=In, output_schema=Out)
g.add_node("a", a)
g.add_node("b", b)
g.add_node("c", c)
g.add_edge(START, "a")
g.add_edge("a", "b")
g.add_conditional_edges("b", route_b, ["c"])
g.add_conditional_edges("c", route_c, ["c", END])
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
call("invoke", app.invoke, {"question": "hi", "scratch": 99, "bogus": 1}, cfg)
record("seen", seen)
record("state", app.get_state(cfg))
history(app, cfg)
seen.clear()
call("stream values", lambda: list(app.stream({"question": "yo"}, cfg, stream_mode="values")))
call("stream updates", lambda: list(app.stream({"question": "yo"}, cfg, stream_mode="updates")))
call("stream checkpoints", lambda: [c["values"] for c in app.stream({"question": "z"}, cfg, stream_mode="checkpoints")])
record("seen 2", seen)
call("invoke values mode", app.invoke, {"question": "v"}, cfg, stream_mode="values")
app.update_state(cfg, {"secret": "upd", "bogus": 2})
record("after update", app.get_state(cfg).values)


# add_node(input_schema=) names the schema outright; a dataclass state and a TypedDict node schema
@dataclasses.dataclass
class DState:
    x: int = 0


class Side(TypedDict):
    x: int
    side: int


def first(state):
    seen.append(("first", type(state).__name__, dict(state) if isinstance(state, dict) else state.x))
    return {"side": state["x"] * 10}


def second(state: DState):
    seen.append(("second", type(state).__name__, state.x))
    return {"x": state.x + 1}


seen.clear()
g = StateGraph(DState)
g.add_node("first", first, input_schema=Side)
g.add_node("second", second)
g.add_edge(START, "first")
g.add_edge("first", "second")
app = g.compile(checkpointer=InMemorySaver())
call("explicit input schema", app.invoke, {"x": 2}, cfg)
record("seen 3", seen)
record("state 3", app.get_state(cfg).values)
