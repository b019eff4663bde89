"""A node value nested too deep to store (issue 28 item 5d), on every saver.

A value 2,000 levels deep made the serializer's walk for the error message
blow Python's recursion limit (RecursionError, not SerializationError). A
serializer now stores what msgpack both writes and reads back, 1,023 levels
(``stored_depth()``: an empty container 1,024 down used to be stored, then
never read), and one that keeps to what the wire carries (``json_safe``, a
server's) 500 (``WIRE_DEPTH``: the wire's JSON encoder and a Python client's
decoder recurse once per level). Past that, the write fails with
SerializationError naming the state key and the path, as LangGraph 1.2.22
fails it with a TypeError ("Recursion limit reached", from ormsgpack, past
254 levels): SerializationError is a TypeError too. The versions saved
before stay, and the thread runs on.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

import msgpack
import pytest
from typing_extensions import TypedDict

from engine import START, StateGraph
from engine.errors import SerializationError
from engine.serde import Serializer
from engine.serde._depth import WIRE_DEPTH, stored_depth
from engine.testing import thread


def nested(levels: int, leaf: Any = None) -> Any:
    """``levels`` dicts around ``leaf`` (an empty dict by default): its parts sit ``levels`` deep."""
    value: Any = {} if leaf is None else leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def levels_of(value: Any) -> int:
    """How many ``{"a": ...}`` dicts wrap an empty one (without recursing: ``==`` on such values would)."""
    n = 0
    while value != {}:
        assert list(value) == ["a"]
        value, n = value["a"], n + 1
    return n


class State(TypedDict, total=False):
    levels: int
    value: Any
    items: Annotated[list[Any], operator.add]


def make(state: State) -> dict[str, Any]:
    value = nested(state["levels"]) if state["levels"] else "fine"
    return {"value": value, "items": [value]}


@pytest.mark.parametrize("levels", [2000, 1024])
def test_a_value_too_deep_fails_its_write_and_the_thread_runs_on(checkpointer: Any, levels: int) -> None:
    app = StateGraph(State).add_node("make", make).add_edge(START, "make").compile(checkpointer=checkpointer)
    assert app.invoke({"levels": 0}, thread())["items"] == ["fine"]
    with pytest.raises(SerializationError, match=r"nested too deeply .*or 1023 levels in all\); store flatter data") as err:
        app.invoke({"levels": levels}, thread())
    assert isinstance(err.value, TypeError)  # what LangGraph raises, so `except TypeError` catches both
    assert "'value'" in str(err.value) or "'items'" in str(err.value)
    assert "['a']['a']" in str(err.value) and len(str(err.value)) < 600  # the path is shortened
    state = app.get_state(thread())
    assert state.values["items"] == ["fine"] and state.values["value"] == "fine"
    assert app.invoke({"levels": 0}, thread())["items"] == ["fine", "fine"]


def test_the_deepest_storable_value_reads_back(checkpointer: Any) -> None:
    app = StateGraph(State).add_node("make", make).add_edge(START, "make").compile(checkpointer=checkpointer)
    app.invoke({"levels": stored_depth() - 1}, thread())  # in ``items`` (a list), its parts sit 1,023 deep
    values = app.get_state(thread()).values
    assert levels_of(values["value"]) == stored_depth() - 1
    assert len(values["items"]) == 1 and levels_of(values["items"][0]) == stored_depth() - 1


@pytest.mark.parametrize("json_safe", [False, True])
def test_the_serializer_bounds_nesting(json_safe: bool) -> None:
    s = Serializer(json_safe=json_safe)
    bound = WIRE_DEPTH if json_safe else stored_depth()
    assert bound == (500 if json_safe else 1023)
    for ok in (nested(bound), nested(bound - 1, leaf=[1]), nested(bound, leaf=1), [nested(bound - 1)]):
        tag, data = s.dumps_typed(ok)
        assert data == msgpack.packb(ok, use_bin_type=True)  # the bound leaves no byte of its own behind
        assert msgpack.packb(s.loads_typed((tag, data)), use_bin_type=True) == data  # read back (``==`` would recurse)
    for too_deep in (nested(bound + 1), nested(bound, leaf=[1]), nested(100_000), [nested(bound)]):
        with pytest.raises(SerializationError, match=f"nested too deeply .*or {bound} levels in all"):
            s.dumps_typed(too_deep)
    s.dumps_typed({"after": "a refusal, the next value packs as before"})
