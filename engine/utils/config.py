"""``langgraph.utils.config``: the config helpers at their old path (LangGraph's shim, kept here alike)."""

from engine._internal._config import ensure_config, patch_configurable
from engine.config import get_config, get_store

__all__ = ["ensure_config", "get_config", "get_store", "patch_configurable"]
