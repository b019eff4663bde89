"""Issue 29: small public and ecosystem faces LangGraph 1.2.22 pins: ``MessageGraph`` (deprecated, still
there), a node's config carrying ``__pregel_durability``, a bare resume refused when one subgraph task
waits on two parallel questions, a subgraph reached through an attribute path, and ``ensure_config``'s
metadata merge (``lc_versions`` one level) as LangChain 1.x's agents call it."""

import operator
import warnings
from typing import Annotated, Any, TypedDict

from langgraph._internal._config import ensure_config, merge_configs
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import START, StateGraph
from langgraph.graph.message import MessageGraph
from langgraph.types import Command, interrupt

from observe import record

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    mg = MessageGraph()
record("message graph warns", [str(w.message)[:60] for w in caught])
mg.add_node("bot", lambda messages: [("assistant", f"{len(messages)} so far")])
mg.set_entry_point("bot")
mg.set_finish_point("bot")
record("message graph", [(m.type, m.content) for m in mg.compile().invoke([("user", "hi")])])


class Log(TypedDict):
    log: Annotated[list, operator.add]


seen: list[Any] = []


def durable(state: Log) -> dict[str, Any]:
    seen.append(get_config()["configurable"].get("__pregel_durability"))
    return {"log": ["d"]}


d = StateGraph(Log)
d.add_node("durable", durable)
d.add_edge(START, "durable")
dg = d.compile()
dg.invoke({"log": []})
dg.invoke({"log": []}, durability="exit")
record("durability seen by nodes", seen)

child = StateGraph(Log)
child.add_node("a", lambda s: {"log": ["a:" + interrupt("A")]})
child.add_node("b", lambda s: {"log": ["b:" + interrupt("B")]})
child.add_edge(START, "a")
child.add_edge(START, "b")


class Holder:
    def __init__(self, payload: Any) -> None:
        self.payload = payload


box = Holder(child.compile())


def calls_child(state: Log) -> Any:
    return box.payload.invoke(state)


p = StateGraph(Log)
p.add_node("child", calls_child)
p.add_edge(START, "child")
app = p.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}
ints = app.invoke({"log": []}, cfg)["__interrupt__"]
record("questions", sorted(i.value for i in ints))
record("child state found", [(t.name, t.state is not None) for t in app.get_state(cfg, subgraphs=True).tasks])
try:
    app.invoke(Command(resume="ambiguous"), cfg)
except RuntimeError as e:
    record("bare resume", str(e)[:80])
by_value = {i.value: i.id for i in ints}
record("answered", sorted(app.invoke(Command(resume={by_value["A"]: "x", by_value["B"]: "y"}), cfg)["log"]))

a = {"metadata": {"lc_versions": {"langgraph": "1"}, "lc_agent_name": "agent"}, "tags": ["x"]}
b = {"metadata": {"lc_versions": {"langchain-core": "2"}}, "tags": ["x", "y"], "thread_id": "t9"}
record("merge_configs", merge_configs(a, b))
ensured = ensure_config(a, b)
record("ensure_config", {k: ensured[k] for k in ("tags", "metadata", "configurable", "recursion_limit")})
