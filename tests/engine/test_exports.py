"""The public surface is pinned: changing it is a deliberate act."""

from __future__ import annotations

import inspect

import engine
import engine.checkpoint


def test_engine_exports():
    required = {
        "StateGraph", "START", "END", "Send", "Command", "Interrupt", "interrupt", "add_messages",
        "get_stream_writer", "RetryPolicy", "GraphInterrupt", "GraphRecursionError", "InvalidUpdateError",
        "EmptyInputError",
    }
    assert required <= set(engine.__all__)
    assert sorted(engine.__all__) == sorted([
        "StateGraph", "CompiledStateGraph", "START", "END", "Send", "Command", "Interrupt", "interrupt",
        "add_messages", "get_stream_writer", "get_message_writer", "get_config", "RetryPolicy", "StateSnapshot",
        "GraphwireError", "GraphInterrupt", "NodeInterrupt", "GraphRecursionError", "InvalidUpdateError",
        "EmptyInputError",
    ])
    for name in engine.__all__:
        assert getattr(engine, name) is not None


def test_checkpoint_exports():
    assert {"InMemorySaver", "SqliteSaver"} <= set(engine.checkpoint.__all__)
    for name in engine.checkpoint.__all__:
        assert hasattr(engine.checkpoint, name)


def test_langgraph_signatures():
    sig = inspect.signature(engine.StateGraph.compile)
    assert {"checkpointer", "interrupt_before", "interrupt_after", "name"} <= set(sig.parameters)
    assert list(inspect.signature(engine.StateGraph.add_conditional_edges).parameters) == ["self", "source", "path", "path_map"]
    assert list(inspect.signature(engine.StateGraph.add_edge).parameters) == ["self", "start_key", "end_key"]
    put = inspect.signature(engine.checkpoint.InMemorySaver.put)
    assert list(put.parameters) == ["self", "config", "checkpoint", "metadata", "new_versions"]
    assert list(inspect.signature(engine.checkpoint.InMemorySaver.put_writes).parameters) == [
        "self", "config", "writes", "task_id", "task_path",
    ]
