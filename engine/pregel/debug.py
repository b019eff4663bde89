"""LangGraph's debug-stream helpers, at their public path (``langgraph.pregel.debug``).

:func:`map_debug_tasks` is what the "tasks" and "debug" stream modes show of
a task that starts: its id, name, input and triggers, and, when there is
any, the metadata a caller put on its config (its ``metadata``, its tags
without the ``seq:step:<n>`` ones), less the keys the engine adds to every
task's metadata, which repeat the task's own fields. The projector of those
modes (:mod:`engine.pregel._stream`) shows the same through
:func:`task_metadata`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from engine.checkpoint._shapes import EXCLUDED_METADATA_KEYS as _EXCLUDED

__all__ = [
    "EXCLUDED_METADATA_KEYS",
    "TAG_HIDDEN",
    "get_bolded_text",
    "get_colored_text",
    "map_debug_tasks",
    "map_task_result_writes",
    "rm_pregel_keys",
    "node_task_metadata",
    "task_metadata",
    "user_tags",
]

#: a task's metadata keys the task's own fields or namespace already say (LangGraph's one list, which
#: a version's metadata also leaves out of its config: engine.checkpoint._shapes)
EXCLUDED_METADATA_KEYS = frozenset(_EXCLUDED)

#: the tag LangSmith hides a run by: such a task is not shown (``langgraph.constants.TAG_HIDDEN``)
TAG_HIDDEN = "langsmith:hidden"

_COLORS = {
    "black": "0;30", "red": "0;31", "green": "0;32", "yellow": "0;33", "blue": "0;34",
    "magenta": "0;35", "cyan": "0;36", "white": "0;37", "gray": "1;30",
}  # fmt: skip


class _Task(Protocol):
    id: str
    name: str
    input: Any
    triggers: Sequence[str]
    config: Mapping[str, Any] | None


def user_tags(tags: Sequence[str] | None) -> list[str] | None:
    """``tags`` without the ``seq:step:<n>`` ones LangChain's run tree adds; None if none are left."""
    kept = [t for t in tags or () if not t.startswith("seq:step")]
    return kept or None


def task_metadata(metadata: Mapping[str, Any] | None, tags: Sequence[str] | None) -> dict[str, Any]:
    """What a started task's payload shows as ``metadata``: the caller's keys (not :data:`EXCLUDED_METADATA_KEYS`)
    and its tags under ``tags``; empty when there is nothing to show."""
    shown = {k: v for k, v in (metadata or {}).items() if k not in EXCLUDED_METADATA_KEYS}
    if (kept := user_tags(tags)) is not None:
        shown["tags"] = kept
    return shown


def node_task_metadata(metadata: Mapping[str, Any], node_metadata: Mapping[str, Any] | None, tags: Sequence[str] | None) -> dict[str, Any]:
    """A started task's shown metadata: its run's ``metadata`` with its node's own on top (:func:`task_metadata`)."""
    return task_metadata({**metadata, **node_metadata} if node_metadata else metadata, tags)


def map_debug_tasks(tasks: Iterable[_Task]) -> Iterator[dict[str, Any]]:
    """The "task" payloads of ``tasks`` (LangGraph's TaskPayload), hidden ones left out."""
    for task in tasks:
        config = task.config
        if config is not None and TAG_HIDDEN in (config.get("tags") or ()):
            continue
        payload: dict[str, Any] = {"id": task.id, "name": task.name, "input": task.input, "triggers": task.triggers}
        if config is not None and (shown := task_metadata(config.get("metadata"), config.get("tags"))):
            payload["metadata"] = shown
        yield payload


def map_task_result_writes(writes: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """A task's writes as one dict: ``{channel: value}``, or ``{channel: {"$writes": [...]}}`` for several."""
    result: dict[str, Any] = {}
    for channel, value in writes:
        before = result.get(channel)
        if before is None:  # as LangGraph's: a None written first counts as nothing written
            result[channel] = value
            continue
        many = isinstance(before, dict) and isinstance(before.get("$writes"), list)
        result[channel] = {"$writes": [*(before["$writes"] if many else [before]), value]}
    return result


def rm_pregel_keys(config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``config``'s configurable without the engine's ``__pregel_*`` keys (None stays None)."""
    if config is None:
        return None
    return {"configurable": {k: v for k, v in (config.get("configurable") or {}).items() if not k.startswith("__pregel_")}}


def get_colored_text(text: str, color: str) -> str:
    """``text`` in a terminal colour (one of black, red, green, yellow, blue, magenta, cyan, white, gray)."""
    return f"\033[1;3{_COLORS[color]}m{text}\033[0m"


def get_bolded_text(text: str) -> str:
    """``text`` in bold on a terminal."""
    return f"\033[1m{text}\033[0m"
