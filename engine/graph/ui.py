"""Generative UI messages (``langgraph.graph.ui``): a node pushes a UI component for the client to
render, beside the chat.

A node calls :func:`push_ui_message` with a component's name and props: the message goes out at
once on the "custom" stream (what LangGraph's SDKs' ``useStream`` reads as ``onCustomEvent``), and,
unless ``state_key`` is None, is written to that state key (``ui`` by default), whose reducer is
:func:`ui_message_reducer`, so the thread keeps its UI. :func:`delete_ui_message` takes one away
the same two ways. A message pushed again with an existing id replaces it (``merge=True``: its
props are merged into the earlier ones).
"""

from __future__ import annotations

import uuid
from typing import Any, Literal, cast

from typing_extensions import TypedDict

from engine.config import get_config, get_stream_writer
from engine.constants import CONF
from engine.pregel._local import CONFIG_KEY_SEND

__all__ = ("AnyUIMessage", "RemoveUIMessage", "UIMessage", "delete_ui_message", "push_ui_message", "ui_message_reducer")


class UIMessage(TypedDict):
    """A UI component for the client to render: its ``name``, its ``props``, and ``metadata``
    (``merge``, the run's ``run_id``, ``tags`` and ``name``, the ``message_id`` it goes with)."""

    type: Literal["ui"]
    id: str
    name: str
    props: dict[str, Any]
    metadata: dict[str, Any]


class RemoveUIMessage(TypedDict):
    """Take the UI message ``id`` away."""

    type: Literal["remove-ui"]
    id: str


AnyUIMessage = UIMessage | RemoveUIMessage


def _message_id(message: Any) -> Any:
    if isinstance(message, dict):
        return message.get("id")
    return getattr(message, "id", None)


def push_ui_message(
    name: str,
    props: dict[str, Any],
    *,
    id: str | None = None,
    metadata: dict[str, Any] | None = None,
    message: Any = None,
    state_key: str | None = "ui",
    merge: bool = False,
) -> UIMessage:
    """Send a UI message on the "custom" stream and write it to ``state_key`` (none when None).

    Args:
        name: the component to render.
        props: its properties.
        id: the message's id (default: a new UUID); an existing one is replaced.
        metadata: more metadata, over the message's own.
        message: the chat message (a LangChain message or a dict) this UI goes with: its id is
            the metadata's ``message_id``.
        state_key: the state key keeping the thread's UI (its reducer :func:`ui_message_reducer`).
        merge: replace an earlier message of this id with these props merged into its own.

    Returns:
        The message sent.
    """
    config = get_config()
    message_id = _message_id(message) if message else None
    event: UIMessage = {
        "type": "ui",
        "id": id or str(uuid.uuid4()),
        "name": name,
        "props": props,
        "metadata": {
            "merge": merge,
            "run_id": config.get("run_id"),
            "tags": config.get("tags"),
            "name": config.get("run_name"),
            **(metadata or {}),
            **({"message_id": message_id} if message_id else {}),
        },
    }
    get_stream_writer()(event)
    if state_key:
        config[CONF][CONFIG_KEY_SEND]([(state_key, event)])
    return event


def delete_ui_message(id: str, *, state_key: str = "ui") -> RemoveUIMessage:
    """Send the removal of UI message ``id`` on the "custom" stream and write it to ``state_key``.

    Returns:
        The removal sent.
    """
    config = get_config()
    event: RemoveUIMessage = {"type": "remove-ui", "id": id}
    get_stream_writer()(event)
    config[CONF][CONFIG_KEY_SEND]([(state_key, event)])
    return event


def ui_message_reducer(left: list[AnyUIMessage] | AnyUIMessage, right: list[AnyUIMessage] | AnyUIMessage) -> list[AnyUIMessage]:
    """The state's UI messages after an update: ``right``'s added in order, one with an id already
    there replacing it in place (its props merged into the earlier ones when its metadata says
    ``merge``), a removal taking its id away (a later message of that id in the same update
    brings it back).

    Raises:
        ValueError: a removal of an id that is in neither list.
    """
    merged = list(left) if isinstance(left, list) else [left]
    updates = right if isinstance(right, list) else [right]
    at = {m.get("id"): i for i, m in enumerate(merged)}
    removed: set[Any] = set()
    for update in updates:
        key = update.get("id")
        i = at.get(key)
        if i is None:
            if update.get("type") == "remove-ui":
                raise ValueError(f"cannot remove the UI message {key!r}: a UI message with that ID doesn't exist")
            at[key] = len(merged)
            merged.append(update)
        elif update.get("type") == "remove-ui":
            removed.add(key)
        else:
            removed.discard(key)
            if cast(UIMessage, update).get("metadata", {}).get("merge", False):
                update = cast(UIMessage, {**update, "props": {**cast(UIMessage, merged[i])["props"], **cast(UIMessage, update)["props"]}})
            merged[i] = update
    return [m for m in merged if m.get("id") not in removed]
