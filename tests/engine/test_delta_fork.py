"""DeltaChannel threads forked, resumed and run with durability "exit" (issue 29).

Each expectation was observed on LangGraph 1.2.22 with the same program
(``tests/sidebyside/delta_fork.py`` prints ``same``). ``log`` is a
DeltaChannel and ``plain`` a plain reducer key fed the same values: the plain
key needs no replay, so the two must always read back alike.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, StateGraph
from engine.cache.memory import InMemoryCache
from engine.channels import DeltaChannel
from engine.checkpoint.memory import InMemorySaver
from engine.checkpoint.serde.types import _DeltaSnapshot
from engine.types import CachePolicy, Command, Send, interrupt


def concat(state: list, writes: list) -> list:
    out = list(state)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


class S(TypedDict, total=False):
    log: Annotated[list, DeltaChannel(concat, snapshot_frequency=4)]
    plain: Annotated[list, operator.add]
    other: Annotated[list, operator.add]


def both(item: str) -> dict[str, Any]:
    return {"log": [item], "plain": [item]}


def chain(saver: Any, *, defer: bool = False, cache: Any = None) -> Any:
    b = StateGraph(S)
    b.add_node("a", lambda s: both("a"))
    b.add_node("b", lambda s: both("b"), defer=defer, cache_policy=CachePolicy() if cache is not None else None)
    b.add_node("c", lambda s: {})
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    if defer:
        b.add_edge("a", "c")
    b.add_edge("b", END)
    return b.compile(checkpointer=saver, interrupt_after=["a"] if defer else None, cache=cache)


def fan_out(saver: Any) -> Any:
    def q(state: S) -> dict[str, Any]:
        interrupt("continue?")
        return both("q")

    b = StateGraph(S)
    b.add_node("p", lambda s: both("p"))
    b.add_node("q", q)
    b.add_conditional_edges(START, lambda s: [Send("p", s), Send("q", s)], ["p", "q"])
    return b.compile(checkpointer=saver)


def cfg(thread: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def history(graph: Any, saver: Any, config: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Per version, newest first: step, source, log (checked equal to plain), next, whether it stores a snapshot, counters."""
    out = []
    for s in graph.get_state_history(config):
        assert s.values.get("log") == s.values.get("plain")
        t = saver.get_tuple(s.config)
        stored = t.checkpoint["channel_values"].get("log")
        out.append((s.metadata.get("step"), s.metadata.get("source"), s.values.get("log"), list(s.next),
                    isinstance(stored, _DeltaSnapshot), t.metadata.get("counters_since_delta_snapshot")))  # fmt: skip
    return out


# -- update_state on a version the thread moved past ------------------------------------


@pytest.mark.parametrize("edit", [both("edit"), {"other": ["edit"]}], ids=["delta", "plain"])
def test_an_edit_of_an_old_version_stores_nothing_on_it(checkpointer: Any, edit: dict[str, Any]) -> None:
    graph, config = chain(checkpointer), cfg()
    graph.invoke(both("in"), config, interrupt_before=["b"])
    base = graph.get_state(config)
    graph.update_state(config, both("later"), as_node="a")
    graph.update_state(base.config, edit, as_node="b")  # the thread moved past base: a new branch

    cleared = graph.update_state(base.config, None, as_node=END)

    # Clearing base applies the writes stored on it: the edit is not one of them.
    assert graph.get_state(cleared).values == {"log": ["in", "a"], "plain": ["in", "a"], "other": []}
    assert [(h[0], h[1], h[2], h[4]) for h in history(graph, checkpointer, config)][:3] == [
        (2, "update", ["in", "a"], True),
        (2, "update", ["in", "a", "edit"] if "log" in edit else ["in", "a"], True),
        (2, "update", ["in", "a", "later"], False),
    ]


def test_an_update_that_triggers_no_node_leaves_a_deferred_node_due(checkpointer: Any) -> None:
    graph, config = chain(checkpointer, defer=True), cfg()
    graph.invoke(both("in"), config)

    graph.update_state(graph.get_state(config).config, both("u"), as_node="c")

    assert graph.get_state(config).next == ("b",)
    assert graph.invoke(None, config)["log"] == ["in", "a", "u", "b"]
    assert graph.get_state(config).next == ()


# -- a resume whose goto replaces the pending Sends ---------------------------------------


def test_a_resume_replacing_the_sends_reads_back_without_the_dropped_task(checkpointer: Any) -> None:
    graph, config = fan_out(checkpointer), cfg()
    graph.invoke(both("in"), config)

    live = graph.invoke(Command(resume="yes", goto=[Send("q", both("unused"))]), config)

    # The answer goes to the new q (the step's only task); p's stored writes are no child's:
    # the version after the step snapshots the channel.
    assert live == {"log": ["in", "q"], "plain": ["in", "q"], "other": []}
    assert history(graph, checkpointer, config) == [
        (1, "loop", ["in", "q"], [], True, None),
        (0, "loop", ["in"], ["p", "q"], False, {"log": [1, 2]}),
        (-1, "input", [], ["__start__"], False, {"log": [0, 1]}),
    ]


# -- durability="exit" -----------------------------------------------------------------------


def test_exit_stores_the_runs_delta_writes_under_a_stub_and_counts_its_steps(checkpointer: Any) -> None:
    graph, config = chain(checkpointer), cfg()
    assert graph.invoke(both("in-1"), config, durability="exit")["log"] == ["in-1", "a", "b"]

    stored = [(t.metadata.get("step"), t.metadata.get("source"), [w[2] for w in t.pending_writes if w[1] == "log"])
              for t in checkpointer.list(config)]  # fmt: skip
    assert stored == [(2, "loop", []), (-2, None, [["in-1"], ["a"], ["b"]])]
    assert history(graph, checkpointer, config) == [
        (2, "loop", ["in-1", "a", "b"], [], False, {"log": [3, 4]}),
        (-2, None, [], [], False, None),
    ]


def test_exit_snapshots_by_cadence_and_a_replay_leaves_the_newer_branch_alone(checkpointer: Any) -> None:
    graph, config = chain(checkpointer), cfg()
    graph.invoke(both("in-1"), config, durability="exit")
    edit = graph.update_state(config, both("edit"), as_node="a")
    graph.invoke(both("in-2"), config, durability="exit")
    branch = graph.get_state(config)

    replay = graph.invoke(Command(update=both("cmd")), edit, durability="exit")

    assert replay["log"] == ["in-1", "a", "b", "edit", "cmd", "b"]
    assert graph.get_state(branch.config).values["log"] == ["in-1", "a", "b", "edit", "in-2", "a", "b"]
    assert [h[:2] + h[4:] for h in history(graph, checkpointer, config)] == [
        (5, "loop", True, None),  # from a version the call named: the channels it wrote snapshot
        (7, "loop", False, {"log": [3, 4]}),
        (3, "update", True, None),
        (2, "loop", False, {"log": [3, 4]}),
        (-2, None, False, None),
    ]
    for i in range(3):
        graph.invoke(both(f"t{i}"), config, durability="exit")
    # Each run: an input and two node steps, 3 updates in 4 steps; the second reaches 4 updates.
    assert [h[:2] + h[4:] for h in history(graph, checkpointer, config)[:4]] == [
        (17, "loop", False, {"log": [3, 4]}),
        (13, "loop", True, None),
        (9, "loop", False, {"log": [3, 4]}),
        (5, "loop", True, None),
    ]
    assert graph.get_state(config).values["log"][-9:] == ["t0", "a", "b", "t1", "a", "b", "t2", "a", "b"]


def test_exit_new_input_on_an_interrupted_head_does_not_read_its_pending_writes(checkpointer: Any) -> None:
    graph, config = fan_out(checkpointer), cfg()
    graph.invoke(both("in"), config, durability="exit")

    assert graph.invoke(both("in-2"), config, durability="exit")["log"] == ["in", "in-2", "p"]
    assert graph.invoke(Command(resume="yes"), config, durability="exit")["log"] == ["in", "in-2", "p", "q"]
    assert history(graph, checkpointer, config) == [
        (3, "loop", ["in", "in-2", "p", "q"], [], False, {"log": [1, 1]}),
        (2, "loop", ["in", "in-2"], ["p", "q"], True, None),  # the head's p writes belong to the old branch
        (0, "loop", ["in"], ["p", "q"], False, {"log": [1, 2]}),
        (-2, None, [], [], False, None),
    ]


# -- stores ------------------------------------------------------------------------------


class _FailsTheWriteOfBOnce(InMemorySaver):
    failed = False

    async def aput_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        if not self.failed and ("log", ["b"]) in writes:
            self.failed = True
            raise ConnectionError("b's write was not stored")
        await super().aput_writes(config, writes, task_id, task_path)


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_a_version_is_never_stored_without_the_writes_it_reads(durability: Any) -> None:
    saver = _FailsTheWriteOfBOnce()
    graph, config = chain(saver), cfg()
    with pytest.raises(ConnectionError):
        graph.invoke(both("in"), config, durability=durability)
    assert [h[2] for h in history(graph, saver, config)] == [["in", "a"], ["in"], []]  # no version after b

    graph.invoke(None, config, durability=durability)  # b runs again
    assert graph.get_state(config).values["log"] == ["in", "a", "b"]


class _CountsSets(InMemoryCache):
    sets = 0

    def set(self, pairs: Any) -> None:
        self.sets += 1
        super().set(pairs)


@pytest.mark.parametrize("durability", ["sync", "exit"])
def test_the_in_memory_cache_is_sync_at_heart_and_a_hit_is_not_cached_again(durability: Any) -> None:
    saver, cache = InMemorySaver(), _CountsSets()
    graph = chain(saver, cache=cache)
    graph.invoke(both("in"), cfg("1"), durability=durability)
    graph.invoke(both("in"), cfg("2"), durability=durability)
    assert cache.sets == 1
    assert history(graph, saver, cfg("2"))[0][2] == ["in", "a", "b"]


class _AsksForHistory(InMemorySaver):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[list[str]] = []

    def get_delta_channel_history(self, *, config: Any, channels: Any) -> Any:
        self.asked.append(sorted(channels))
        return super().get_delta_channel_history(config=config, channels=channels)


def test_a_saver_overriding_the_sync_history_walk_sees_every_walk() -> None:
    saver = _AsksForHistory()
    graph, config = chain(saver), cfg()
    graph.invoke(both("in"), config)
    saver.asked.clear()
    assert graph.get_state(config).values["log"] == ["in", "a", "b"]
    assert saver.asked and all(a == ["log"] for a in saver.asked)


def test_a_checkpointer_true_graph_read_as_a_root_raises_runtime_error() -> None:
    graph = StateGraph(S).add_node("a", lambda s: both("a")).add_edge(START, "a").compile(checkpointer=True)
    with pytest.raises(RuntimeError, match="checkpointer=True cannot be used"):
        graph.get_state(cfg())
