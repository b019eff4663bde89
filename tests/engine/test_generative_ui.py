"""Generative UI messages (``langgraph.graph.ui``): pushed and removed by a node, sent on the
"custom" stream as they are made and kept in the state by ``ui_message_reducer``
(tests/sidebyside/generative_ui.py runs the same on LangGraph and the engine)."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import pytest

from engine.checkpoint import InMemorySaver
from engine.graph import START, StateGraph
from engine.graph.ui import delete_ui_message, push_ui_message, ui_message_reducer


class S(TypedDict):
    n: int
    ui: Annotated[list, ui_message_reducer]


def _graph() -> Any:
    def show(state: S) -> dict:
        push_ui_message("card", {"title": "a"}, id="card", message={"id": "m1"}, metadata={"k": 1})
        push_ui_message("card", {"body": "b"}, id="card", merge=True)
        push_ui_message("spinner", {}, id="spin")
        delete_ui_message("spin")
        push_ui_message("toast", {}, id="toast", state_key=None)
        return {"n": state["n"] + 1}

    g = StateGraph(S)
    g.add_node("show", show)
    g.add_edge(START, "show")
    return g.compile(checkpointer=InMemorySaver())


def test_a_nodes_ui_messages_stream_as_sent_and_the_state_keeps_them_merged() -> None:
    graph, config = _graph(), {"configurable": {"thread_id": "t"}, "tags": ["x"]}
    custom = [c for mode, c in graph.stream({"n": 0}, config, stream_mode=["custom", "values"]) if mode == "custom"]
    assert [(c["type"], c["id"]) for c in custom] == [("ui", "card"), ("ui", "card"), ("ui", "spin"), ("remove-ui", "spin"), ("ui", "toast")]
    first = custom[0]
    assert first["name"] == "card" and first["props"] == {"title": "a"}
    assert first["metadata"]["merge"] is False and first["metadata"]["message_id"] == "m1" and first["metadata"]["k"] == 1
    assert "x" in first["metadata"]["tags"]
    ui = graph.get_state(config).values["ui"]
    assert [(m["id"], m["props"]) for m in ui] == [("card", {"title": "a", "body": "b"})]  # merged; spin removed; toast not kept


def test_the_reducer_adds_replaces_removes_and_refuses_an_unknown_removal() -> None:
    a = {"type": "ui", "id": "a", "name": "x", "props": {"p": 1}, "metadata": {}}
    b = {"type": "ui", "id": "b", "name": "y", "props": {}, "metadata": {}}
    assert ui_message_reducer(a, b) == [a, b]
    replaced = {**a, "props": {"q": 2}}
    assert ui_message_reducer([a, b], [replaced, {"type": "remove-ui", "id": "b"}]) == [replaced]
    assert ui_message_reducer([a], [{"type": "remove-ui", "id": "a"}, replaced]) == [replaced]  # brought back
    with pytest.raises(ValueError, match="'nope'.*doesn't exist"):
        ui_message_reducer([a], {"type": "remove-ui", "id": "nope"})
