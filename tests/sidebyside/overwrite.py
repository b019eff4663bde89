"""Issue 18 item 5: Overwrite replaces a reducer key's value instead of folding into it."""

import operator
from typing import Annotated, Optional, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Overwrite

from observe import call, history, record


class S(TypedDict, total=False):
    log: Annotated[list, operator.add]
    x: int
    o: Annotated[Optional[list], operator.add]
    messages: Annotated[list, add_messages]


def a(s):
    return {"log": ["a"]}


def b(s):
    return {"log": Overwrite(["b"])}


def c(s):
    return {"log": ["c"]}


def d(s):
    return {"log": Overwrite(["d"])}


def e(s):
    return {"x": Overwrite(5)}


def f(s):
    return {"o": Overwrite([1])}


def g(s):
    return {"log": {"__overwrite__": ["g"]}}


def h(s):
    return {"log": {"type": "__overwrite__", "value": ["h"]}}


def m(s):
    return {"messages": Overwrite([{"role": "user", "content": "only", "id": "1"}])}


def build(edges, checkpointer=None):
    builder = StateGraph(S)
    for name, fn in dict(a=a, b=b, c=c, d=d, e=e, f=f, g=g, h=h, m=m).items():
        builder.add_node(name, fn)
    for src, dst in edges:
        builder.add_edge(src, dst)
    return builder.compile(checkpointer=checkpointer)


cfg = {"configurable": {"thread_id": "t"}}
call("sequence a b c", build([(START, "a"), ("a", "b"), ("b", "c")]).invoke, {"log": ["S"]})
call("one step a b c", build([(START, "a"), (START, "b"), (START, "c")]).invoke, {"log": ["S"]})
call("two overwrites", build([(START, "b"), (START, "d")]).invoke, {"log": ["S"]})
call("plain key", build([(START, "e")]).invoke, {"log": ["S"]})
call("no empty value", build([(START, "f")]).invoke, {"x": 1})
call("plain key saved", build([(START, "e")], InMemorySaver()).invoke, {"log": ["S"]}, cfg)
call("dict form", build([(START, "g")]).invoke, {"log": ["S"]})
call("dict form 2", build([(START, "h")]).invoke, {"log": ["S"]})
call("as input", build([(START, "a")]).invoke, {"log": Overwrite(["I"])})
call("messages", build([(START, "m")]).invoke, {"messages": [{"role": "user", "content": "hi", "id": "0"}]})
graph = build([(START, "a"), ("a", "b"), ("b", "c")], InMemorySaver())
call("saved run", graph.invoke, {"log": ["S"]}, cfg)
call("update_state", graph.update_state, cfg, {"log": Overwrite(["U"])})
record("after update", graph.get_state(cfg).values)
call("continue", graph.invoke, {"log": ["T"]}, cfg)
history(graph, cfg)
record("two overwrites in update", call("two in update", graph.update_state, cfg, {"log": Overwrite(["V"])}, "b"))
