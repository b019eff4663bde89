"""Managed values (``engine.managed``): ``RemainingSteps`` and ``IsLastStep``, as LangGraph 1.2.22's.

tests/sidebyside/managed_values.py prints both: a key so annotated is no
channel (not stored, not in the output, input and writes ignored); nodes
and routers read ``stop - step``, ``stop`` being the loaded version's step
plus the recursion limit plus 2 (a fresh thread's first node sees
``recursion_limit - 1``, a call continuing a thread counts from its own
first step), and whether one step remains.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Annotated, Any

from pydantic import BaseModel
from typing_extensions import NotRequired, Required, TypedDict

from engine.graph import END, START, StateGraph
from engine.managed import IsLastStep, RemainingSteps
from engine.testing import thread


class S(TypedDict, total=False):
    log: Annotated[list, operator.add]
    remaining_steps: RemainingSteps
    is_last_step: IsLastStep


def _looping(checkpointer: Any) -> Any:
    def node(state: S) -> dict:
        return {"log": [(state["remaining_steps"], state["is_last_step"])]}

    def route(state: S) -> str:
        return END if state["remaining_steps"] <= 2 else "node"

    b = StateGraph(S).add_node("node", node).add_edge(START, "node").add_conditional_edges("node", route)
    return b.compile(checkpointer=checkpointer)


def test_remaining_steps_in_nodes_and_routers(checkpointer):
    g = _looping(checkpointer)
    cfg = {**thread("m"), "recursion_limit": 6}
    assert g.invoke({"log": []}, cfg) == {"log": [(5, False), (4, False), (3, False), (2, False)]}
    again = g.invoke({"log": ["again"]}, cfg)  # a call on a thread with versions counts from its own start
    assert again["log"][4:] == ["again", (5, False), (4, False), (3, False), (2, False)]
    assert sorted(g.get_state(cfg).values) == ["log"]  # never stored
    assert all("remaining_steps" not in s.values for s in g.get_state_history(cfg))


def test_input_and_writes_to_a_managed_key_are_ignored(checkpointer):
    g = _looping(checkpointer)
    out = g.invoke({"log": [], "remaining_steps": 100}, {**thread("in"), "recursion_limit": 4})
    assert out == {"log": [(3, False), (2, False)]}
    w = StateGraph(S).add_node("w", lambda s: {"remaining_steps": 5, "log": ["w"]}).add_edge(START, "w")
    assert w.compile(checkpointer=checkpointer).invoke({"log": []}, thread("w")) == {"log": ["w"]}


@dataclasses.dataclass
class D:
    log: Annotated[list, operator.add] = dataclasses.field(default_factory=list)
    remaining_steps: RemainingSteps = 0


class P(BaseModel):
    log: Annotated[list, operator.add] = []
    remaining_steps: RemainingSteps = 25
    last: IsLastStep = False


def test_dataclass_and_pydantic_states(checkpointer):
    d = StateGraph(D).add_node("n", lambda s: {"log": [s.remaining_steps]}).add_edge(START, "n")
    assert d.compile(checkpointer=checkpointer).invoke(D(), {**thread("d"), "recursion_limit": 7}) == {"log": [6]}
    p = StateGraph(P).add_node("n", lambda s: {"log": [(s.remaining_steps, s.last)]}).add_edge(START, "n")
    assert p.compile(checkpointer=checkpointer).invoke({"log": []}, {**thread("p"), "recursion_limit": 2}) == {
        "log": [(1, True)]
    }


def test_the_builder_lists_its_managed_keys_required_or_not():
    class Plain(TypedDict):
        remaining_steps: RemainingSteps

    class Optional_(TypedDict):
        remaining_steps: NotRequired[RemainingSteps]

    class Needed(TypedDict):
        remaining_steps: Required[RemainingSteps]

    for schema in (Plain, Optional_, Needed):
        assert "remaining_steps" in StateGraph(schema).managed
