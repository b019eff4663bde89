"""A graph compiled with ``checkpointer=False`` or ``True`` run as a root graph (tests/sidebyside/root_checkpointer_false.py).

trustcall compiles its extractor with ``checkpointer=False`` and invokes it on
its own; the engine's root run took ``False`` for a saver and failed
(AttributeError). As LangGraph: ``False`` keeps no state (no checkpoints
streamed, ``get_state`` refused), ``True`` (a subgraph's "my parent's saver")
is refused at the root.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, TypedDict

import pytest

from engine.graph import START, StateGraph


class S(TypedDict):
    n: int


@dataclass
class Box:
    n: int


class B(TypedDict):
    box: Box


def _build(checkpointer: Any) -> Any:
    g = StateGraph(S)
    g.add_node("inc", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "inc")
    return g.compile(checkpointer=checkpointer)


def test_checkpointer_false_runs_without_keeping_state() -> None:
    off = _build(False)
    assert off.invoke({"n": 1}) == {"n": 2}
    assert off.invoke({"n": 1}, {"configurable": {"thread_id": "t"}}) == {"n": 2}
    assert asyncio.run(off.ainvoke({"n": 5})) == {"n": 6}
    chunks = list(off.stream({"n": 1}, stream_mode=["values", "checkpoints", "updates"]))
    assert chunks == [("values", {"n": 1}), ("updates", {"inc": {"n": 2}}), ("values", {"n": 2})]
    with pytest.raises(ValueError, match="No checkpointer set"):
        off.get_state({"configurable": {"thread_id": "t"}})


def test_checkpointer_true_is_refused_at_the_root() -> None:
    with pytest.raises(RuntimeError, match="checkpointer=True cannot be used for root graphs"):
        _build(True).invoke({"n": 1}, {"configurable": {"thread_id": "t"}})


def test_a_saver_the_calls_config_passes_keeps_its_state_and_wins_over_the_compiled_one() -> None:
    # tests/sidebyside/config_checkpointer.py: how LangGraph's server gives a graph compiled without one its saver.
    from engine.checkpoint import InMemorySaver
    from engine.constants import CONFIG_KEY_CHECKPOINTER

    g = StateGraph(B)
    g.add_node("inc", lambda s: {"box": Box(s["box"].n + 1)})
    g.add_edge(START, "inc")
    given, own = InMemorySaver(), InMemorySaver()
    config = {"configurable": {"thread_id": "t", CONFIG_KEY_CHECKPOINTER: given}}
    assert g.compile().invoke({"box": Box(1)}, config) == {"box": Box(2)}  # its schema's class allowed on the given saver
    assert g.compile().get_state(config).values == {"box": Box(2)}
    graph = g.compile(checkpointer=own)
    graph.update_state(config, {"box": Box(10)})
    assert [h.values for h in graph.get_state_history(config)][0] == {"box": Box(10)}
    assert own.get_tuple({"configurable": {"thread_id": "t"}}) is None
    assert _build(False).invoke({"n": 1}, {"configurable": {"thread_id": "f", CONFIG_KEY_CHECKPOINTER: given}}) == {"n": 2}
    assert given.get_tuple({"configurable": {"thread_id": "f"}}) is None  # False keeps no state, whatever the config says
    with pytest.raises(ValueError, match="No checkpointer set"):
        _build(None).get_state({"configurable": {"thread_id": "t"}})
    with pytest.raises(ValueError, match="No checkpointer set"):  # said before the namespace it names
        _build(False).update_state({"configurable": {"thread_id": "t", "checkpoint_ns": "child:1", CONFIG_KEY_CHECKPOINTER: given}}, {"n": 1})
