"""What the parts of a compiled graph need of it: the one seam between :class:`~engine.pregel.Pregel`
and the objects it is composed of (:mod:`._launch`, :mod:`._outputs`, :mod:`._state_api`).

They are given the graph itself; this Protocol says which of its attributes
they read, so none of them imports ``Pregel`` (no cycle) and none takes ``Any``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Mapping, Protocol

if TYPE_CHECKING:
    from engine.channels.base import BaseChannel
    from engine.checkpoint.base import CheckpointTuple
    from engine.events import Event
    from engine.pregel._spec import GraphSpec, NodeSpec
    from engine.types import StateSnapshot

__all__ = ["CompiledGraph"]


class CompiledGraph(Protocol):
    """A compiled graph as its run, its outputs and its state API see it."""

    name: str
    spec: GraphSpec
    nodes: dict[str, NodeSpec]
    channels: dict[str, BaseChannel[Any, Any, Any]]
    #: ``with_config``'s defaults, merged under every call's config
    config: dict[str, Any] | None
    checkpointer: Any  # a saver, or None / True / False as compile(checkpointer=) takes
    store: Any
    cache: Any
    context_schema: Any
    interrupt_before: Any
    interrupt_after: Any
    default_recursion_limit: int
    step_timeout: float | None
    stream_mode: str
    debug: bool
    output_keys: tuple[str, ...] | str

    def snapshot(self, saved: CheckpointTuple, *, live: bool = False, run_ids: bool = False) -> StateSnapshot: ...

    def aevents(self, input: Any, config: Mapping[str, Any] | None = None, **options: Any) -> AsyncIterator[Event]: ...

    def astream(self, input: Any, config: Mapping[str, Any] | None = None, **options: Any) -> AsyncIterator[Any]: ...


