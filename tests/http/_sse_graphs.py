"""A LangGraph-built graph for the SSE tests (tests/http/test_sse.py): every stream mode has something to say.

``talk`` streams a fake chat model's reply ("hello there you"); ``team`` is a
subgraph whose ``inner`` writes a custom event and streams a reply of its own
("from the team"); ``ask`` stops at an interrupt ("ok?"), then logs the answer.
``broken`` fails in its one node with ``ValueError("no way")``. ``nested``: ``talk``, then
``checks``, a subgraph whose ``check`` stops at an interrupt ("sure?", with a ``response_schema``).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.config import get_stream_writer
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import interrupt

__all__ = ["broken", "graph", "nested"]


class State(MessagesState):
    log: Annotated[list[str], operator.add]


def _model(text: str, ident: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=text, id=ident)]))


async def _inner(state: State) -> dict[str, Any]:
    get_stream_writer()({"inner": 1})
    reply = await _model("from the team", "m2").ainvoke(state["messages"])
    return {"messages": [reply], "log": ["inner"]}


_team = StateGraph(State)
_team.add_node("inner", _inner)
_team.add_edge(START, "inner")


async def _talk(state: State) -> dict[str, Any]:
    reply = await _model("hello there you", "m1").ainvoke(state["messages"])
    return {"messages": [reply], "log": ["talk"]}


def _ask(state: State) -> dict[str, Any]:
    return {"log": [str(interrupt("ok?"))]}


_builder = StateGraph(State)
_builder.add_node("talk", _talk)
_builder.add_node("team", _team.compile())
_builder.add_node("ask", _ask)
_builder.add_edge(START, "talk")
_builder.add_edge("talk", "team")
_builder.add_edge("team", "ask")
graph = _builder.compile()


def _fail(state: State) -> dict[str, Any]:
    raise ValueError("no way")


_broken = StateGraph(State)
_broken.add_node("fail", _fail)
_broken.add_edge(START, "fail")
broken = _broken.compile()


def _check(state: State) -> dict[str, Any]:
    return {"log": [str(interrupt("sure?", response_schema={"type": "string"}))]}


_checks = StateGraph(State)
_checks.add_node("check", _check)
_checks.add_edge(START, "check")
_nested = StateGraph(State)
_nested.add_node("talk", _talk)
_nested.add_node("checks", _checks.compile())
_nested.add_edge(START, "talk")
_nested.add_edge("talk", "checks")
nested = _nested.compile()
