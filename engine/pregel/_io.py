"""A run's input and output as channel writes and values: pure functions.

The loop writes a call's input to the START channel (the START node's
writer maps it onto the state's keys), reads the run's values off the
output keys' channels, reports a task's update as its writes to the state's
keys, and gives each task a config of its own. None of this touches a saver
or an event: plain data in, plain data out.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from engine.channels.base import BaseChannel
from engine.types import START

__all__ = ["input_writes", "output_values", "task_update", "task_config", "task_namespace"]


def input_writes(inp: Any) -> list[tuple[str, Any]]:
    """The writes of a call's new input: all of it to START, whose node maps it onto the state."""
    return [(START, inp)]


def output_values(channels: Mapping[str, BaseChannel], keys: Iterable[str] | str) -> Any:
    """The values of the output ``keys`` whose channels hold one.

    ``keys`` one channel's name (an entrypoint's END): that channel's value
    itself, None while it holds none, as LangGraph reads a single output channel.
    """
    if isinstance(keys, str):
        ch = channels.get(keys)
        return ch.get() if ch is not None and ch.is_available() else None
    out = {}
    for k in keys:
        ch = channels.get(k)
        if ch is not None and ch.is_available():
            out[k] = ch.get()
    return out


def task_update(writes: Iterable[tuple[str, Any]], state_keys: frozenset[str] | str) -> Any:
    """A task's update, as events report it: its writes to state keys (None if it wrote none).

    ``state_keys`` one channel's name: the value written to it (an entrypoint's return value).
    """
    if isinstance(state_keys, str):
        return next((v for k, v in writes if k == state_keys), None)
    upd = {k: v for k, v in writes if k in state_keys}
    return upd or None


def task_namespace(parent_ns: str, node: str, task_id: str) -> str:
    """A task's ``checkpoint_ns``: ``node:task_id``, under its run's own namespace (``|``-joined)."""
    own = f"{node}:{task_id}"
    return f"{parent_ns}|{own}" if parent_ns else own


def task_config(
    config: Mapping[str, Any],
    configurable: Mapping[str, Any],
    metadata: Mapping[str, Any],
    *,
    checkpoint_ns: str,
    node: str,
    step: int,
    triggers: tuple[str, ...],
    run_id: str,
) -> dict[str, Any]:
    """The config a task's node receives: the run's, with LangGraph's per-task keys."""
    meta = {
        **metadata,
        "langgraph_step": step,
        "langgraph_node": node,
        "langgraph_triggers": triggers,
        "langgraph_checkpoint_ns": checkpoint_ns,
    }
    return {**config, "configurable": {**configurable, "checkpoint_ns": checkpoint_ns}, "metadata": meta, "run_id": run_id}
