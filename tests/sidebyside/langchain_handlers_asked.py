"""A call without callbacks still gets the handlers LangChain adds of its own accord: collect_runs()'s
collector and get_usage_metadata_callback()'s (configure hooks), LangSmith's tracer when tracing is on,
the console printer in debug mode. The graph's run and its nodes' runs are what they record."""

from typing import Annotated, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.callbacks import get_usage_metadata_callback
from langchain_core.tracers.context import collect_runs
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from observe import record


class S(TypedDict):
    messages: Annotated[list, add_messages]


def model(state):
    reply = AIMessage("hi there", id="r1", response_metadata={"model_name": "fake"}, usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5})
    return {"messages": [GenericFakeChatModel(messages=iter([reply])).invoke(state["messages"])]}


app = StateGraph(S).add_node("model", model).add_node("after", lambda s: {}).add_edge(START, "model").add_edge("model", "after").add_edge("after", END).compile()


def tree(run):
    return [run.name, [tree(c) for c in sorted(run.child_runs, key=lambda r: r.dotted_order or "")]]


with collect_runs() as collected:
    app.invoke({"messages": [("user", "hello")]})
record("collected runs", [tree(r) for r in collected.traced_runs])
with get_usage_metadata_callback() as usage:
    app.invoke({"messages": [("user", "hello")]})
record("usage", usage.usage_metadata)
