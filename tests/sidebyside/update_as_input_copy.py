"""update_state as '__input__', '__start__' and '__copy__', several updates in one superstep, and errors."""
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send, StateUpdate

from observe import call, history, record


class S(TypedDict, total=False):
    name: str
    log: Annotated[list, operator.add]


b = StateGraph(S)
b.add_node("a", lambda s: {"log": ["a"]})
b.add_node("b", lambda s: {"log": ["b"]})
b.add_edge(START, "a")
b.add_edge("a", "b")
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
g.bulk_update_state(cfg, [
    [StateUpdate({"log": []}, "__input__")],
    [StateUpdate({"log": []}, "__start__")],
    [StateUpdate({"log": ["a"]}, "a")],
    [StateUpdate({"log": ["b"]}, "b")],
])
history(g, cfg)


def message(fn, *args, **kwargs):
    """The error's message (InvalidUpdateError's bases differ: README "Errors of the engine's own tree")."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001
        return str(e)


record("two inputs", message(g.bulk_update_state, cfg, [[StateUpdate({"log": []}, "__input__"), StateUpdate({"log": []}, "__input__")]]))
call("two nodes", g.bulk_update_state, cfg, [[StateUpdate({"log": ["x"]}, "a"), StateUpdate({"log": ["y"]}, "b")]])
record("after two nodes", g.get_state(cfg))

c2 = {"configurable": {"thread_id": "2"}}
g.invoke({"log": []}, c2)
due_b = [s for s in g.get_state_history(c2) if s.next == ("b",)][0]
g.update_state(due_b.config, [({"log": ["b1"]}, "b")], as_node="__copy__")
history(g, c2)
record("copy nothing", message(g.update_state, {"configurable": {"thread_id": "none"}}, None, as_node="__copy__"))


class F(TypedDict, total=False):
    names: Annotated[list, operator.add]


def fan(s):
    return [Send("two", {"names": ["x"]}), Send("two", {"names": ["y"]})]


f = StateGraph(F)
f.add_node("one", lambda s: {"names": ["one"]})
f.add_node("two", lambda s: {"names": ["two"]})
f.add_edge(START, "one")
f.add_conditional_edges("one", fan)
fg = f.compile(checkpointer=InMemorySaver(), interrupt_before=["two"])
c3 = {"configurable": {"thread_id": "3"}}
fg.invoke({"names": ["start"]}, c3)
fg.bulk_update_state(c3, [[StateUpdate({"names": ["t1"]}, "two"), StateUpdate({"names": ["t2"]}, "two")]])
call("sends updated", fg.invoke, None, c3)
history(fg, c3)
