"""Without a saver, an invoke folds START's step into the input step, and nothing shows it.

Nobody can see either step's version (nothing stores it, and ``invoke`` asks
for no event but the run's end), so the loop makes START's writes with the
input's: one plan, one write application and one id less (~20 % of a
one-node invoke). The step count goes on as if both had run, so the
recursion limit and the managed ``RemainingSteps`` read the same. Each case
here runs folded (``invoke``) and unfolded (``stream``, which watches the
steps) and must agree.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, StateGraph
from engine.errors import GraphRecursionError, InvalidUpdateError
from engine.managed import RemainingSteps


class State(TypedDict):
    n: int
    log: Annotated[list, operator.add]
    left: RemainingSteps


def _chain(k: int) -> Any:
    g = StateGraph(State)
    names = [f"n{i}" for i in range(k)]
    for name in names:
        g.add_node(name, lambda s, name=name: {"n": s["n"] + 1, "log": [f"{name}:{s['left']}"]})
    g.add_edge(START, names[0])
    for a, b in zip(names, names[1:]):
        g.add_edge(a, b)
    g.add_edge(names[-1], END)
    return g.compile()


def _unfolded(graph: Any, inp: Any, config: dict[str, Any]) -> Any:
    return list(graph.stream(inp, config, stream_mode="values"))[-1]


def test_folded_and_unfolded_runs_agree_on_values_and_remaining_steps() -> None:
    graph = _chain(3)
    config = {"recursion_limit": 5}
    folded = graph.invoke({"n": 0, "log": []}, config)
    assert folded == {"n": 3, "log": ["n0:4", "n1:3", "n2:2"]}
    assert {k: v for k, v in _unfolded(graph, {"n": 0, "log": []}, config).items() if k != "left"} == folded


@pytest.mark.parametrize("limit, ok", [(4, True), (3, False)])
def test_the_recursion_limit_counts_the_folded_step(limit: int, ok: bool) -> None:
    graph = _chain(3)
    config = {"recursion_limit": limit}
    for run in (graph.invoke, lambda i, c: _unfolded(graph, i, c)):
        if ok:
            assert run({"n": 0, "log": []}, config)["n"] == 3
        else:
            with pytest.raises(GraphRecursionError):
                run({"n": 0, "log": []}, config)


def test_a_bad_input_fails_the_same_folded_or_not() -> None:
    graph = _chain(1)
    with pytest.raises(InvalidUpdateError) as folded:
        graph.invoke(["not", "a", "dict"])
    with pytest.raises(InvalidUpdateError) as unfolded:
        _unfolded(graph, ["not", "a", "dict"], {})
    assert str(folded.value) == str(unfolded.value)
