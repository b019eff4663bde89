"""A node's LangChain run: what its tracers record (a trace policy's payloads), and LangSmith's current run.

:func:`recorded` and :func:`split` give a node's run its trace policy's payloads for the
tracers only (:mod:`.stream` starts and ends the run); :func:`enter` and :func:`leave`
make a node's config LangChain's current one and, when LangSmith's tracer traces the
node's run, that run LangSmith's current one while the node's code runs.
"""

from __future__ import annotations

import contextvars
import copy
import logging
import sys
from typing import Any, Callable

from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tracers._streaming import _StreamingCallbackHandler
from langchain_core.tracers.base import BaseTracer

__all__ = ["Entered", "enter", "leave", "recorded", "split"]

log = logging.getLogger(__name__)


def recorded(value: Any, process: Callable[[Any], Any] | None) -> Any:
    """What a node's run records of ``value`` for the tracers: ``process(value)`` (a trace policy's
    processor), or ``value`` itself when there is none or it fails (it never fails the node)."""
    if process is None:
        return value
    try:
        return process(value)
    except Exception:
        log.exception("a trace policy's processor raised; the run records the value as it is")
        return value


def split(manager: Any) -> tuple[Any, Any]:
    """``manager`` as two: its tracers (what a trace policy's recorded payloads are for: tracer ingest),
    and every other handler (custom handlers, and the streams of ``astream_events``/``astream_log``,
    which get the real payloads)."""
    real, tracers = copy.copy(manager), copy.copy(manager)
    tracers.handlers = [h for h in manager.handlers if isinstance(h, BaseTracer) and _StreamingCallbackHandler not in type(h).__mro__]
    real.handlers = [h for h in manager.handlers if h not in tracers.handlers]
    return real, tracers


Entered = tuple[contextvars.Token[Any], Any]


def enter(config: dict[str, Any], task: Any = None) -> Entered:
    """Make ``config`` LangChain's current config (what ``ensure_config()`` reads) and, when ``task``'s
    run is traced by LangSmith's tracer, that run LangSmith's current one (``get_current_run_tree()``
    in the node, and the parent of its ``@traceable`` calls), as LangGraph does for a node."""
    token = var_child_runnable_config.set(config)  # type: ignore[arg-type]
    parent = _traced(getattr(task, "run", None))
    if parent is None:
        return token, None
    from langsmith.run_helpers import _set_tracing_context, get_tracing_context

    before = get_tracing_context()
    _set_tracing_context({"parent": parent})
    return token, before


def leave(entered: Entered) -> None:
    token, before = entered
    var_child_runnable_config.reset(token)
    if before is not None:
        from langsmith.run_helpers import _set_tracing_context

        _set_tracing_context(before)


def _traced(run: Any) -> Any:
    """The LangSmith run a LangChainTracer among ``run``'s handlers keeps for it, or None."""
    if run is None or "langchain_core.tracers.langchain" not in sys.modules:  # no tracer made, none to find
        return None
    from langchain_core.tracers.langchain import LangChainTracer

    for h in run.handlers:
        if isinstance(h, LangChainTracer) and (found := h.run_map.get(str(run.run_id))) is not None:
            return found
    return None
