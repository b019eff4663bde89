"""LangGraph's config helpers under their private path (``langgraph._internal._config``).

langgraph-supervisor imports :func:`patch_configurable` from there; LangGraph's
own tests import the default recursion limit and the callback-manager helpers.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from engine._langchain import ambient_config, async_callback_manager, callback_manager
from engine.pregel._io import propagated_metadata

if TYPE_CHECKING:
    from langchain_core.callbacks.manager import AsyncCallbackManager, CallbackManager

__all__ = [
    "DEFAULT_RECURSION_LIMIT",
    "ensure_config",
    "merge_configs",
    "merge_metadata",
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

def _given(value: Any) -> bool:
    """Set: a non-empty container, or any other value but None."""
    return len(value) > 0 if isinstance(value, (list, tuple, dict)) else value is not None


def merge_metadata(base: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> dict[str, Any]:
    """``new``'s metadata over ``base``'s, neither changed: later keys win, except ``lc_versions``,
    whose package versions join (one level). Mapping values are copied one level, as LangGraph copies them."""
    out = {key: dict(value) if isinstance(value, Mapping) else value for key, value in (base or {}).items()}
    for key, value in (new or {}).items():
        if key == "lc_versions" and isinstance(out.get(key), Mapping) and isinstance(value, Mapping):
            out[key] = {**out[key], **value}
        else:
            out[key] = dict(value) if isinstance(value, Mapping) else value
    return out


def _fold(out: dict[str, Any], key: str, value: Any) -> None:
    """``value`` of a config's ``key`` folded into ``out``, as LangGraph merges configs: metadata by
    :func:`merge_metadata`, the configurable key by key, tags and callback lists joined, the rest replaced."""
    if key == "metadata":
        out[key] = merge_metadata(out.get(key), value)
    elif key == "configurable":
        out[key] = {**(out.get(key) or {}), **value}
    elif key == "tags":
        out[key] = [*(out.get(key) or ()), *value]
    elif key == "callbacks" and isinstance(value, list) and isinstance(out.get(key), list):
        out[key] = [*out[key], *value]
    else:
        out[key] = value


def merge_configs(*configs: Mapping[str, Any] | None) -> dict[str, Any]:
    """The configs folded left to right, as LangGraph folds them: None and empty containers skipped, later ones win,
    except ``metadata`` (:func:`merge_metadata`), ``configurable`` (key by key), ``tags`` (joined in order),
    ``callbacks`` (lists joined) and a ``recursion_limit`` that is only the default (never overrides)."""
    out: dict[str, Any] = {}
    for config in configs:
        for key, value in (config or {}).items():
            # LangGraph's skips any falsy value; a run keeps a 0 limit, to refuse it. A limit that is
            # only the default (filled in by ensure_config, not chosen) never overrides a chosen one.
            if _given(value) and not (key == "recursion_limit" and isinstance(value, _DefaultRecursionLimit)):
                _fold(out, key, value)
    out.setdefault("configurable", {})
    return out


#: the keys of a config proper; any other key given to :func:`ensure_config` goes into its configurable
_CONFIG_KEYS = ("tags", "metadata", "callbacks", "run_name", "max_concurrency", "recursion_limit", "configurable", "run_id")
#: configurable keys that address a checkpoint lineage of their own
_COORDINATES = ("thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map")


def ensure_config(*configs: Mapping[str, Any] | None) -> dict[str, Any]:
    """A config with every key, LangChain's ambient config (a caller's run) under ``configs`` folded in.

    As LangGraph's: tags join (the ambient ones not repeated), metadata merges as :func:`merge_metadata`,
    configurables merge key by key, except that a config addressing its own checkpoint (a thread id, a
    namespace, a checkpoint id or map) starts from no ambient configurable; keys outside a config's own
    go into its configurable; the configurable's ids (thread_id, checkpoint_ns, ...) are copied into the
    metadata where it has none.
    """
    out: dict[str, Any] = {"tags": [], "metadata": {}, "callbacks": None, "recursion_limit": DEFAULT_RECURSION_LIMIT, "configurable": {}}
    ambient = ambient_config()
    if ambient:
        out.update({k: v.copy() if isinstance(v, (list, dict)) else v for k, v in ambient.items() if _given(v)})
    inherited = set(out["tags"]) if ambient else set()
    if out.get("configurable") and any(
        _given((c.get("configurable") or {}).get(k)) for c in configs if c for k in _COORDINATES
    ):
        out["configurable"] = {}
    for config in configs:
        for key, value in (config or {}).items():
            if not _given(value):
                continue
            if key not in _CONFIG_KEYS:
                out["configurable"] = {**out["configurable"], key: value}
            else:
                _fold(out, key, [t for t in value if t not in inherited] if key == "tags" else value)
    if out["configurable"]:
        out["metadata"] = propagated_metadata(out["configurable"], out["metadata"])
    return out


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
