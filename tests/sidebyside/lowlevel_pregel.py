"""LangGraph's low-level API (NodeBuilder nodes on channels, Pregel(...)), root states, and a node returning several Commands."""
import operator
from typing import Annotated, TypedDict

from langgraph.channels import BinaryOperatorAggregate, EphemeralValue, LastValue, Topic
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.pregel import NodeBuilder, Pregel
from langgraph.types import Command

from observe import call, history, record


def add_one(x: int) -> int:
    return x + 1


one = NodeBuilder().subscribe_only("input").do(add_one).write_to("output", "between", fixed=5)
two = NodeBuilder().subscribe_only("between").do(add_one).write_to("output")
app = Pregel(
    nodes={"one": one, "two": two},
    channels={"input": LastValue(int), "between": LastValue(int), "output": LastValue(int), "fixed": LastValue(int)},
    input_channels="input",
    output_channels="output",
    stream_channels=["output", "between"],
)
record("invoke", app.invoke(2))
record("output_keys", app.invoke(2, output_keys=["output", "fixed"]))
record("updates", list(app.stream(2, stream_mode="updates")))
record("values", list(app.stream(2)))
record("input schema", app.input_schema.model_json_schema())
call("unsubscribed input", Pregel, nodes={"two": two}, channels={"between": LastValue(int), "output": LastValue(int)},
     input_channels="output", output_channels="output")

total = NodeBuilder().subscribe_to("input").read_from("total").do(lambda d: d["input"] + d["total"]).write_to("output", "total")
acc = Pregel(nodes={"t": total}, channels={"total": BinaryOperatorAggregate(int, operator.add), "input": LastValue(int),
             "output": LastValue(int)}, input_channels="input", output_channels="output", checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
record("total 1", acc.invoke(2, cfg))
record("total 2", acc.invoke(3, cfg))
history(acc, cfg)

fan = NodeBuilder().subscribe_only("input").do(lambda x: [x, x * 10]).write_to("inbox")
summed = NodeBuilder().subscribe_only("inbox").do(sum).write_to("output")
record("topic", Pregel(nodes={"fan": fan, "sum": summed}, channels={"input": LastValue(int), "inbox": Topic(int),
       "output": LastValue(int)}, input_channels="input", output_channels="output").invoke(3))

# a root state: the value itself in and out
root = StateGraph(Annotated[list, operator.add])
root.add_node("a", lambda log: ["a"])
root.add_node("b", lambda log: [Command(update=["b"]), ["c"]])
root.add_edge(START, "a")
root.add_edge("a", "b")
rg = root.compile(checkpointer=InMemorySaver())
record("root invoke", rg.invoke(["in"], {"configurable": {"thread_id": "r"}}))
record("root updates", list(rg.stream(["in"], {"configurable": {"thread_id": "r2"}}, stream_mode="updates")))
history(rg, {"configurable": {"thread_id": "r"}})


class Foo(TypedDict):
    foo: Annotated[str, operator.add]
    seen: Annotated[int, EphemeralValue]


g = StateGraph(Foo)
g.add_node("a", lambda s: [Command(update={"foo": "a1"}), Command(update=[("foo", "a2"), ("foo", "a3")], goto="b")])
g.add_node("b", lambda s: {"foo": "b", "seen": 1})
g.add_edge(START, "a")
cg = g.compile()
record("commands invoke", cg.invoke({"foo": ""}))
record("commands updates", list(cg.stream({"foo": ""}, stream_mode="updates")))
record("commands tasks", [c for c in cg.stream({"foo": ""}, stream_mode="tasks") if "result" in c])
