"""The running task's context, for the loop (defined in :mod:`engine._internal._task`)."""

from __future__ import annotations

from engine._internal._task import (
    CURRENT,
    TaskContext,
    get_config,
    get_message_writer,
    get_store,
    get_stream_writer,
    interrupt,
    interrupt_id,
)

__all__ = [
    "TaskContext", "interrupt", "interrupt_id", "get_stream_writer", "get_message_writer", "get_config", "get_store",
    "CURRENT",
]
