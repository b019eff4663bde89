"""DeltaChannel: a reducer key whose versions store writes between snapshots (issue 29).

Each expectation was observed on LangGraph 1.2.22 with the same program
(``tests/sidebyside/delta_channel.py`` prints ``same``): what a run returns,
what ``get_state`` and the history read back, and what each stored version
holds as the saver's ``get_tuple`` shows it (the channel only as a snapshot,
every ``snapshot_frequency`` updates, and the counters metadata between).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, InvalidUpdateError, StateGraph
from engine.channels import DeltaChannel
from engine.channels.base import MISSING
from engine.checkpoint.serde.types import _DeltaSnapshot
from engine.graph.message import _messages_delta_reducer
from engine.types import Command, Overwrite, Send


def concat(state: list, writes: list) -> list:
    out = list(state)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


class S(TypedDict, total=False):
    log: Annotated[list, DeltaChannel(concat, snapshot_frequency=3)]
    plain: Annotated[list, operator.add]
    n: int


def _both(item: str) -> dict[str, Any]:
    return {"log": [item], "plain": [item]}


def _chain(checkpointer: Any) -> Any:
    b = StateGraph(S)
    b.add_node("a", lambda s: _both("a"))
    b.add_node("b", lambda s: _both("b"))
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", END)
    return b.compile(checkpointer=checkpointer)


def _cfg(thread: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


# -- the channel ------------------------------------------------------------------


def test_the_channel_folds_a_batch_and_replays_stored_writes() -> None:
    ch = DeltaChannel(concat).from_checkpoint(MISSING)
    assert ch.get() == [] and ch.checkpoint() is MISSING  # stored as writes, never as a value
    assert ch.update([["x"], "y"]) and ch.get() == ["x", "y"]
    restored = ch.from_checkpoint(_DeltaSnapshot(["s"]))
    restored.replay_writes([("t1", "log", ["a"]), ("t2", "log", Overwrite(["o"])), ("t3", "log", ["b"])])
    assert restored.get() == ["o", "b"]  # the last Overwrite restarts the fold
    with pytest.raises(InvalidUpdateError):
        ch.update([Overwrite([1]), Overwrite([2])])


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_snapshot_frequency_must_be_a_positive_int(bad: Any) -> None:
    with pytest.raises(ValueError, match="snapshot_frequency"):
        DeltaChannel(concat, snapshot_frequency=bad)


def test_the_value_type_comes_from_the_annotation() -> None:
    class D(TypedDict):
        seen: Annotated[dict[str, int], DeltaChannel(lambda s, ws: {**s, **{k: v for w in ws for k, v in w.items()}})]

    g = StateGraph(D).add_node("a", lambda s: {"seen": {"a": len(s["seen"])}}).add_edge(START, "a").compile()
    assert g.invoke({"seen": {"x": 1}}) == {"seen": {"x": 1, "a": 1}}


# -- what versions store --------------------------------------------------------------


def test_versions_store_snapshots_every_frequency_updates_and_counters_between(checkpointer: Any) -> None:
    g, c = _chain(checkpointer), _cfg()
    g.invoke(_both("in"), c)
    g.invoke(_both("in2"), c)
    seen = []
    for snap in g.get_state_history(c):
        t = checkpointer.get_tuple(snap.config)
        stored = t.checkpoint["channel_values"].get("log", MISSING)
        seen.append((
            snap.metadata["step"], snap.values["log"] == snap.values["plain"],
            None if stored is MISSING else type(stored).__name__, t.metadata.get("counters_since_delta_snapshot"),
        ))  # fmt: skip
    # The input version (step 3) stores no new value: its log is still the snapshot of step 2's.
    assert seen == [
        (6, True, "DeltaSnapshot", None),
        (5, True, None, {"log": [2, 3]}),
        (4, True, None, {"log": [1, 2]}),
        (3, True, "DeltaSnapshot", {"log": [0, 1]}),
        (2, True, "DeltaSnapshot", None),
        (1, True, None, {"log": [2, 3]}),
        (0, True, None, {"log": [1, 2]}),
        (-1, True, None, {"log": [0, 1]}),
    ]
    assert g.get_state(c).values["log"] == ["in", "a", "b", "in2", "a", "b"]


def test_parallel_writers_read_back_in_the_order_the_step_applied_them(checkpointer: Any) -> None:
    b = StateGraph(S)
    for name in ("z", "m", "a"):
        b.add_node(name, (lambda n: lambda s: _both(n))(name))
        b.add_edge(START, name)
    b.add_node("fan", lambda s: {})
    b.add_edge(["z", "m", "a"], "fan")
    b.add_node("w", lambda s: _both(f"w{s['n']}"))
    b.add_conditional_edges("fan", lambda s: [Send("w", {"n": i}) for i in (2, 0, 1)], ["w"])
    g = b.compile(checkpointer=checkpointer)
    live = g.invoke(_both("in"), _cfg())
    assert live["log"] == live["plain"] == ["in", "a", "m", "z", "w2", "w0", "w1"]
    assert g.get_state(_cfg()).values["log"] == live["log"]


def test_update_state_stores_its_writes_on_the_version_it_updates(checkpointer: Any) -> None:
    g, c = _chain(checkpointer), _cfg()
    g.update_state(c, {"log": ["fresh"]}, as_node="a")  # a new thread's first version snapshots
    head = checkpointer.get_tuple(c)
    assert isinstance(head.checkpoint["channel_values"]["log"], _DeltaSnapshot)
    assert "counters_since_delta_snapshot" not in head.metadata
    g.invoke(None, c)
    g.update_state(c, {"log": ["edit"]}, as_node="b")
    head = checkpointer.get_tuple(c)
    assert "log" not in head.checkpoint["channel_values"]
    assert head.metadata["counters_since_delta_snapshot"] == {"log": [2, 2]}
    assert g.get_state(c).values["log"] == ["fresh", "b", "edit"]


def test_a_fork_does_not_fold_the_other_branch(checkpointer: Any) -> None:
    g, c = _chain(checkpointer), _cfg()
    g.invoke(_both("in"), c)
    first = [s for s in g.get_state_history(c) if s.metadata["step"] == 1][0]  # after "a"
    forked = g.update_state(first.config, _both("x"), as_node="a")
    assert g.get_state(forked).values["log"] == g.get_state(forked).values["plain"] == ["in", "a", "x"]
    g.invoke(None, forked)
    assert g.get_state(c).values["log"] == ["in", "a", "x", "b"]
    # A Command from the old version runs as a new branch too.
    g.invoke(Command(update=_both("cmd")), first.config)
    state = g.get_state(c).values
    assert state["log"] == state["plain"] == ["in", "a", "cmd", "b"]


def test_an_overwrite_snapshots_the_version_it_lands_in(checkpointer: Any) -> None:
    g, c = _chain(checkpointer), _cfg()
    g.invoke({"log": Overwrite(["reset"]), "plain": ["reset"]}, c)
    states = {s.metadata["step"]: s for s in g.get_state_history(c)}
    stored = checkpointer.get_tuple(states[0].config).checkpoint["channel_values"]["log"]
    assert stored == _DeltaSnapshot(["reset"])
    assert g.get_state(c).values["log"] == ["reset", "a", "b"]


def test_messages_get_ids_every_read_keeps(checkpointer: Any) -> None:
    class M(TypedDict):
        messages: Annotated[list, DeltaChannel(_messages_delta_reducer)]

    g = StateGraph(M).add_node("a", lambda s: {"messages": [("ai", "hello")]}).add_edge(START, "a")
    g = g.compile(checkpointer=checkpointer)
    g.invoke({"messages": ["hi"]}, _cfg())
    first = [m.id for m in g.get_state(_cfg()).values["messages"]]
    assert len(first) == 2 and all(first)
    assert [m.id for m in g.get_state(_cfg()).values["messages"]] == first
    from langchain_core.messages import RemoveMessage

    g.update_state(_cfg(), {"messages": [RemoveMessage(id=first[0])]}, as_node="a")
    assert [m.id for m in g.get_state(_cfg()).values["messages"]] == first[1:]


def test_a_plain_reducer_reads_a_thread_a_delta_channel_wrote(checkpointer: Any) -> None:
    _chain(checkpointer).invoke(_both("in"), _cfg())

    class P(TypedDict, total=False):
        log: Annotated[list, operator.add]
        plain: Annotated[list, operator.add]

    b = StateGraph(P).add_node("a", lambda s: {"log": ["p"]}).add_edge(START, "a")
    g = b.compile(checkpointer=checkpointer)
    assert g.get_state(_cfg()).values["log"] == ["in", "a", "b"]
    g.invoke({"log": ["more"]}, _cfg())
    assert g.get_state(_cfg()).values["log"] == ["in", "a", "b", "more", "p"]
