"""LangGraph's generic classes are generic on the engine too, with as many type parameters.

A program or a package written for LangGraph names them in annotations that
Python evaluates (``def make(saver: BaseCheckpointSaver[str])``, a dataclass
field, ``typing.get_type_hints``) and subclasses them parametrised (a channel
of its own: ``class Counter(BaseChannel[int, int, int])``; LangChain's agents
test kit: ``Iterator[BaseCheckpointSaver[str]]``); on the engine each was a
TypeError at import. The list is LangGraph 1.2.22's public generic classes
(every class with type parameters that its public modules define or export),
read off LangGraph itself: the module, the name, how many parameters.
"""

from __future__ import annotations

import importlib
import typing
from typing import Any, Sequence

import pytest

LANGGRAPH_GENERICS = [
    ("langgraph.cache.base", "BaseCache", 1),
    ("langgraph.channels", "AnyValue", 1),
    ("langgraph.channels", "BaseChannel", 3),
    ("langgraph.channels", "BinaryOperatorAggregate", 1),
    ("langgraph.channels", "DeltaChannel", 1),
    ("langgraph.channels", "EphemeralValue", 1),
    ("langgraph.channels", "LastValue", 1),
    ("langgraph.channels", "LastValueAfterFinish", 1),
    ("langgraph.channels", "NamedBarrierValue", 1),
    ("langgraph.channels", "NamedBarrierValueAfterFinish", 1),
    ("langgraph.channels", "Topic", 1),
    ("langgraph.channels", "UntrackedValue", 1),
    ("langgraph.channels.base", "BaseChannel", 3),
    ("langgraph.checkpoint.base", "BaseCheckpointSaver", 1),
    ("langgraph.checkpoint.memory", "BaseCheckpointSaver", 1),
    ("langgraph.func", "entrypoint", 1),
    ("langgraph.graph", "StateGraph", 4),
    ("langgraph.graph.state", "CompiledStateGraph", 4),
    ("langgraph.prebuilt", "ToolRuntime", 2),
    ("langgraph.pregel", "Pregel", 4),
    ("langgraph.runtime", "Runtime", 1),
    ("langgraph.types", "CachePolicy", 1),
    ("langgraph.types", "Command", 1),
    ("langgraph.types", "GraphOutput", 1),
    ("langgraph.types", "Interrupt", 1),
]


@pytest.mark.parametrize(("module", "name", "count"), LANGGRAPH_GENERICS, ids=[f"{m}.{n}" for m, n, _ in LANGGRAPH_GENERICS])
def test_a_langgraph_generic_class_takes_its_type_parameters(module: str, name: str, count: int) -> None:
    cls = getattr(importlib.import_module(module.replace("langgraph", "engine", 1)), name)
    args = (int, str, float, bytes)[:count]
    alias = cls[args if count > 1 else args[0]]
    assert typing.get_origin(alias) is cls
    assert typing.get_args(alias) == args


def test_a_channel_and_a_saver_subclassed_parametrised_are_subclasses() -> None:
    from engine.channels import BaseChannel, LastValue
    from engine.checkpoint.base import V, BaseCheckpointSaver
    from engine.checkpoint.memory import InMemorySaver

    class Counter(BaseChannel[int, int, int]):
        pass

    class Saver(InMemorySaver, BaseCheckpointSaver[str]):  # as LangGraph's own savers declare themselves
        pass

    class Last(LastValue[Sequence[Any]]):
        pass

    assert issubclass(Counter, BaseChannel) and issubclass(Last, LastValue)
    assert issubclass(Saver, BaseCheckpointSaver) and V.__constraints__ == (int, float, str)
    assert Saver().get_tuple({"configurable": {"thread_id": "t"}}) is None
