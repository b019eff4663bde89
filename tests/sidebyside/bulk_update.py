"""update_state as the node due next (its result in history), and bulk_update_state with one update per superstep; StateUpdate; errors."""
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import StateUpdate

from observe import call, history, record


class S(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]


b = StateGraph(S).add_node("a", lambda s: {"log": ["a"]}).add_node("b", lambda s: {"log": ["b"]}).add_edge(START, "a").add_edge("a", "b")
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
g.invoke({"x": 1, "log": []}, cfg)
out = g.bulk_update_state(cfg, [[StateUpdate({"log": ["u1"]}, "a")], [StateUpdate({"x": 9}, as_node="b")], [StateUpdate({"log": ["u3"]})]])
record("config has id", "checkpoint_id" in out["configurable"])
record("state", g.get_state(cfg))
history(g, cfg)
first = list(g.get_state_history(cfg))[-2]
record("branch", g.get_state(g.bulk_update_state(first.config, [[StateUpdate({"log": ["branch"]}, "a")]])))
record("continue", g.invoke(None, cfg))
call("none", g.bulk_update_state, cfg, [])
call("empty", g.bulk_update_state, cfg, [[]])

# a superstep's updates apply in the order given, whichever node each is written as and whether it is due
c3 = {"configurable": {"thread_id": "3"}}
g.bulk_update_state(c3, [[StateUpdate({"x": 1}, "a")]])
g.bulk_update_state(c3, [[StateUpdate({"log": ["to b"]}, "b"), StateUpdate({"log": ["to a"]}, "a")]])
record("in the order given", g.get_state(c3))

# update_state as the node the version has due: the update is that task's result there
c2 = {"configurable": {"thread_id": "2"}}
g.invoke({"x": 1, "log": []}, c2)
g.update_state(c2, {"log": ["u1"]}, as_node="a")
g.update_state(c2, {"x": 9}, as_node="b")
g.update_state(c2, {"log": ["u3"]})
history(g, c2)
