"""LangGraph's own checkpointer conformance suite (``langgraph-checkpoint-conformance``), on our savers.

Each test function of the suite's spec modules runs as one pytest test, on
the memory, SQLite and PostgreSQL savers, through the public classes
themselves: they are LangGraph checkpointers (``BaseCheckpointSaver`` has
LangGraph's methods, and once LangGraph is imported a saver is an instance
of LangGraph's class; :mod:`engine.checkpoint._langgraph`). Every capability
the suite knows is detected and run, ``copy_thread``, ``delete_for_runs``
and ``prune(strategy="delete")`` included (issue 31 item 2).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.conformance", reason="pip install -e '.[test]' installs the suite")

from langgraph.checkpoint.base import BaseCheckpointSaver as LangGraphSaver  # noqa: E402
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES, DetectedCapabilities  # noqa: E402
from langgraph.checkpoint.conformance.spec import (  # noqa: E402
    test_copy_thread,
    test_delete_for_runs,
    test_delete_thread,
    test_get_tuple,
    test_list,
    test_prune,
    test_put,
    test_put_writes,
)

from engine.checkpoint import BaseCheckpointSaver  # noqa: E402

SUITES = {
    "put": test_put.ALL_PUT_TESTS,
    "put_writes": test_put_writes.ALL_PUT_WRITES_TESTS,
    "get_tuple": test_get_tuple.ALL_GET_TUPLE_TESTS,
    "list": test_list.ALL_LIST_TESTS,
    "delete_thread": test_delete_thread.ALL_DELETE_THREAD_TESTS,
    "prune": test_prune.ALL_PRUNE_TESTS,
    "copy_thread": test_copy_thread.ALL_COPY_THREAD_TESTS,
    "delete_for_runs": test_delete_for_runs.ALL_DELETE_FOR_RUNS_TESTS,
}
CASES = [pytest.param(fn, id=f"{cap}:{fn.__name__}") for cap, fns in SUITES.items() for fn in fns]


@pytest.mark.parametrize("spec", CASES)
def test_langgraph_conformance(saver: BaseCheckpointSaver, spec: Callable[[Any], Any]) -> None:
    asyncio.run(spec(saver))


def test_the_savers_are_langgraph_checkpointers_with_every_capability(saver: BaseCheckpointSaver) -> None:
    assert isinstance(saver, LangGraphSaver)
    detected = DetectedCapabilities.from_instance(saver).detected
    assert detected == ALL_CAPABILITIES and {c.value for c in detected} == set(SUITES)


# -- what running the suite found (issue 14 items 15, 16) -------------------------------
def _checkpoint(versions: dict[str, Any]) -> dict[str, Any]:
    from engine._internal._ids import checkpoint_id, now_iso

    return {
        "v": 1, "id": checkpoint_id(), "ts": now_iso(), "channel_values": {k: "x" for k in versions},
        "channel_versions": versions, "versions_seen": {}, "updated_channels": None,
    }  # fmt: skip


@pytest.mark.parametrize("version", ["00000000000000000000000000000001.0", 1.5, True], ids=["str", "float", "bool"])
def test_put_refuses_versions_that_are_not_ints(saver: BaseCheckpointSaver, version: Any) -> None:
    cfg = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    with pytest.raises(ValueError, match=r"channel_versions\['a'\] is .*channel versions are integers"):
        saver.put(cfg, _checkpoint({"a": version}), {"source": "loop", "step": 0, "parents": {}}, {"a": version})
    assert saver.get_tuple(cfg) is None  # nothing stored; the thread stays readable
    saver.put(cfg, _checkpoint({"a": 1}), {"source": "loop", "step": 0, "parents": {}}, {"a": 1})
    assert saver.get_tuple(cfg).checkpoint["channel_versions"] == {"a": 1}


def test_metadata_filters_compare_json_types_exactly(saver: BaseCheckpointSaver) -> None:
    cfg = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    for step, flag in ((0, False), (1, True)):
        last = saver.put(cfg, _checkpoint({}), {"source": "loop", "step": step, "flag": flag, "parents": {}}, {})
        cfg = {"configurable": {**last["configurable"]}}

    def steps(**filter: Any) -> list[int]:
        return [t.metadata["step"] for t in saver.list({"configurable": {"thread_id": "t"}}, filter=filter)]

    assert steps(step=False) == [] and steps(step=True) == []
    assert steps(step=0) == [0] and steps(step=1.0) == [1]
    assert steps(flag=False) == [0] and steps(flag=0) == [] and steps(flag=True) == [1]
