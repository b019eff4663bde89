"""``BaseCheckpointSaver`` has LangGraph's methods, and they behave as LangGraph's (issue 31 item 2).

The conformance suite (test_langgraph_conformance.py) checks the storage
methods; here, the rest of LangGraph's face: every public name of LangGraph's
class defined by ours, the class usable as LangGraph's is (subclassed without
implementing everything), ``get_delta_channel_history``, ``with_allowlist``,
``config_specs``, and the sync faces of ``copy_thread`` / ``delete_for_runs``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.base", reason="the test extra installs LangGraph")

from langgraph.checkpoint.base import BaseCheckpointSaver as LangGraphSaver  # noqa: E402

from engine.checkpoint import BaseCheckpointSaver, InMemorySaver  # noqa: E402
from engine.errors import SerializationError  # noqa: E402
from tests.checkpoint._util import make_cp  # noqa: E402


@dataclasses.dataclass
class Point:
    x: int


def _chain(saver: BaseCheckpointSaver, thread: str, run_ids: list[str]) -> list[dict[str, Any]]:
    """One checkpoint per run id, each the parent of the next, each with a write to ``log``."""
    config: dict[str, Any] = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    made = []
    for i, run_id in enumerate(run_ids, start=1):
        values = {"seed": f"v{i}"} if i == 1 else {}
        config = saver.put(config, make_cp(values, i), {"source": "loop", "step": i, "run_id": run_id}, {"seed": 1} if i == 1 else {})
        saver.put_writes(config, [("log", f"w{i}"), ("other", i)], task_id=f"task{i}")
        made.append(config)
    return made


def test_every_public_method_of_langgraphs_class_is_ours() -> None:
    theirs = {n for n in vars(LangGraphSaver) if not n.startswith("_")}
    ours = {n for klass in BaseCheckpointSaver.__mro__ if klass.__module__.startswith("engine") for n in vars(klass)}
    assert theirs - ours == set()


def test_a_subclass_need_not_implement_everything_and_says_what_it_lacks() -> None:
    class Partial(BaseCheckpointSaver):  # as LangGraph's own test suite subclasses its base
        pass

    saver = Partial()
    assert isinstance(saver, LangGraphSaver) and saver.config_specs == []
    with pytest.raises(NotImplementedError, match="Partial does not implement aget_tuple"):
        saver.get_tuple({"configurable": {"thread_id": "t"}})


def test_delta_channel_history_ends_on_a_parent_chain_that_loops(saver: BaseCheckpointSaver) -> None:
    # A version put again under its own child (by hand: langgraph-checkpoint-sqlite's test does it) makes
    # the parents loop; the walk went round it for ever.
    config = {"configurable": {"thread_id": "loop", "checkpoint_ns": ""}}
    a = saver.put(config, {**make_cp({}, 0), "id": "1f000000-0000-6000-8000-00000000000a"}, {}, {})
    b = saver.put(a, {**make_cp({}, 1), "id": "1f000000-0000-6000-8000-00000000000b"}, {}, {})
    saver.put(b, {**make_cp({}, 0), "id": "1f000000-0000-6000-8000-00000000000a"}, {}, {})
    assert saver.get_delta_channel_history(config=b, channels=["log"]) == {"log": {"writes": []}}


def test_delta_channel_history_walks_the_parents_writes_and_seeds(saver: BaseCheckpointSaver) -> None:
    made = _chain(saver, "t", ["r1", "r2", "r3"])
    history = saver.get_delta_channel_history(config=made[-1], channels=["log", "seed", "none"])
    assert [w[1:] for w in history["log"]["writes"]] == [("log", "w1"), ("log", "w2")]  # the target's own are next step's
    assert history["seed"] == {"writes": [], "seed": "v1"}
    assert history["none"] == {"writes": []}
    assert saver.get_delta_channel_history(config=made[-1], channels=[]) == {}


def test_copy_thread_and_delete_for_runs_sync_faces(saver: BaseCheckpointSaver) -> None:
    _chain(saver, "src", ["r1", "r2", "r3"])
    saver.copy_thread("src", "dst")
    copied = list(saver.list({"configurable": {"thread_id": "dst"}}))
    assert [t.metadata["run_id"] for t in copied] == ["r3", "r2", "r1"]
    assert copied[-1].checkpoint["channel_values"] == {"seed": "v1"}
    saver.delete_for_runs(["r2", "r3"])
    for thread in ("src", "dst"):
        left = list(saver.list({"configurable": {"thread_id": thread}}))
        assert [t.metadata["run_id"] for t in left] == ["r1"]
        assert [w[1:] for w in left[0].pending_writes] == [("log", "w1"), ("other", 1)]


def test_with_allowlist_allows_the_named_classes_on_the_saver_itself() -> None:
    saver = InMemorySaver()
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    with pytest.raises(SerializationError):
        saver.put(config, make_cp({"p": Point(1)}), {}, {"p": 1})
    assert saver.with_allowlist({(__name__, "Point"), ("not.imported.module", "X")}) is saver
    stored = saver.put(config, make_cp({"p": Point(1)}), {}, {"p": 1})
    assert saver.get_tuple(stored).checkpoint["channel_values"] == {"p": Point(1)}


def test_an_empty_checkpoint_id_names_no_version_as_langgraphs_savers_read_it(saver: BaseCheckpointSaver) -> None:
    # tests/sidebyside/empty_checkpoint_id.py: a client that always sends the key reads the newest.
    first, second = _chain(saver, "t", ["r1", "r2"])
    empty = {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": ""}}
    got = saver.get_tuple(empty)
    assert got is not None and got.config["configurable"]["checkpoint_id"] == second["configurable"]["checkpoint_id"]
    assert [t.config for t in saver.list(empty)] == [t.config for t in saver.list({"configurable": {"thread_id": "t"}})]
    assert len(list(saver.list(empty))) == 2
    assert saver.get_delta_channel_history(config=empty, channels=["log"]) == saver.get_delta_channel_history(config=second, channels=["log"])
    assert first != second
