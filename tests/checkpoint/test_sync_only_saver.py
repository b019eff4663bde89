"""A checkpointer written with LangGraph's sync methods only (get_tuple, list, put, put_writes), as LangGraph
users write one: the engine's loop calls the async methods, which call those (engine/checkpoint/_sync_twins.py)."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import START, StateGraph
from engine.checkpoint.base import BaseCheckpointSaver, CheckpointTuple, empty_checkpoint, get_checkpoint_id
from engine.testing import thread
from engine.types import Command, interrupt


class DictSaver(BaseCheckpointSaver):
    """Rows in dicts, the sync methods only; its put_writes predates task paths."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[tuple[str, str, str], tuple[Any, Any, str | None]] = {}
        self.writes: dict[tuple[str, str, str], dict[tuple[str, int], tuple[str, Any]]] = {}
        self.calls: list[str] = []

    @staticmethod
    def _config(thread_id: str, ns: str, checkpoint_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}

    def get_tuple(self, config):
        self.calls.append("get_tuple")
        c = config["configurable"]
        t, ns, wanted = c["thread_id"], c.get("checkpoint_ns", ""), get_checkpoint_id(config)
        keys = [k for k in self.rows if k[:2] == (t, ns) and wanted in (None, k[2])]
        if not keys:
            return None
        key = max(keys, key=lambda k: k[2])
        checkpoint, metadata, parent = self.rows[key]
        writes = [(task_id, ch, v) for (task_id, _), (ch, v) in sorted(self.writes.get(key, {}).items())]
        return CheckpointTuple(self._config(*key), checkpoint, metadata, self._config(t, ns, parent) if parent else None, writes)

    def list(self, config, *, filter=None, before=None, limit=None):
        self.calls.append("list")
        t = config["configurable"]["thread_id"]
        for key in sorted((k for k in self.rows if k[0] == t), key=lambda k: k[2], reverse=True):
            yield self.get_tuple(self._config(*key))

    def put(self, config, checkpoint, metadata, new_versions):
        self.calls.append("put")
        c = config["configurable"]
        t, ns = c["thread_id"], c.get("checkpoint_ns", "")
        self.rows[(t, ns, checkpoint["id"])] = (checkpoint, metadata, c.get("checkpoint_id"))
        return self._config(t, ns, checkpoint["id"])

    def put_writes(self, config, writes, task_id):
        self.calls.append("put_writes")
        c = config["configurable"]
        stored = self.writes.setdefault((c["thread_id"], c.get("checkpoint_ns", ""), c["checkpoint_id"]), {})
        for i, (ch, v) in enumerate(writes):
            stored[(task_id, i)] = (ch, v)


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _graph(saver: BaseCheckpointSaver):
    def ask(s):
        return {"log": [interrupt("ok?")]}

    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("ask", ask)
    g.add_edge(START, "a")
    g.add_edge("a", "ask")
    return g.compile(checkpointer=saver)


def test_a_sync_only_saver_keeps_a_thread_under_invoke():
    saver = DictSaver()
    app = _graph(saver)
    out = app.invoke({"log": ["x"]}, thread())
    assert out["log"] == ["x", "a"] and out["__interrupt__"][0].value == "ok?"
    assert app.invoke(Command(resume="yes"), thread()) == {"log": ["x", "a", "yes"]}
    assert [s.metadata["step"] for s in app.get_state_history(thread())] == [2, 1, 0, -1]
    assert app.get_state(thread()).values == {"log": ["x", "a", "yes"]}
    assert {"get_tuple", "list", "put", "put_writes"} <= set(saver.calls)


def test_and_under_ainvoke():
    saver = DictSaver()
    app = _graph(saver)

    async def main():
        await app.ainvoke({"log": []}, thread())
        return await app.ainvoke(Command(resume="yes"), thread())

    assert asyncio.run(main()) == {"log": ["a", "yes"]}


def test_a_sync_method_that_calls_the_bases_own_says_what_is_missing():
    class Delegating(DictSaver):
        def get_tuple(self, config):
            return super(DictSaver, self).get_tuple(config)  # the base's: it has nothing to call

    with pytest.raises(NotImplementedError, match="Delegating does not implement aget_tuple"):
        Delegating().get_tuple(thread())
    with pytest.raises(NotImplementedError, match="Delegating does not implement aget_tuple"):
        _graph(Delegating()).invoke({"log": []}, thread())


@pytest.mark.parametrize("method", ["get_tuple", "put", "put_writes"])
def test_a_savers_subclass_overriding_a_sync_method_is_called_by_runs(saver, method):
    # As LangGraph's test_checkpoint_errors: the override is what a run calls, under invoke and ainvoke.
    def faulty(self, *args, **kwargs):
        raise ValueError(f"Faulty {method}")

    saver.__class__ = type(f"Faulty{type(saver).__name__}", (type(saver),), {method: faulty})  # a subclass of the saver's
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(START, "a")
    g.add_edge(START, "b")  # two tasks: their writes are put as each finishes
    app = g.compile(checkpointer=saver)
    with pytest.raises(ValueError, match=f"Faulty {method}"):
        app.invoke({"log": []}, thread("sync"), durability="async")
    with pytest.raises(ValueError, match=f"Faulty {method}"):
        asyncio.run(app.ainvoke({"log": []}, thread("async"), durability="async"))


def test_an_override_calling_its_parents_method_reaches_the_parents_work():
    from engine.checkpoint import InMemorySaver

    class Recording(InMemorySaver):
        def __init__(self):
            super().__init__()
            self.seen: list[str] = []

        def put(self, config, checkpoint, metadata, new_versions):
            self.seen.append(checkpoint["id"])
            return super().put(config, checkpoint, metadata, new_versions)

        def get_tuple(self, config):
            found = super().get_tuple(config)
            self.seen.append("read")
            return found

    saver = Recording()
    app = _graph(saver)
    app.invoke({"log": []}, thread())
    assert app.invoke(Command(resume="yes"), thread()) == {"log": ["a", "yes"]}
    history = list(app.get_state_history(thread()))
    assert [s.config["configurable"]["checkpoint_id"] for s in reversed(history)] == [x for x in saver.seen if x != "read"]
    assert "read" in saver.seen


def test_an_override_called_directly_runs_once_a_call_and_reaches_the_parents_work(saver):
    # LangGraph's loop (graphwire's savers under real LangGraph) and a program call the sync methods
    # directly: an override calling super() ran a second time, through the async method it reached.
    seen: list[str] = []

    def counted(name):
        def method(self, *args, **kwargs):
            seen.append(name)
            return getattr(super(cls, self), name)(*args, **kwargs)

        return method

    cls = type(f"Counting{type(saver).__name__}", (type(saver),), {m: counted(m) for m in ("get_tuple", "put", "put_writes")})
    saver.__class__ = cls
    config = {"configurable": {"thread_id": "direct", "checkpoint_ns": ""}}
    written = saver.put(config, {**empty_checkpoint(), "id": "1f0a0000-0000-6000-8000-000000000001"}, {"step": -1}, {})
    saver.put_writes(written, [("log", "w")], "task-1")
    found = saver.get_tuple(written)
    assert seen == ["put", "put_writes", "get_tuple"]
    assert found is not None and found.checkpoint["id"] == get_checkpoint_id(written)
    assert [(t, c, v) for t, c, v in found.pending_writes] == [("task-1", "log", "w")]

    async def inside_a_loop():  # a notebook's cell, an async test: the same, on the caller's thread
        return saver.get_tuple(written)

    assert asyncio.run(inside_a_loop()) == found and seen[-1] == "get_tuple" and len(seen) == 4


def test_a_checkpoint_tuple_is_a_named_tuple_as_langgraphs():
    # LangGraph's CheckpointTuple is a NamedTuple: savers' subclasses unpack it and rewrite it with _replace.
    config, checkpoint, metadata, parent, writes = CheckpointTuple({"configurable": {}}, {"id": "1"}, {"step": 0})  # type: ignore[typeddict-item]
    assert (parent, writes) == (None, None)  # LangGraph's defaults
    changed = CheckpointTuple(config, checkpoint, metadata)._replace(pending_writes=[("t", "c", 1)])
    assert changed.pending_writes == [("t", "c", 1)] and changed.checkpoint is checkpoint


def test_a_saver_whose_tuples_leave_pending_writes_out_and_one_that_reorders_them():
    class WithoutWrites(DictSaver):
        def get_tuple(self, config):
            found = super().get_tuple(config)
            return None if found is None else CheckpointTuple(*found[:4])  # pending_writes None: "no writes"

    app = _graph(WithoutWrites())
    assert app.invoke({"log": ["x"]}, thread())["__interrupt__"][0].value == "ok?"
    state = app.get_state(thread())
    assert state.next == ("ask",) and state.values == {"log": ["x", "a"]}
    assert [s.metadata["step"] for s in app.get_state_history(thread())] == [1, 0, -1]

    class Reordering(DictSaver):
        def get_tuple(self, config):
            found = super().get_tuple(config)
            return found and found._replace(pending_writes=sorted(found.pending_writes or ()))

    app = _graph(Reordering())
    app.invoke({"log": ["x"]}, thread())
    assert app.invoke(Command(resume="yes"), thread()) == {"log": ["x", "a", "yes"]}
