"""LangGraph's constants module (``langgraph.constants``): the names graph authors import from it.

``START`` and ``END`` are the graph's entry and exit; a chat model tagged
``TAG_NOSTREAM`` sends nothing to stream mode "messages". ``Send`` and
``Interrupt`` are still found here, with LangGraph's deprecation warning
(import them from :mod:`engine.types`). ``CONF`` is the config's
``configurable`` key and ``TASKS`` the channel that carries ``Send`` packets,
as in LangGraph. ``TAG_HIDDEN`` is LangSmith's tag for a run hidden from
traces and from the "events" stream, and a task tagged with it from the debug
and tasks modes; ``CONFIG_KEY_CHECKPOINTER`` names a saver a call passes in
its ``configurable`` (it keeps that call's state, as LangGraph's server passes
one; :func:`engine.pregel._savers.root_saver`).
"""

from __future__ import annotations

import warnings
from typing import Any

from engine.pregel._local import CONFIG_KEY_CHECKPOINTER
from engine.pregel._spec import TASKS
from engine.pregel.debug import TAG_HIDDEN
from engine.types import END, START

__all__ = ["CONF", "CONFIG_KEY_CHECKPOINTER", "TAG_HIDDEN", "TAG_NOSTREAM", "TASKS", "START", "END"]

TAG_NOSTREAM = "nostream"  # engine._langchain.stream.NOSTREAM
CONF = "configurable"


def __getattr__(name: str) -> Any:
    from engine.warnings import LangGraphDeprecatedSinceV10

    if name in ("Send", "Interrupt"):
        warnings.warn(
            f"Importing {name} from langgraph.constants is deprecated. "
            f"Please use 'from langgraph.types import {name}' instead.",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        from engine import types

        return getattr(types, name)
    from engine._internal import _constants

    if hasattr(_constants, name):  # as LangGraph: its private constants, with a warning
        warnings.warn(
            f"Importing {name} from langgraph.constants is deprecated. This constant is now private and should "
            "not be used directly. Please let the LangGraph team know if you need this value.",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        return getattr(_constants, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
