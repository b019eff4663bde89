"""graphwire's engine: LangGraph-compatible agent graphs, in process.

A graph written for LangGraph runs here after changing its imports::

    from engine import StateGraph, START, END, interrupt, Command
"""

from engine.errors import (
    EmptyInputError,
    GraphInterrupt,
    GraphRecursionError,
    GraphwireError,
    InvalidUpdateError,
    NodeInterrupt,
)
from engine.graph import CompiledStateGraph, StateGraph, add_messages
from engine.pregel._context import get_config, get_message_writer, get_stream_writer, interrupt
from engine.types import END, START, Command, Interrupt, RetryPolicy, Send, StateSnapshot

__all__ = [
    "StateGraph",
    "CompiledStateGraph",
    "START",
    "END",
    "Send",
    "Command",
    "Interrupt",
    "interrupt",
    "add_messages",
    "get_stream_writer",
    "get_message_writer",
    "get_config",
    "RetryPolicy",
    "StateSnapshot",
    "GraphwireError",
    "GraphInterrupt",
    "NodeInterrupt",
    "GraphRecursionError",
    "InvalidUpdateError",
    "EmptyInputError",
]
