"""A TypedDict whose one key is ``__root__`` (issue 29). Twin of tests/sidebyside/root_key_state.py."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from engine.graph import START, StateGraph


class State(TypedDict):
    __root__: Annotated[list, operator.add]


def test_the_state_is_the_root_keys_value() -> None:
    builder = StateGraph(State)
    builder.add_node("a", lambda items: [f"a saw {len(items)}"])
    builder.add_node("b", lambda items: [f"b saw {len(items)}"])
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    graph = builder.compile()
    assert graph.invoke(["start"]) == ["start", "a saw 1", "b saw 2"]
    assert list(graph.stream(["x"], stream_mode="updates")) == [{"a": ["a saw 1"]}, {"b": ["b saw 2"]}]


def test_message_graph_is_a_state_graph_of_one_message_list_and_warns() -> None:
    import json

    import pytest

    from engine.graph import MessageGraph
    from engine.warnings import LangGraphDeprecatedSinceV10

    with pytest.warns(LangGraphDeprecatedSinceV10, match="MessageGraph is deprecated in LangGraph v1.0.0"):
        builder = MessageGraph()
    assert isinstance(builder, StateGraph)
    builder.add_node("bot", lambda messages: [("assistant", f"{len(messages)} so far")])
    builder.set_entry_point("bot")
    builder.set_finish_point("bot")
    graph = builder.compile()
    out = graph.invoke([("user", "hi")])
    assert [(m.type, m.content) for m in out] == [("human", "hi"), ("ai", "1 so far")]
    schema = graph.get_input_jsonschema()  # a root state: its list type, titled as LangGraph titles it
    assert schema["type"] == "array" and schema["title"] == "LangGraphInput" and schema["default"] is None
    assert "AIMessage" in json.dumps(schema["$defs"])
