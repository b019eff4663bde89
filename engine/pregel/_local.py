"""LangGraph's task-local state readers and writers, as a node's config carries them.

LangGraph puts two functions in every task's ``configurable``:
``__pregel_read`` (``CONFIG_KEY_READ``), a partial of its ``local_read`` over
the graph's channels, which reads the state as the task was planned (with
``fresh=True``, the task's own writes so far applied through the channels'
reducers), and ``__pregel_send`` (``CONFIG_KEY_SEND``), which adds writes to
the task's, committed with its result at the end of the step. Packages read
and write state through them from deep inside a node (deepagents' default
``StateBackend`` keeps an agent's files in state that way: a tool writes a
file, then reads it back, in one step). The engine's tasks carry both, made
here: the reader a partial of :func:`local_read` over the graph's channels
(``args[1]``, as LangGraph's), the sender :func:`local_send`; both find the
running task through its context.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Mapping, Sequence

from engine._internal._task import _ctx as _task  # the running task, or RuntimeError
from engine.channels.base import MISSING, BaseChannel, EmptyChannelError

__all__ = ["CONFIG_KEY_CHECKPOINTER", "CONFIG_KEY_READ", "CONFIG_KEY_RUNTIME", "CONFIG_KEY_SEND", "local_read", "local_send", "local_faces"]

CONFIG_KEY_READ = "__pregel_read"
CONFIG_KEY_SEND = "__pregel_send"
#: a saver a caller passes to a root run or state read in its config (:func:`engine.pregel._savers.root_saver`)
CONFIG_KEY_CHECKPOINTER = "__pregel_checkpointer"
#: where LangGraph's node config carries the task's Runtime; the engine's tasks reach theirs through their context
#: (``get_runtime()``), so a node's config has none; a caller's config may seed one (a run takes its store, and
#: its context when the call gives none: engine.pregel._launch)
CONFIG_KEY_RUNTIME = "__pregel_runtime"

_sending = threading.Lock()  # a node's threads (a ToolNode's tools) may send at once


def local_read(_scratchpad: Any, channels: Mapping[str, BaseChannel], select: str | Sequence[str], fresh: bool = False) -> Any:
    """The running task's state: ``select`` a channel's value (None when it has none), or a list's
    values (those with one, as a dict); with ``fresh``, the task's writes so far applied first.
    (``_scratchpad``: LangGraph's first argument, none here; the partial's ``args[1]`` is the channels.)"""
    ctx = _task("reading the state (CONFIG_KEY_READ)")
    state = ctx.state or {}
    writes = (ctx.pushed or ()) if fresh else ()
    keys = [select] if isinstance(select, str) else list(select)
    values: dict[str, Any] = {}
    for key in keys:
        mine = [v for c, v in writes if c == key]
        if mine and key in channels:
            ch = channels[key].from_checkpoint(state[key] if key in state else MISSING)
            ch.update(mine)
            try:
                values[key] = ch.get()
            except EmptyChannelError:
                pass
        elif key in state:
            values[key] = state[key]
    return values.get(select) if isinstance(select, str) else values


def local_send(writes: Sequence[tuple[str, Any]]) -> None:
    """Add ``writes`` (``(channel, value)`` pairs) to the running task's, before those of its result."""
    ctx = _task("sending writes (CONFIG_KEY_SEND)")
    with _sending:
        ctx.pushed = [*(ctx.pushed or ()), *writes]


def local_faces(channels: Mapping[str, BaseChannel]) -> dict[str, Any]:
    """The two ``configurable`` entries of a run's tasks, made once a run."""
    return {CONFIG_KEY_READ: functools.partial(local_read, None, channels), CONFIG_KEY_SEND: local_send}
