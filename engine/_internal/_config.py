"""LangGraph's config helpers under their private path (``langgraph._internal._config``).

langgraph-supervisor imports :func:`patch_configurable` from there; LangGraph's
own tests import the default recursion limit and the callback-manager helpers.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from engine._langchain import async_callback_manager, callback_manager

if TYPE_CHECKING:
    from langchain_core.callbacks.manager import AsyncCallbackManager, CallbackManager

__all__ = [
    "DEFAULT_RECURSION_LIMIT",
    "get_async_callback_manager_for_config",
    "get_callback_manager_for_config",
    "patch_configurable",
]


class _DefaultRecursionLimit(int):
    """The recursion limit a run gets when its config names none.

    A type of its own, as LangGraph's: a value of this type was filled in, not
    chosen, so a limit a caller sets that happens to equal it still counts.
    """


DEFAULT_RECURSION_LIMIT = _DefaultRecursionLimit(os.environ.get("LANGGRAPH_DEFAULT_RECURSION_LIMIT", "10007"))

#: configurable keys never copied into a tracer's metadata (they may hold credentials)
_PRIVATE_WORDS = ("key", "token", "secret", "password", "auth")


def patch_configurable(config: Mapping[str, Any] | None, patch: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``config`` whose ``configurable`` also holds ``patch``'s keys (they win)."""
    if config is None:
        return {"configurable": dict(patch)}
    out = dict(config)
    out["configurable"] = {**(config.get("configurable") or {}), **patch}
    return out


def _tracer_metadata(config: Mapping[str, Any]) -> dict[str, Any] | None:
    """The configurable's plain values a tracer sees as metadata (not dunder keys, not credentials)."""
    shown = {
        key: value
        for key, value in (config.get("configurable") or {}).items()
        if not key.startswith("__")
        and isinstance(value, (str, int, float, bool))
        and not any(word in key.casefold() for word in _PRIVATE_WORDS)
    }
    return shown or None


def _manager(kind: Any, config: Mapping[str, Any], tags: Sequence[str] | None) -> Any:
    """The config's callbacks as a ``kind`` manager: the config's own if it is one (given the tags and
    metadata), else a new one inheriting the config's callbacks, tags (then ``tags``) and metadata."""
    merged = [*(config.get("tags") or ()), *(tags or ())] if config.get("tags") is not None or tags is not None else None
    callbacks = config.get("callbacks")
    if callbacks and isinstance(callbacks, kind):
        if merged:
            callbacks.add_tags(merged)
        if metadata := config.get("metadata"):
            callbacks.add_metadata(metadata)
        return callbacks
    traced = _tracer_metadata(config)  # an argument of langchain-core 1.2's; left out when there is none
    extra = {"langsmith_inheritable_metadata": traced} if traced else {}
    return kind.configure(inheritable_callbacks=callbacks, inheritable_tags=merged, inheritable_metadata=config.get("metadata"), **extra)


def get_callback_manager_for_config(config: Mapping[str, Any], tags: Sequence[str] | None = None) -> CallbackManager:
    """LangChain's sync callback manager for ``config`` (needs langchain-core)."""
    manager: CallbackManager = _manager(callback_manager(), config, tags)
    return manager


def get_async_callback_manager_for_config(config: Mapping[str, Any], tags: Sequence[str] | None = None) -> AsyncCallbackManager:
    """LangChain's async callback manager for ``config`` (needs langchain-core)."""
    manager: AsyncCallbackManager = _manager(async_callback_manager(), config, tags)
    return manager
