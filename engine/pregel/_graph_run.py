"""A run's chain run for LangChain callbacks (its config's ``with_config`` defaults are folded in by
:func:`engine._internal._config.merge_configs`).

With langchain-core installed and callbacks in the call's config (or LangSmith's
tracing on, or LangChain's debug mode: LangChain adds its handlers), the run is
one chain run named after the graph (``run_name`` overrides), as on
LangGraph: the callbacks see it start with the input and end with the
output values (or the error), and each node's run is its child (see
:mod:`engine._langchain.stream`).
"""

from __future__ import annotations

import sys
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, AsyncGenerator, Mapping, Protocol
from uuid import UUID

from engine._langchain import callback_manager, handlers_asked
from engine.errors import GraphInterrupt
from engine.events import Event, RunFinished
from engine.pregel._io import propagated_metadata

if TYPE_CHECKING:
    from engine.callbacks import _AsyncGraphCallbackManager
    from engine.pregel._loop import RunLoop

__all__ = ["ChainRun", "lifecycle", "start_graph_run", "reported"]


class ChainRun(Protocol):
    """What a run uses of its LangChain chain run (langchain-core's ``CallbackManagerForChainRun``)."""

    run_id: UUID

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None: ...

    def on_chain_error(self, error: BaseException, **kwargs: Any) -> None: ...


def start_graph_run(name: str, input: Any, config: dict[str, Any], *, nested: bool = False) -> ChainRun | None:
    """The run's chain run for the config's LangChain callbacks, or None if there are none.

    ``config["callbacks"]`` becomes the run's child manager, for the nodes. At
    the root the caller's ``run_id`` names it; a subgraph's (``nested``) has its own.
    """
    callbacks = config.get("callbacks")
    if "langchain_core" not in sys.modules or not (callbacks or handlers_asked()):
        return None  # (LangSmith's tracing or LangChain's debug mode asks for handlers: LangChain adds them)
    CallbackManager = callback_manager()  # noqa: N806 - LangChain's class

    # As LangGraph: the run's callbacks see the thread (and the other keys it copies) in their metadata.
    metadata = propagated_metadata(config.get("configurable") or {}, config.get("metadata") or {})
    metadata.setdefault("ls_integration", "langgraph")
    manager = CallbackManager.configure(callbacks, inheritable_tags=config.get("tags"), inheritable_metadata=metadata)
    # The caller's run_id names this run (astream_events finds its events by it).
    run_id = None if nested else config.get("run_id")
    run = manager.on_chain_start(None, input, name=config.get("run_name") or name, run_id=run_id)
    config["callbacks"] = run.get_child()
    return run


async def reported(run: ChainRun, events: AsyncGenerator[Event, None], *, nested: bool = False) -> AsyncGenerator[Event, None]:
    """``events``, with the run's end (its values, or its error) reported to ``run``.

    A subgraph's run (``nested``) stopped by an interrupt ends as its node does, with
    the GraphInterrupt its parent's task raises (as on LangGraph); the root's ends.
    """
    told = False
    try:
        async with aclosing(events):  # a caller that stops early closes the run now (it saves what it did)
            async for ev in events:
                if isinstance(ev, RunFinished):
                    told = True
                    if ev.exception is not None:
                        run.on_chain_error(ev.exception)
                    elif nested and ev.interrupts:
                        run.on_chain_error(GraphInterrupt(ev.interrupts))
                    else:
                        run.on_chain_end(ev.values)
                yield ev
    except BaseException as e:
        if not told:  # a cancelled run raises after its RunFinished
            run.on_chain_error(e)
        raise


def lifecycle(
    run: ChainRun, loop: RunLoop, input: Any, config: Mapping[str, Any], ns: tuple[str, ...] | None = None
) -> AsyncGenerator[Event, None]:
    """The run's events, its graph lifecycle handlers (:mod:`engine.callbacks`) told as it resumes and stops.

    ``loop`` is the run's :class:`~engine.pregel._loop.RunLoop`; ``config``'s callbacks, the
    run's child manager. Without a :class:`~engine.callbacks.GraphCallbackHandler` among them,
    the events themselves. A subgraph's run (``ns``, its namespace) tells its resume only, as
    LangGraph's: its stop is its parent's.
    """
    from engine.callbacks import get_async_graph_callback_manager_for_config

    manager = get_async_graph_callback_manager_for_config(config, run_id=run.run_id)
    if not manager.handlers:
        return loop.events()
    return _told(manager, loop, input, (config.get("metadata") or {}).get("run_id"), ns)


async def _told(
    manager: _AsyncGraphCallbackManager, loop: RunLoop, input: Any, run_id: Any, ns: tuple[str, ...] | None
) -> AsyncGenerator[Event, None]:
    from engine.callbacks import GraphInterruptEvent, GraphResumeEvent
    from engine.types import Command

    state = loop.state

    async def set_up() -> None:  # the input is folded in: whether the run continues a saved version
        saved = state.loaded
        if saved is not None and saved.checkpoint["channel_versions"] and (
            state.continued if ns is not None
            else input is None or isinstance(input, Command) or (run_id is not None and run_id == saved.metadata.get("run_id"))
        ):  # fmt: skip
            await manager.on_resume(GraphResumeEvent(manager.run_id, "pending", state.checkpoint["id"], ns or ()))

    loop.set_up = set_up
    async with aclosing(loop.events()) as events:
        async for ev in events:
            if ns is None and isinstance(ev, RunFinished) and ev.reason == "INTERRUPT":
                status = state.breakpoint or "pending"
                await manager.on_interrupt(GraphInterruptEvent(manager.run_id, status, ev.checkpoint_id or state.checkpoint["id"], (), tuple(ev.interrupts)))
            yield ev
