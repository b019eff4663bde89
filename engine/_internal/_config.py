"""LangGraph's config helpers under their private path (``langgraph._internal._config``).

langgraph-supervisor imports :func:`patch_configurable` from there.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["patch_configurable"]


def patch_configurable(config: Mapping[str, Any] | None, patch: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``config`` whose ``configurable`` also holds ``patch``'s keys (they win)."""
    if config is None:
        return {"configurable": dict(patch)}
    out = dict(config)
    out["configurable"] = {**(config.get("configurable") or {}), **patch}
    return out
