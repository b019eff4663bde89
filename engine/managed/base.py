"""Managed values' base at LangGraph's import path (``langgraph.managed.base``)."""

from __future__ import annotations

from engine.managed import ManagedValue, is_managed_value

__all__ = ["ManagedValue", "ManagedValueMapping", "ManagedValueSpec", "is_managed_value"]

ManagedValueSpec = type[ManagedValue]
ManagedValueMapping = dict[str, ManagedValueSpec]
