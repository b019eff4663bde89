"""Issue 29: what invoke returns for a graph with one output channel, when the run stops early.

As LangGraph: the value of the last "values" chunk the run streamed, so
None when the run wrote nothing to the output channel (stopped at a
breakpoint, say), even though the channel holds an older run's value.
"""

from langgraph.channels import LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import NodeBuilder, Pregel

from observe import record

one = NodeBuilder().subscribe_only("input").do(lambda x: x + 1).write_to("inbox")
two = NodeBuilder().subscribe_only("inbox").do(lambda x: x + 1).write_to("output")
app = Pregel(
    nodes={"one": one, "two": two},
    channels={"inbox": LastValue(int), "output": LastValue(int), "input": LastValue(int)},
    input_channels="input",
    output_channels="output",
    checkpointer=InMemorySaver(),
    interrupt_after_nodes=["one"],
)
t1 = {"configurable": {"thread_id": "1"}}
record("start", app.invoke(2, t1))
record("resume", app.invoke(None, t1))
record("again", app.invoke(20, t1))
record("again streamed", list(app.stream(21, {"configurable": {"thread_id": "2"}}, stream_mode="values")))
record("new input", app.invoke(3, t1))
record("resume again", app.invoke(None, t1))
record("resume streamed", list(app.stream(None, {"configurable": {"thread_id": "2"}}, stream_mode="values")))
record("finished thread", app.invoke(None, t1))
record("no checkpointer", Pregel(
    nodes={"one": one, "two": two},
    channels={"inbox": LastValue(int), "output": LastValue(int), "input": LastValue(int)},
    input_channels="input", output_channels="output",
).invoke(5))
