"""LangGraph's constants module (``langgraph.constants``): the names graph authors import from it.

``START`` and ``END`` are the graph's entry and exit; a chat model tagged
``TAG_NOSTREAM`` sends nothing to stream mode "messages". ``Send`` and
``Interrupt`` are still found here, with LangGraph's deprecation warning
(import them from :mod:`engine.types`). LangGraph's ``TAG_HIDDEN`` (a node
hidden from streams and traces) is not supported, nor are its private
constants (``CONF``, ``TASKS``, ``CONFIG_KEY_CHECKPOINTER``).
"""

from __future__ import annotations

import warnings
from typing import Any

from engine.types import END, START

__all__ = ["TAG_NOSTREAM", "START", "END"]

TAG_NOSTREAM = "nostream"  # engine.pregel._lc_stream.NOSTREAM


def __getattr__(name: str) -> Any:
    if name in ("Send", "Interrupt"):
        warnings.warn(
            f"Importing {name} from langgraph.constants is deprecated. "
            f"Please use 'from langgraph.types import {name}' instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        from engine import types

        return getattr(types, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
