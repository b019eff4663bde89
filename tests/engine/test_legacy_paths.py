"""LangGraph's legacy ``langgraph.utils`` shims, which packages written for LangGraph 0.x still import.

langmem 0.0.30 and trustcall 0.0.39 import ``langgraph.utils.config``'s
``get_store``, ``get_config`` and ``ensure_config`` and ``langgraph.utils.runnable``'s
``RunnableCallable``: under the import swap they failed to import
(tests/sidebyside/langmem_tools.py runs langmem's memory tools on both). The
names are the engine's own.
"""

from __future__ import annotations

import typing

import engine.config
from engine._internal import _config, _runnable
from engine._internal._constants import CONFIG_KEY_RUNTIME


def test_the_legacy_utils_modules_name_the_engines_own() -> None:
    from engine.utils import config, runnable

    assert config.get_store is engine.config.get_store and config.get_config is engine.config.get_config
    assert config.ensure_config is _config.ensure_config and config.patch_configurable is _config.patch_configurable
    assert runnable.RunnableCallable is _runnable.RunnableCallable and runnable.RunnableLike is _runnable.RunnableLike


def test_the_runtime_key_is_langgraphs() -> None:
    assert CONFIG_KEY_RUNTIME == "__pregel_runtime"


def test_langgraphs_other_module_paths_name_the_engines_own() -> None:
    # Public modules of LangGraph's distributions a program or a saver written for it imports by path.
    from engine.checkpoint.postgres import PostgresSaver, ShallowPostgresSaver
    from engine.checkpoint.postgres.aio import AsyncPostgresSaver, AsyncShallowPostgresSaver
    from engine.checkpoint.postgres.base import BasePostgresSaver
    from engine.checkpoint.postgres.shallow import AsyncShallowPostgresSaver as shallow_async
    from engine.managed import IsLastStep, RemainingSteps, is_managed_value
    from engine.managed.base import is_managed_value as base_is_managed
    from engine.managed.is_last_step import IsLastStep as last, RemainingSteps as remaining
    from engine.store.base import ensure_embeddings
    from engine.store.base.embed import ensure_embeddings as embed
    from engine.store.postgres import PoolConfig, PostgresStore
    from engine.store.postgres.base import BasePostgresStore
    from engine.store.sqlite import SqliteStore
    from engine.store.sqlite.base import BaseSqliteStore
    from engine.version import __version__

    assert BasePostgresSaver is PostgresSaver and issubclass(AsyncPostgresSaver, BasePostgresSaver)
    assert issubclass(ShallowPostgresSaver, PostgresSaver) and shallow_async is AsyncShallowPostgresSaver
    assert last is IsLastStep and remaining is RemainingSteps and base_is_managed is is_managed_value
    assert embed is ensure_embeddings and BasePostgresStore is PostgresStore and BaseSqliteStore is SqliteStore
    assert set(PoolConfig.__annotations__) == {"min_size", "max_size", "kwargs"}
    assert __version__ == "1.2.22"  # the LangGraph release the engine follows


def test_the_checkpoint_bases_names_for_savers_written_against_langgraphs() -> None:
    from engine.checkpoint.base import (
        EXCLUDED_METADATA_KEYS, LATEST_VERSION, EmptyChannelError, empty_checkpoint, get_checkpoint_metadata,
        get_serializable_checkpoint_metadata, writes_sort_key,
    )  # fmt: skip
    from engine.checkpoint.serde.types import ERROR, TASKS

    assert TASKS == "__pregel_tasks" and ERROR == "__error__" and issubclass(EmptyChannelError, Exception)
    assert empty_checkpoint()["v"] == LATEST_VERSION and "thread_id" in EXCLUDED_METADATA_KEYS
    config = {
        "metadata": {"user": "a\x00b", "n": 2, "obj": {"x": 1}, "__private": "p"},
        "configurable": {"thread_id": "t", "checkpoint_ns": "", "model": "m", "n": 9, "flag": True},
    }
    got = get_checkpoint_metadata(config, {"source": "loop", "note": "x\x00", "writes": {"a": 1}})
    # NULs dropped from text; the config's text and numbers for missing keys, never its ids, objects or private keys
    assert got == {"source": "loop", "note": "x", "writes": {"a": 1}, "user": "ab", "n": 2, "model": "m", "flag": True}
    assert "writes" not in get_serializable_checkpoint_metadata(config, {"writes": 1})
    assert sorted([("b", "t2", 0), ("a", "t9", 1), ("a", "t1", 3)], key=lambda w: writes_sort_key(*w))[0] == ("a", "t1", 3)


def test_uuid6_is_a_time_ordered_version_6() -> None:
    import time

    from engine.checkpoint.base.id import uuid6

    made = [uuid6(clock_seq=i) for i in range(50)]
    assert all(u.version == 6 for u in made) and [str(u) for u in made] == sorted(str(u) for u in made)
    assert len(set(made)) == 50 and abs(made[0].unix_ns - time.time_ns()) < 60e9
    assert uuid6(node=0xABC, clock_seq=7).int & 0xFFFF_FFFF_FFFF == 0xABC and (uuid6(clock_seq=7).int >> 48) & 0x3FFF == 7


def test_langgraphs_typed_stream_parts_name_the_keys_of_the_engines_parts() -> None:
    import engine.types as t

    for name, mode in (("ValuesStreamPart", "values"), ("UpdatesStreamPart", "updates"), ("CustomStreamPart", "custom"),
                       ("MessagesStreamPart", "messages"), ("TasksStreamPart", "tasks"), ("CheckpointStreamPart", "checkpoints"),
                       ("DebugStreamPart", "debug")):  # fmt: skip
        part = getattr(t, name)
        assert {"type", "ns", "data"} <= set(typing.get_type_hints(part)) and typing.get_type_hints(part)["type"] == typing.Literal[mode]
    assert set(t.TaskPayload.__annotations__) == {"id", "name", "input", "triggers", "metadata"}
    assert set(t.CheckpointPayload.__annotations__) == {"config", "metadata", "values", "next", "parent_config", "tasks"}
    assert t.ValuesStreamPart[int] is not None and t.DebugPayload[int] is not None  # generic, as LangGraph's


def test_a_compiled_graph_an_entrypoint_and_a_remote_graph_are_pregel_protocols() -> None:
    from engine.func import entrypoint
    from engine.graph import START, StateGraph
    from engine.pregel.protocol import PregelProtocol
    from engine.pregel.remote import RemoteGraph

    class S(typing.TypedDict):
        n: int

    g = StateGraph(S)
    g.add_node("a", lambda s: s)
    g.add_edge(START, "a")

    @entrypoint()
    def flow(x: int) -> int:
        return x

    assert isinstance(g.compile(), PregelProtocol) and isinstance(flow, PregelProtocol) and issubclass(RemoteGraph, PregelProtocol)
    assert not isinstance(g, PregelProtocol) and not isinstance(object(), PregelProtocol)
