"""A graph that reports what its node, its tool and its chat model see of the run's config.

Served by the tests of ``configurable`` over the wire and of the caller's
thread id in the graph (tests/server/test_configurable.py, and the
TypeScript and Go clients' tests), as ``seen=tests.configurable_graph:graph``:

* ``look`` (a node taking ``config``) records the thread id and the keys a
  caller may pass (:data:`KEYS`) from ``config["configurable"]``;
* ``model`` calls a LangChain chat model whose replies are a configurable
  field (``ConfigurableField(id="replies")``): it answers with
  ``configurable["replies"]`` when the run carries it, through the config the
  node runs under (not passed by hand, as LangGraph propagates it), and asks
  for the ``whoami`` tool;
* ``tools`` (a ``ToolNode``) runs ``whoami``, which takes a ``RunnableConfig``
  and answers with what it saw, as JSON;
* ``route`` (a conditional edge after ``look``, taking ``config``) reads
  ``configurable["skip_model"]``: true ends the run after ``look`` (also when an
  UpdateState applies an update as ``look``).

Needs langchain-core (the ``langchain`` extra).
"""

from __future__ import annotations

import json
import operator
from typing import Annotated, Any

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import ConfigurableField, RunnableConfig
from langchain_core.tools import tool

from engine.graph import END, START, MessagesState, StateGraph
from engine.prebuilt import ToolNode

__all__ = ["KEYS", "graph"]

#: The configurable keys the graph reports (besides thread_id).
KEYS = ("user_id", "model", "flags")


def _seen(config: RunnableConfig) -> dict[str, Any]:
    conf = config.get("configurable") or {}
    return {"thread_id": conf.get("thread_id"), **{k: conf[k] for k in KEYS if k in conf}}


@tool
def whoami(config: RunnableConfig) -> str:
    """Say which thread and user this call runs for."""
    return json.dumps(_seen(config), sort_keys=True)


class State(MessagesState):
    seen: Annotated[list, operator.add]


chat = FakeListChatModel(responses=["no replies configured"]).configurable_fields(
    responses=ConfigurableField(id="replies", name="replies", description="what the model answers")
)


def look(state: State, config: RunnableConfig) -> dict[str, Any]:
    return {"seen": [{"where": "node", **_seen(config)}]}


def route(state: State, config: RunnableConfig) -> str:
    return END if (config.get("configurable") or {}).get("skip_model") else "model"


def model(state: State) -> dict[str, Any]:
    said = chat.invoke(state["messages"])  # the run's config reaches the model as LangGraph's does
    call = {"name": "whoami", "args": {}, "id": f"call-{len(state['messages'])}", "type": "tool_call"}
    return {"messages": [AIMessage(content=said.content, tool_calls=[call])]}


def _build() -> StateGraph:
    g = StateGraph(State)
    g.add_node("look", look)
    g.add_node("model", model)
    g.add_node("tools", ToolNode([whoami]))
    g.add_edge(START, "look")
    g.add_conditional_edges("look", route, ["model", END])
    g.add_edge("model", "tools")
    g.add_edge("tools", END)
    return g


graph = _build()
