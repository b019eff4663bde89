"""A router sees its step's state with its task's writes folded in, and the step's end folds
the same writes again: the reducer runs once for both (engine.channels.binop.fold), so the
router's view and the stored state are the very same value."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from engine import END, START, StateGraph
from engine.channels.binop import fold


def test_fold_reuses_the_last_result_only_for_the_same_three_objects() -> None:
    calls: list[tuple[Any, Any]] = []

    def op(a: list, b: list) -> list:
        calls.append((a, b))
        return a + b

    cur, new = [1], [2]
    first = fold(op, cur, new)
    assert fold(op, cur, new) is first and len(calls) == 1
    assert fold(op, cur, [2]) == [1, 2] and len(calls) == 2  # an equal but other object folds again
    assert fold(op, [1], new) == [1, 2] and len(calls) == 3


FOLDS: list[int] = []


def counted(a: list, b: list) -> list:
    FOLDS.append(len(b))
    return a + b


class S(TypedDict):
    log: Annotated[list, counted]


def test_the_router_and_the_stored_state_share_one_fold(checkpointer) -> None:
    FOLDS.clear()
    seen: list[list] = []

    def route(s: S) -> str:
        seen.append(s["log"])
        return END

    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(START, "a")
    g.add_conditional_edges("a", route)
    app = g.compile(checkpointer=checkpointer)
    cfg = {"configurable": {"thread_id": "fold"}}
    assert app.invoke({"log": []}, cfg) == {"log": ["a"]}
    assert seen == [["a"]]
    assert app.get_state(cfg).values["log"] == ["a"]
    # the input's fold, then the node's write once for the router and the step's end together
    assert FOLDS == [0, 1]
