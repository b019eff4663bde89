"""LangGraph's deprecation warnings for its older names, with its messages and classes (engine.warnings)."""

from __future__ import annotations

import warnings

from engine.warnings import LangGraphDeprecatedSinceV05, LangGraphDeprecatedSinceV10

__all__ = ["renamed", "deprecated"]


def renamed(old: str, new: str, *, since: type[Warning] = LangGraphDeprecatedSinceV05, stacklevel: int = 3) -> None:
    """Warn that option ``old`` is LangGraph's older name of ``new`` (still taken, as there)."""
    warnings.warn(f"`{old}` is deprecated and will be removed. Please use `{new}` instead.", since, stacklevel=stacklevel)


def deprecated(message: str, *, stacklevel: int = 3) -> None:
    """Warn with one of LangGraph 1.0's deprecation messages."""
    warnings.warn(message, LangGraphDeprecatedSinceV10, stacklevel=stacklevel)
