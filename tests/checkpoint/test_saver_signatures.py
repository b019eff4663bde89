"""The write methods' signatures are kept on them (engine.checkpoint._sync_twins.keep_signatures):
LangGraph's loop asks every run whether a checkpointer's put_writes takes task_path."""

from __future__ import annotations

import inspect
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver as LangGraphBase
from langgraph.pregel._checkpoint import put_writes_accepts_task_path

from engine.checkpoint import InMemorySaver, SqliteSaver


def test_our_savers_put_writes_take_task_path_as_inspect_finds_it() -> None:
    saver = InMemorySaver()
    for method in (saver.put_writes, saver.aput_writes, SqliteSaver.put_writes, SqliteSaver.aput_writes):
        assert "__signature__" in inspect.unwrap(method).__dict__ or "__signature__" in method.__func__.__dict__  # type: ignore[attr-defined]
        assert put_writes_accepts_task_path(method)
    assert str(inspect.signature(saver.put_writes)).startswith("(config")  # a bound method: self dropped, as always


def test_a_subclass_put_writes_without_task_path_says_so() -> None:
    class Old(InMemorySaver):
        def put_writes(self, config: Any, writes: Any, task_id: str) -> None:  # type: ignore[override]
            super().put_writes(config, writes, task_id)

    old = Old()
    assert not put_writes_accepts_task_path(old.put_writes)
    assert list(inspect.signature(old.put_writes).parameters) == ["config", "writes", "task_id"]
    assert put_writes_accepts_task_path(old.aput_writes)  # its own async face is still ours


def test_langgraphs_own_base_is_left_as_it_is() -> None:
    InMemorySaver()  # adopts LangGraph's base beneath ours
    assert "__signature__" not in LangGraphBase.put_writes.__dict__
