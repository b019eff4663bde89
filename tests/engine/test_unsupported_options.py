"""Nothing accepted and ignored: LangGraph 1.2 options the engine does not honour yet raise.

Each option refused here is listed in the docs' "Where it differs" (docs/porting.md); left at its
default, it changes nothing. The options LangGraph takes that the engine
honours in its own way (``checkpoint_during``, ``subgraphs`` on a graph that
has none) are pinned beside them, against what LangGraph 1.2.22 does
(tests/sidebyside/options_honoured.py runs the same on both).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

import pytest

from engine import END, START, StateGraph
from engine.checkpoint import InMemorySaver

DIFFERS_PAGE = (Path(__file__).resolve().parents[2] / "docs" / "porting.md").read_text()


class S(TypedDict):
    x: int


def _inc(state: S) -> dict[str, int]:
    return {"x": state["x"] + 1}


def _builder() -> StateGraph:
    g = StateGraph(S)
    g.add_node("inc", _inc)
    g.add_edge(START, "inc")
    g.add_edge("inc", END)
    return g


def _app() -> Any:
    return _builder().compile(checkpointer=InMemorySaver())


CFG = {"configurable": {"thread_id": "t"}}

REFUSED: dict[str, Callable[[], Any]] = {
    "invoke/stream(version=": lambda: list(_app().stream({"x": 1}, CFG, version="v3")),
    "draw_mermaid(node_colors=": lambda: _app().get_graph().draw_mermaid(node_colors={"a": "red"}),
}


@pytest.mark.parametrize("option", sorted(REFUSED))
def test_a_refused_option_raises_naming_the_docs(option: str) -> None:
    with pytest.raises(NotImplementedError) as raised:
        REFUSED[option]()
    message = str(raised.value)
    assert message.startswith(option), message
    assert "docs/porting.md" in message and "Where it differs" in message


@pytest.mark.parametrize("option", sorted(REFUSED))
def test_every_refused_option_is_listed_in_the_docs(option: str) -> None:
    differs = DIFFERS_PAGE[DIFFERS_PAGE.index("\n## Where it differs\n") :]
    name = re.search(r"\((\w+)=", option).group(1)
    assert f"{name}=" in differs, f"docs/porting.md 'Where it differs' does not name {name}="


def test_the_defaults_change_nothing() -> None:
    g = StateGraph(S, context_schema=None)
    g.add_node("inc", _inc, defer=False, cache_policy=None, error_handler=None, timeout=None, trace_policy=None)
    g.add_edge(START, "inc")
    app = g.compile(checkpointer=InMemorySaver(), cache=None, debug=False)
    out = app.invoke({"x": 1}, CFG, context=None, print_mode=(), output_keys=None, debug=None, version="v1")
    assert out == {"x": 2}
    assert app.invoke(None, CFG, stream_mode="values") == {"x": 2}


def test_add_node_takes_langgraphs_older_name_input_for_input_schema() -> None:
    class Part(TypedDict):
        x: int

    seen: list[type] = []

    def node(state: Part) -> dict[str, int]:
        seen.append(type(state))
        return {"x": state["x"] * 2}

    g = StateGraph(S)
    g.add_node("double", node, input=Part)
    g.add_edge(START, "double")
    assert g.compile().invoke({"x": 3}) == {"x": 6}


def test_an_unknown_option_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        _builder().add_node("c", _inc, color="red")
    with pytest.raises(TypeError):
        _app().invoke({"x": 1}, CFG, colour="red")


def test_checkpoint_during_maps_to_durability_as_in_langgraph() -> None:
    """LangGraph 1.0's older option: True is durability "async", False "exit"; with durability: ValueError."""
    app = _app()
    with pytest.warns(DeprecationWarning, match="checkpoint_during"):
        assert app.invoke({"x": 1}, {"configurable": {"thread_id": "exit"}}, checkpoint_during=False) == {"x": 2}
    # "exit": one version for the whole call (no input version of its own).
    assert [s.metadata["source"] for s in app.get_state_history({"configurable": {"thread_id": "exit"}})] == ["loop"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        app.invoke({"x": 1}, {"configurable": {"thread_id": "async"}}, checkpoint_during=True)
        with pytest.raises(ValueError, match="Cannot use both"):
            app.invoke({"x": 1}, CFG, checkpoint_during=True, durability="sync")
    assert [s.metadata["source"] for s in app.get_state_history({"configurable": {"thread_id": "async"}})] == [
        "loop",
        "loop",
        "input",
    ]


def test_subgraphs_on_a_graph_without_subgraphs_is_what_langgraph_gives() -> None:
    """Chunks come under the root namespace, (); get_state and invoke are unchanged."""
    app = _app()
    assert list(app.stream({"x": 1}, CFG, stream_mode="updates", subgraphs=True)) == [((), {"inc": {"x": 2}})]
    assert list(app.stream({"x": 1}, {"configurable": {"thread_id": "v"}}, stream_mode=["values"], subgraphs=True)) == [
        ((), "values", {"x": 1}),
        ((), "values", {"x": 2}),
    ]
    assert app.get_state(CFG, subgraphs=True) == app.get_state(CFG)
    assert app.invoke({"x": 5}, {"configurable": {"thread_id": "w"}}, subgraphs=True) == {"x": 6}
