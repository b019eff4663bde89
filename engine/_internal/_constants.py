"""LangGraph's private constants (``langgraph._internal._constants``) that name what the engine stores and shows.

Only those whose value means the same here: the special pending-write
channels of a saved version (``ERROR``, ``ERROR_SOURCE_NODE``, ``INTERRUPT``,
``RESUME``, ``NO_WRITES``), the Send channel, a task's path kinds (``PULL``, ``PUSH``),
the namespace separators, the null task's id and the Overwrite marker.
Code written against LangGraph reads a thread's pending writes and task
paths with them. And the ``configurable`` keys a ``RemoteGraph`` reads or
leaves out of what it sends (:mod:`engine.pregel._remote_wire`): a parent's
stream (``CONFIG_KEY_STREAM``), a task's id and strict resuming; and a task's
state reader and writer (``CONFIG_KEY_READ``, ``CONFIG_KEY_SEND``: :mod:`engine.pregel._local`).
"""

from __future__ import annotations

from engine.channels.binop import _OVERWRITE as OVERWRITE
from engine.checkpoint.base import ERROR, INTERRUPT, RESUME
from engine.func._entrypoint import PREVIOUS
from engine.pregel._local import CONFIG_KEY_CHECKPOINTER, CONFIG_KEY_READ, CONFIG_KEY_RUNTIME, CONFIG_KEY_SEND
from engine.pregel._remote_wire import CONFIG_KEY_STREAM
from engine.pregel._resume import CONFIG_KEY_STRICT_RESUME
from engine.pregel._spec import ERROR_SOURCE_NODE, NO_WRITES, NULL_TASK_ID, PULL, PUSH, TASKS
from engine.types import END, START

__all__ = [
    "CONF", "CONFIG_KEY_CHECKPOINTER", "CONFIG_KEY_READ", "CONFIG_KEY_RUNTIME", "CONFIG_KEY_SEND", "CONFIG_KEY_STREAM", "CONFIG_KEY_STRICT_RESUME", "CONFIG_KEY_TASK_ID", "END", "ERROR", "ERROR_SOURCE_NODE",
    "INPUT", "INTERRUPT", "NO_WRITES", "NS_END", "NS_SEP", "NULL_TASK_ID", "OVERWRITE", "PREVIOUS", "PULL", "PUSH", "RESUME", "START", "TASKS",
]

CONF = "configurable"
#: the source of an input version's writes (``update_state(as_node="__input__")``)
INPUT = "__input__"
NS_SEP = "|"
NS_END = ":"
CONFIG_KEY_TASK_ID = "__pregel_task_id"
