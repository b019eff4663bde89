"""Graph lifecycle callbacks (``langgraph.callbacks``): a handler told when a run stops at an interrupt and when one resumes.

A :class:`GraphCallbackHandler` in a call's ``config["callbacks"]`` (a list,
one handler, or a LangChain callback manager holding it) gets
:meth:`~GraphCallbackHandler.on_interrupt` when the run stops for interrupts
or at a breakpoint (the root graph's stop, with the interrupts, empty at a
breakpoint; the event's ``status`` says which: ``"pending"``,
``"interrupt_before"``, ``"interrupt_after"``), and
:meth:`~GraphCallbackHandler.on_resume` when a run continues a thread's saved
version (input None, a ``Command``, or a run with the id of the one that wrote
the version). Other LangChain handlers in the same config are not told. A
handler that raises is logged and the run goes on, unless the handler sets
``raise_error``: then the call raises it. Needs langchain-core, as LangGraph's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, TypeVar
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.callbacks.manager import ahandle_event, handle_event

from engine._internal._interrupt import Interrupt

__all__ = (
    "GraphCallbackHandler",
    "GraphInterruptEvent",
    "GraphLifecycleEvent",
    "GraphLifecycleStatus",
    "GraphResumeEvent",
    "get_async_graph_callback_manager_for_config",
    "get_sync_graph_callback_manager_for_config",
)

#: Where the run was when the event was taken.
GraphLifecycleStatus: TypeAlias = Literal["input", "pending", "done", "interrupt_before", "interrupt_after", "out_of_steps"]


@dataclass(frozen=True)
class GraphInterruptEvent:
    """The run stopped: at its interrupts, or at a breakpoint (``interrupts`` empty)."""

    run_id: UUID | None
    status: GraphLifecycleStatus
    checkpoint_id: str
    checkpoint_ns: tuple[str, ...]
    interrupts: tuple[Interrupt, ...]


@dataclass(frozen=True)
class GraphResumeEvent:
    """The run continues the thread from its saved version ``checkpoint_id``."""

    run_id: UUID | None
    status: GraphLifecycleStatus
    checkpoint_id: str
    checkpoint_ns: tuple[str, ...]


GraphLifecycleEvent: TypeAlias = GraphInterruptEvent | GraphResumeEvent


class GraphCallbackHandler(BaseCallbackHandler):
    """Subclass and override to hear a graph's interrupts and resumes (either may be ``async def``)."""

    def on_interrupt(self, event: GraphInterruptEvent) -> Any:
        """The run stopped at ``event.interrupts`` (or a breakpoint)."""

    def on_resume(self, event: GraphResumeEvent) -> Any:
        """The run continues from ``event.checkpoint_id``."""


def _graph_handlers(handlers: Sequence[BaseCallbackHandler]) -> list[BaseCallbackHandler]:
    return [h for h in handlers if isinstance(h, GraphCallbackHandler)]


class _Lifecycle(BaseCallbackManager):
    """A callback manager holding only the graph handlers of what it was made from, and the run's id."""

    def __init__(
        self,
        handlers: Sequence[BaseCallbackHandler] | None = None,
        inheritable_handlers: Sequence[BaseCallbackHandler] | None = None,
        parent_run_id: UUID | None = None,
        *,
        tags: list[str] | None = None,
        inheritable_tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inheritable_metadata: dict[str, Any] | None = None,
        run_id: UUID | None = None,
    ) -> None:
        super().__init__(
            list(handlers or ()), list(inheritable_handlers or ()), parent_run_id, tags=tags,
            inheritable_tags=inheritable_tags, metadata=metadata, inheritable_metadata=inheritable_metadata,
        )  # fmt: skip
        self.run_id = run_id

    def copy(self: _M, *, run_id: Any = ...) -> _M:  # type: ignore[override]  # LangGraph's: the run id may change
        return type(self)._from(self, self.run_id if run_id is ... else _checked(run_id))

    @classmethod
    def _from(cls: type[_M], manager: BaseCallbackManager, run_id: UUID | None) -> _M:
        return cls(
            _graph_handlers(manager.handlers), _graph_handlers(manager.inheritable_handlers), manager.parent_run_id,
            tags=list(manager.tags), inheritable_tags=list(manager.inheritable_tags), metadata=dict(manager.metadata),
            inheritable_metadata=dict(manager.inheritable_metadata), run_id=run_id,
        )  # fmt: skip

    @classmethod
    def configure(cls: type[_M], callbacks: object | None = None, *, run_id: UUID | None = None) -> _M:  # type: ignore[override]
        """The graph handlers among ``callbacks`` (a handler, a sequence of handlers, a manager, or None)."""
        if callbacks is None:
            return cls(run_id=run_id)
        if isinstance(callbacks, BaseCallbackManager):
            return cls._from(callbacks, run_id)
        if isinstance(callbacks, GraphCallbackHandler):
            return cls([callbacks], run_id=run_id)
        if isinstance(callbacks, (str, bytes)) or not isinstance(callbacks, Sequence):
            raise TypeError("callbacks must be a handler, sequence, or manager")
        return cls(_graph_handlers(list(callbacks)), run_id=run_id)


_M = TypeVar("_M", bound=_Lifecycle)


def _checked(run_id: Any) -> UUID | None:
    if run_id is not None and not isinstance(run_id, UUID):
        raise TypeError("run_id must be a UUID or None")
    return run_id


class _GraphCallbackManager(_Lifecycle):
    """Tells the graph handlers of a sync call."""

    def on_interrupt(self, event: GraphInterruptEvent) -> None:
        handle_event(self.handlers, "on_interrupt", None, event)

    def on_resume(self, event: GraphResumeEvent) -> None:
        handle_event(self.handlers, "on_resume", None, event)


class _AsyncGraphCallbackManager(_Lifecycle):
    """Tells the graph handlers of an async call (sync handlers run on a thread unless ``run_inline``)."""

    @property
    def is_async(self) -> bool:
        return True

    async def on_interrupt(self, event: GraphInterruptEvent) -> None:
        await ahandle_event(self.handlers, "on_interrupt", None, event)

    async def on_resume(self, event: GraphResumeEvent) -> None:
        await ahandle_event(self.handlers, "on_resume", None, event)


def get_sync_graph_callback_manager_for_config(config: Any, *, run_id: UUID | None = None) -> _GraphCallbackManager:
    """The graph handlers of ``config["callbacks"]``, for a sync caller, under ``run_id``."""
    return _GraphCallbackManager.configure(config.get("callbacks"), run_id=run_id)


def get_async_graph_callback_manager_for_config(config: Any, *, run_id: UUID | None = None) -> _AsyncGraphCallbackManager:
    """The graph handlers of ``config["callbacks"]``, for an async caller, under ``run_id``."""
    return _AsyncGraphCallbackManager.configure(config.get("callbacks"), run_id=run_id)
