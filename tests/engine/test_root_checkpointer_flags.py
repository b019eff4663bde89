"""A graph compiled with ``checkpointer=False`` or ``True`` run as a root graph (tests/sidebyside/root_checkpointer_false.py).

trustcall compiles its extractor with ``checkpointer=False`` and invokes it on
its own; the engine's root run took ``False`` for a saver and failed
(AttributeError). As LangGraph: ``False`` keeps no state (no checkpoints
streamed, ``get_state`` refused), ``True`` (a subgraph's "my parent's saver")
is refused at the root.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from engine.graph import START, StateGraph


class S(TypedDict):
    n: int


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
    with pytest.raises(ValueError, match="no checkpointer"):
        off.get_state({"configurable": {"thread_id": "t"}})


def test_checkpointer_true_is_refused_at_the_root() -> None:
    with pytest.raises(RuntimeError, match="checkpointer=True cannot be used for root graphs"):
        _build(True).invoke({"n": 1}, {"configurable": {"thread_id": "t"}})
