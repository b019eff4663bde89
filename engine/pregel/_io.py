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
from engine.checkpoint.base import RUN_KEY
from engine.events import CheckpointSaved, RunFinished
from engine.pregel._spec import PULL, PUSH
from engine.types import START, PregelTask

__all__ = [
    "shown_metadata", "input_writes", "output_values", "task_update", "task_config", "task_namespace", "configurable_metadata",
    "saved_event", "finished_event", "propagated_metadata", "with_checkpoint_map", "DURABILITY_KEY",
]




def shown_metadata(metadata: Mapping[str, Any], *, run_ids: bool = False) -> dict[str, Any]:
    """A version's metadata as callers read it: without :data:`RUN_KEY`; with ``run_ids`` (a host's
    view, such as the server's) the run that wrote it as ``run_id``."""
    out = dict(metadata)
    run = out.pop(RUN_KEY, None)
    if run_ids and run is not None:
        out["run_id"] = run
    return out


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
        values = [v for k, v in writes if k == state_keys]
        return values[0] if len(values) == 1 else values or None  # as LangGraph: several writes, their list
    pairs = [(k, v) for k, v in writes if k in state_keys]
    upd = dict(pairs)
    if len(upd) < len(pairs):  # as LangGraph: several writes to one key, each its own ``{key: value}``, in order
        return [{k: v} for k, v in pairs]
    return upd or None


def task_namespace(parent_ns: str, node: str, task_id: str) -> str:
    """A task's ``checkpoint_ns``: ``node:task_id``, under its run's own namespace (``|``-joined)."""
    own = f"{node}:{task_id}"
    return f"{parent_ns}|{own}" if parent_ns else own


#: a task's configurable key holding its run's durability ("sync", "async" or "exit"), LangGraph's name
DURABILITY_KEY = "__pregel_durability"
#: keys of the call's ``configurable`` LangGraph copies into a node's metadata (when set and not there already)
_TO_METADATA = ("thread_id", "checkpoint_id", "checkpoint_ns", "task_id", "run_id", "assistant_id", "graph_id")
#: the run's names for its callbacks, not the node's (LangGraph's node config has neither)
_RUN_ONLY = ("run_id", "run_name")


def propagated_metadata(configurable: Mapping[str, Any], metadata: Mapping[str, Any]) -> dict[str, Any]:
    """``metadata`` with the configurable keys LangGraph copies into a run's and a node's
    callbacks metadata (``thread_id``, ``checkpoint_ns``, ...: when set and not there already)."""
    meta = dict(metadata)
    for key in _TO_METADATA:
        if key not in meta and configurable.get(key):
            meta[key] = configurable[key]
    return meta


def task_config(
    config: Mapping[str, Any],
    configurable: Mapping[str, Any],
    metadata: Mapping[str, Any],
    *,
    checkpoint_ns: str,
    parent_ns: str,
    checkpoint_id: str | None,
    node: str,
    step: int,
    triggers: tuple[str, ...],
    path: tuple[Any, ...],
) -> dict[str, Any]:
    """The config a task's node receives, key by key as LangGraph 1.2 gives it.

    ``configurable``: the call's, plus ``checkpoint_map`` (namespace -> the
    version each enclosing step started from, ``checkpoint_id``), ``checkpoint_id``
    None (the task runs on the newest state) and the task's ``checkpoint_ns``.
    ``metadata``: the call's with the configurable keys LangGraph copies
    (``thread_id``, a ``checkpoint_id`` the call named, ...: :func:`propagated_metadata`,
    which the caller makes once a run); the task's adds ``langgraph_step``,
    ``_node``, ``_triggers``, ``_path`` and ``_checkpoint_ns``. The other keys
    (tags, callbacks, recursion_limit, ...) are the call's, but for its run's
    ``run_id`` and ``run_name``.
    """
    meta = dict(metadata)
    meta["langgraph_step"] = step
    meta["langgraph_node"] = node
    if path[0] == PUSH:  # a Send's task, as LangGraph names it
        meta["langgraph_triggers"] = (PUSH,)
        meta["langgraph_path"] = path
    else:
        meta["langgraph_triggers"] = triggers
        meta["langgraph_path"] = path if path[0] == PULL else (PULL, *path[1:])
    meta["langgraph_checkpoint_ns"] = checkpoint_ns
    conf = {
        **configurable,
        "checkpoint_map": {**(configurable.get("checkpoint_map") or {}), parent_ns: checkpoint_id},
        "checkpoint_id": None,
        "checkpoint_ns": checkpoint_ns,
    }
    out = dict(config)
    for key in _RUN_ONLY:
        out.pop(key, None)
    out["configurable"] = conf
    out["metadata"] = meta
    return out


#: configurable keys LangGraph never copies into a version's metadata
_NOT_METADATA = frozenset(
    {
        "thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "langgraph_step", "langgraph_node",
        "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns",
    }
)  # fmt: skip


def configurable_metadata(configurable: Mapping[str, Any], metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of the call's ``configurable`` a saved version's metadata gains, as LangGraph copies them.

    Those holding a string, number or bool, but for the thread and checkpoint
    ids and namespace, names starting with ``__`` and keys ``metadata`` has.
    """
    return {
        k: v
        for k, v in configurable.items()
        if k not in metadata and k not in _NOT_METADATA and not k.startswith("__") and isinstance(v, (str, int, float, bool))
    }


def saved_event(
    version: Mapping[str, Any], parent: str | None, step: int, source: str, planned: Iterable[Any],
    values: dict[str, Any], metadata: dict[str, Any],
) -> CheckpointSaved:
    """The event of a version saved under ``parent``; ``planned``: the tasks of the step that follows it."""
    planned = list(planned)
    return CheckpointSaved(
        version["id"], parent, step, source, tuple(t.name for t in planned), values, metadata, version["ts"],
        tasks=tuple(PregelTask(t.id, t.name, t.path) for t in planned),
    )


def finished_event(reason: str, error: BaseException | None, interrupts: tuple[Any, ...], checkpoint_id: str | None,
                   values: Any, shown: bool = True) -> RunFinished:
    """How a run ended. A cancelled run names no error (its CancelledError goes on after the event).
    ``shown``: whether a values chunk of the output keys was due in the run (RunFinished.shown)."""
    reported = error if error is not None and reason != "CANCELLED" else None
    return RunFinished(
        reason=reason,  # type: ignore[arg-type]
        checkpoint_id=checkpoint_id,
        values=values,
        error_type=type(reported).__name__ if reported else None,
        error_message=str(reported) if reported else None,
        interrupts=interrupts,
        exception=error,
        shown=shown,
    )


def with_checkpoint_map(config: dict[str, Any] | None, metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A subgraph's version's config as LangGraph's snapshots and checkpoint chunks show it: naming, in ``checkpoint_map``,
    the versions of the namespaces above it (its metadata's ``parents``) and its own."""
    parents = (metadata or {}).get("parents")
    if config is None or not parents:
        return config
    conf = config["configurable"]
    return {**config, "configurable": {**conf, "checkpoint_map": {**parents, conf.get("checkpoint_ns", ""): conf.get("checkpoint_id")}}}
