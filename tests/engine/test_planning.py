"""The pure core of a superstep, driven with plain data (no graph, no saver, no loop).

``prepare_next_tasks`` and ``apply_writes`` (engine/pregel/_algo.py) take a
checkpoint as a plain dict, channels and node specs, and return plain data;
these tests build all three by hand, as h11's tests drive its state table,
so a change to planning shows here before it shows as a graph that runs
differently.
"""

from __future__ import annotations

import operator
from typing import Any

import pytest

from engine.channels.binop import BinaryOperatorAggregate
from engine.channels.ephemeral import EphemeralValue
from engine.channels.last_value import LastValue
from engine.channels.named_barrier import NamedBarrierValue
from engine.channels.topic import Topic
from engine.errors import InvalidUpdateError
from engine.pregel._algo import (
    Task,
    apply_null_writes,
    apply_writes,
    mark_interrupt_seen,
    prepare_next_tasks,
    restore_channels,
    should_interrupt,
    trigger_index,
)
from engine.pregel._spec import PULL, PUSH, TASKS, NodeSpec
from engine.types import START, Send


def node(name: str, *triggers: str) -> NodeSpec:
    return NodeSpec(name=name, triggers=triggers or (f"branch:to:{name}",), read=lambda state: dict(state), proc=None, writer=lambda r, s, c: [])


def checkpoint(cid: str = "ck-1", *, values: dict[str, Any] | None = None, versions: dict[str, int] | None = None,
               seen: dict[str, dict[str, int]] | None = None, updated: list[str] | None = None) -> dict[str, Any]:
    ck: dict[str, Any] = {"v": 1, "id": cid, "ts": "", "channel_values": dict(values or {}),
                          "channel_versions": dict(versions or {}), "versions_seen": dict(seen or {})}
    if updated is not None:
        ck["updated_channels"] = updated
    return ck


SPECS = {
    "count": LastValue(int, key="count"),
    "log": BinaryOperatorAggregate(list, operator.add, key="log"),
    "branch:to:a": EphemeralValue(None, guard=False, key="branch:to:a"),
    "branch:to:b": EphemeralValue(None, guard=False, key="branch:to:b"),
    "branch:to:c": EphemeralValue(None, guard=False, key="branch:to:c"),
    "join:a+b:c": NamedBarrierValue(str, {"a", "b"}, key="join:a+b:c"),
    TASKS: Topic(Send, key=TASKS),
    START: EphemeralValue(Any, key=START),
}
NODES = {"c": node("c"), "a": node("a"), "b": node("b")}  # definition order: c, a, b


def plan(ck: dict[str, Any], nodes: dict[str, NodeSpec] = NODES, *, step: int = 1, index: bool = True) -> list[Task]:
    channels = restore_channels(SPECS, ck)
    return prepare_next_tasks(ck, channels, nodes, step, trigger_index(nodes) if index else None)


# -- planning: which nodes a checkpoint triggers --------------------------------

# (what it pins, checkpoint, the tasks planned: names in order)
PLANNING = [
    ("nothing written: nothing due", checkpoint(), []),
    ("a trigger written and never seen: due",
     checkpoint(values={"branch:to:a": None}, versions={"branch:to:a": 2}, updated=["branch:to:a"]), ["a"]),
    ("a trigger the node saw at that version: not due",
     checkpoint(values={"branch:to:a": None}, versions={"branch:to:a": 2}, seen={"a": {"branch:to:a": 2}}, updated=["branch:to:a"]), []),
    ("a trigger newer than the node saw: due again",
     checkpoint(values={"branch:to:a": None}, versions={"branch:to:a": 3}, seen={"a": {"branch:to:a": 2}}, updated=["branch:to:a"]), ["a"]),
    ("a trigger whose channel is empty (expired): not due, whatever its version",
     checkpoint(versions={"branch:to:a": 3}, updated=["branch:to:a"]), []),
    ("a run plans its last step's triggered nodes in name order",
     checkpoint(values={"branch:to:b": None, "branch:to:a": None, "branch:to:c": None},
                versions={"branch:to:b": 2, "branch:to:a": 2, "branch:to:c": 2}, updated=["branch:to:b", "branch:to:c", "branch:to:a"]),
     ["a", "b", "c"]),
    ("a state key with no node on it triggers nothing",
     checkpoint(values={"count": 1}, versions={"count": 2}, updated=["count"]), []),
]


@pytest.mark.parametrize(("ck", "expected"), [p[1:] for p in PLANNING], ids=[p[0] for p in PLANNING])
def test_planning_table(ck: dict[str, Any], expected: list[str]) -> None:
    assert [t.name for t in plan(ck)] == expected


def test_a_snapshot_without_a_trigger_index_lists_due_nodes_in_definition_order() -> None:
    ck = checkpoint(values={"branch:to:b": None, "branch:to:a": None, "branch:to:c": None},
                    versions={"branch:to:b": 2, "branch:to:a": 2, "branch:to:c": 2}, updated=["branch:to:a"])
    assert [t.name for t in plan(ck, index=False)] == ["c", "a", "b"]
    # With the index only the channels the last step updated are looked at.
    assert [t.name for t in plan(ck)] == ["a"]


def test_task_ids_depend_on_the_checkpoint_the_step_and_the_place_only() -> None:
    ck = checkpoint(values={"branch:to:a": None, "branch:to:b": None}, versions={"branch:to:a": 2, "branch:to:b": 2},
                    updated=["branch:to:a", "branch:to:b"])
    first, again = plan(ck), plan(checkpoint(**_same(ck)))
    assert [t.id for t in first] == [t.id for t in again]  # a resume plans the same ids, so pending writes match
    assert len({t.id for t in first}) == 2
    assert {t.id for t in plan(ck, step=2)}.isdisjoint(t.id for t in first)
    other = dict(ck, id="ck-2")
    assert {t.id for t in plan(other)}.isdisjoint(t.id for t in first)


def _same(ck: dict[str, Any]) -> dict[str, Any]:
    return {"cid": ck["id"], "values": ck["channel_values"], "versions": ck["channel_versions"],
            "seen": ck["versions_seen"], "updated": ck.get("updated_channels")}


def test_a_task_fires_on_the_triggers_that_changed_and_reads_the_state() -> None:
    nodes = {"c": node("c", "join:a+b:c", "branch:to:c")}
    ck = checkpoint(values={"count": 5, "join:a+b:c": ["a", "b"]}, versions={"count": 1, "join:a+b:c": 4},
                    seen={"c": {"branch:to:c": 0, "join:a+b:c": 1}}, updated=["join:a+b:c"])
    (t,) = plan(ck, nodes)
    # fired by the join alone; as LangGraph, the task names all its node's triggers, sorted
    # (tests/sidebyside/task_triggers.py)
    assert t.triggers == ("branch:to:c", "join:a+b:c") and t.path == (PULL, "c")
    assert t.input["count"] == 5 and t.state is ck["channel_values"]


def test_sends_are_planned_first_in_send_order_and_unknown_nodes_are_left_out() -> None:
    sends = [Send("b", {"i": 0}), Send("nowhere", {}), Send("a", {"i": 2}), Send("b", {"i": 3})]
    ck = checkpoint(values={TASKS: sends, "branch:to:a": None}, versions={TASKS: 2, "branch:to:a": 2}, updated=[TASKS, "branch:to:a"])
    tasks = plan(ck)
    assert [(t.name, t.path, t.input) for t in tasks] == [
        ("b", (PUSH, 0, False), {"i": 0}),
        ("a", (PUSH, 2, False), {"i": 2}),
        ("b", (PUSH, 3, False), {"i": 3}),
        ("a", (PULL, "a"), {"branch:to:a": None, TASKS: sends}),
    ]
    assert all(t.triggers == (TASKS,) for t in tasks[:3])


# -- applying a step's writes ----------------------------------------------------


def done(t: Task, *writes: tuple[str, Any]) -> Task:
    t.writes = list(writes)
    return t


def test_writes_apply_in_task_name_order_whatever_order_the_tasks_finished() -> None:
    ck = checkpoint(values={"branch:to:a": None, "branch:to:b": None, "log": []},
                    versions={"branch:to:a": 2, "branch:to:b": 2, "log": 1}, updated=["branch:to:a", "branch:to:b"])
    channels = restore_channels(SPECS, ck)
    a, b = prepare_next_tasks(ck, channels, NODES, 1, trigger_index(NODES))
    updated, changed = apply_writes(ck, channels, [done(b, ("log", ["b"])), done(a, ("log", ["a"]))], next_version=7)
    assert channels["log"].get() == ["a", "b"] and ck["channel_values"]["log"] == ["a", "b"]
    assert updated == {"log"}
    # the triggers were consumed (expired), and every channel that moved has the step's one new version
    assert changed == {"log", "branch:to:a", "branch:to:b"}
    assert {c: ck["channel_versions"][c] for c in changed} == dict.fromkeys(changed, 7)
    assert "branch:to:a" not in ck["channel_values"] and ck["updated_channels"] == ["log"]
    assert ck["versions_seen"] == {"a": {"branch:to:a": 2}, "b": {"branch:to:b": 2}}  # what each saw, for planning


def test_sends_merge_in_send_order() -> None:
    sends = [Send("b", 0), Send("a", 1), Send("b", 2)]
    ck = checkpoint(values={TASKS: sends}, versions={TASKS: 2}, updated=[TASKS])
    channels = restore_channels(SPECS, ck)
    tasks = prepare_next_tasks(ck, channels, NODES, 1, trigger_index(NODES))
    for t in reversed(tasks):  # finishing last to first changes nothing
        done(t, ("log", [t.input]))
    apply_writes(ck, channels, list(reversed(tasks)), next_version=3)
    assert channels["log"].get() == [0, 1, 2]
    assert TASKS not in ck["channel_values"]  # the packets were consumed


def test_two_writes_to_a_plain_key_in_one_step_are_refused() -> None:
    ck = checkpoint(values={"branch:to:a": None, "branch:to:b": None}, versions={"branch:to:a": 2, "branch:to:b": 2},
                    updated=["branch:to:a", "branch:to:b"])
    channels = restore_channels(SPECS, ck)
    a, b = prepare_next_tasks(ck, channels, NODES, 1, trigger_index(NODES))
    with pytest.raises(InvalidUpdateError, match="count"):
        apply_writes(ck, channels, [done(a, ("count", 1)), done(b, ("count", 2))])


def test_a_write_that_changes_nothing_moves_no_version() -> None:
    ck = checkpoint(values={"branch:to:a": None}, versions={"branch:to:a": 2}, updated=["branch:to:a"])
    channels = restore_channels(SPECS, ck)
    (a,) = prepare_next_tasks(ck, channels, NODES, 1, trigger_index(NODES))
    updated, changed = apply_writes(ck, channels, [done(a, ("not-a-channel", 1))], next_version=9)
    assert updated == set() and changed == {"branch:to:a"}
    assert "not-a-channel" not in ck["channel_versions"]


def test_one_step_values_expire_after_a_step_with_tasks_but_not_after_an_empty_one() -> None:
    def written() -> tuple[dict[str, Any], dict[str, Any]]:
        ck = checkpoint(values={START: {"count": 1}, "branch:to:a": None}, versions={START: 1, "branch:to:a": 1},
                        updated=[START, "branch:to:a"])
        return ck, restore_channels(SPECS, ck)

    ck, channels = written()
    assert apply_writes(ck, channels, []) == (set(), set())
    assert channels[START].is_available()  # no task: time did not move on
    ck, channels = written()
    (a,) = prepare_next_tasks(ck, channels, NODES, 1, trigger_index(NODES))
    _, changed = apply_writes(ck, channels, [done(a, ("count", 2))], next_version=5)
    # START was written by the step before and not again: it expires with the step
    assert START in changed and not channels[START].is_available() and START not in ck["channel_values"]
    assert ck["channel_versions"][START] == 5


def test_a_plan_applied_gives_the_next_plan() -> None:
    """One step's writes routing to the next node: plan, apply, plan again, on plain data."""
    ck = checkpoint(values={"branch:to:a": None}, versions={"branch:to:a": 1}, updated=["branch:to:a"])
    channels = restore_channels(SPECS, ck)
    (a,) = prepare_next_tasks(ck, channels, NODES, 0, trigger_index(NODES))
    apply_writes(ck, channels, [done(a, ("count", 1), ("branch:to:b", None))], next_version=2)
    (b,) = prepare_next_tasks(ck, channels, NODES, 1, trigger_index(NODES))
    assert b.name == "b" and b.input["count"] == 1
    apply_writes(ck, channels, [done(b, ("count", 2))], next_version=3)
    assert prepare_next_tasks(ck, channels, NODES, 2, trigger_index(NODES)) == []
    assert ck["channel_values"] == {"count": 2} and ck["channel_versions"]["count"] == 3


# -- input writes and breakpoints -------------------------------------------------


def test_input_writes_consume_no_trigger_and_keep_the_due_tasks_due() -> None:
    ck = checkpoint(values={"branch:to:a": None, "log": ["x"]}, versions={"branch:to:a": 2, "log": 2}, updated=["branch:to:a"])
    channels = restore_channels(SPECS, ck)
    updated = apply_null_writes(ck, channels, [("log", ["y"]), ("branch:to:b", None)])
    assert updated == {"log", "branch:to:b"}
    assert ck["updated_channels"] == ["branch:to:a", "branch:to:b", "log"]
    assert channels["log"].get() == ["x", "y"] and ck["versions_seen"] == {}
    assert [t.name for t in prepare_next_tasks(ck, channels, NODES, 1, trigger_index(NODES))] == ["a", "b"]


def test_a_static_breakpoint_fires_once_per_change() -> None:
    ck = checkpoint(values={"branch:to:a": None}, versions={"branch:to:a": 2}, updated=["branch:to:a"])
    (a,) = plan(ck)
    start = Task(id="s", name=START, path=(PULL, START), input=None, triggers=(), node=node(START))
    assert should_interrupt(ck, ["a"], [a]) and should_interrupt(ck, "*", [a])
    assert not should_interrupt(ck, ["b"], [a]) and not should_interrupt(ck, (), [a])
    assert not should_interrupt(ck, "*", [start])  # "*" is every node but the hidden START task
    mark_interrupt_seen(ck)
    assert not should_interrupt(ck, ["a"], [a])  # continuing from the breakpoint does not stop there again
    ck["channel_versions"]["count"] = 3
    assert should_interrupt(ck, ["a"], [a])
