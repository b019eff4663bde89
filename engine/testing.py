"""Helpers for testing graphs: for graphwire's own tests and for graph authors.

    from engine.testing import thread, history_summary

    app = builder.compile(checkpointer=InMemorySaver())
    app.invoke({"x": 1}, thread("t1"))
    assert history_summary(app, thread("t1")) == [("loop", 1, ()), ("loop", 0, ("a",)), ("input", -1, ("__start__",))]
"""

from __future__ import annotations

from typing import Any

__all__ = ["thread", "history_summary", "checkpoint_ids", "said"]

_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def thread(thread_id: str = "t1", checkpoint_id: str | None = None, **extra: Any) -> dict[str, Any]:
    """A run config naming a thread (and optionally a checkpoint)."""
    c: dict[str, Any] = {"configurable": {"thread_id": thread_id}, **extra}
    if checkpoint_id:
        c["configurable"]["checkpoint_id"] = checkpoint_id
    return c


def history_summary(app: Any, config: dict[str, Any]) -> list[tuple[str, int, tuple[str, ...]]]:
    """``(source, step, next)`` for each version of the thread, newest first."""
    return [(s.metadata["source"], s.metadata["step"], tuple(s.next)) for s in app.get_state_history(config)]


def checkpoint_ids(app: Any, config: dict[str, Any]) -> list[str]:
    """Checkpoint ids of the thread, newest first."""
    return [s.config["configurable"]["checkpoint_id"] for s in app.get_state_history(config)]


def said(message: Any) -> tuple[str | None, Any]:
    """``(role, content)`` of a message, a plain dict or a LangChain message alike.

    With langchain-core installed, ``add_messages`` keeps LangChain messages
    (``type`` "human", "ai", ...); without it, dicts (``role`` "user",
    "assistant", ...). Roles come back in the dict spelling.
    """
    if isinstance(message, dict):
        kind = message.get("type")
        role = message.get("role") or _ROLES.get(str(kind), kind)
        return role, message.get("content")
    kind = getattr(message, "type", None)
    return getattr(message, "role", None) or _ROLES.get(str(kind), kind), getattr(message, "content", None)
