"""A run's LangChain callback events beside its own events: LangGraph's server's "events" stream mode.

LangGraph's server serves the "events" mode by running the graph under
``astream_events(version="v2")``: the run's callbacks get LangChain's event
stream handler, whose events (the graph's chain run, its nodes', chat models'
tokens, tools'...) go to the caller as they happen, but the graph's own
``on_chain_stream`` events (what the other modes say) and runs tagged
``langsmith:hidden``. :func:`with_callback_events` does that around one run
of a host (the engine's ``aevents`` or another runtime's, the same seam): the
handler goes into the run's config, the run's root chain run is named by the
run's id, and its events come out as :class:`~engine.events.CallbackEvent`\\ s
among the run's own, in the order they arrived. It is the run itself, not a
second one: its versions, lease and record are the run's.

The run is driven by a task of its own (as ``astream_events`` drives its
runnable) so that a token arriving while a node runs is sent at once (the
run's own events wait for their reader beyond a few, as they do without); the
run's RunStarted stays first and its RunFinished last, around the callback
events of the graph's run's start and end (LangChain's handler hears them
just before and after). A caller that
is cancelled cancels the run, which ends as the engine's runs end: its
RunFinished ("CANCELLED"), then the CancelledError.

Only imported where langchain-core is (:func:`engine.host.with_callback_events` asks).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.tracers.event_stream import _AstreamEventsCallbackHandler

from engine.checkpoint.base import RUN_KEY
from engine.events import CallbackEvent, Event, RunFinished
from engine.pregel.debug import TAG_HIDDEN as HIDDEN

__all__ = ["HIDDEN", "with_callback_events"]

#: The tag of runs LangGraph's server leaves out of the "events" mode.

_RUN, _CALLBACK, _RAISED, _DONE = range(4)
#: How many of the run's own events may wait for the caller before the run waits for it.
_AHEAD = 16


class _InPlaceHandler(_AstreamEventsCallbackHandler):
    """LangChain's event stream handler, each of its callbacks run to its end where it is called.

    LangChain's handler is async, yet none of its callbacks awaits anything: each
    puts its event on a queue of the reader's loop (thread-safely). Called through
    a sync callback manager, as a node's run and the run's own chain run are (on
    the loop's thread, or on a node's), LangChain runs every such coroutine on a
    new event loop, on a thread of its pool when a loop is running, its caller
    blocked until it is done: an event loop made and closed per event, and the
    server's loop stopped meanwhile (about a tenth of the server's CPU on a run
    streaming every event, sampled). Here each callback drives the handler's
    coroutine in place, and ``run_inline`` has the async managers call it in place
    too. The events and their order are the same: LangChain's way also sent each
    before the call returned.
    """

    run_inline = True


def _in_place(name: str) -> Callable[..., None]:
    callback = getattr(_AstreamEventsCallbackHandler, name)

    def in_place(self: _InPlaceHandler, *args: Any, **kwargs: Any) -> None:
        step = callback(self, *args, **kwargs)
        try:
            step.send(None)
        except StopIteration:
            return
        step.close()
        raise RuntimeError(f"LangChain's {name} callback awaited something; the events stream cannot run it in place")

    in_place.__name__ = in_place.__qualname__ = name
    return in_place


for _name in dir(_AstreamEventsCallbackHandler):  # its own callbacks and AsyncCallbackHandler's no-op ones
    if _name.startswith("on_") and inspect.iscoroutinefunction(getattr(_AstreamEventsCallbackHandler, _name)):
        setattr(_InPlaceHandler, _name, _in_place(_name))


def _root_id(run_id: str) -> uuid.UUID:
    """The root chain run's id: the run's own when it is a UUID (LangGraph's server names it so), else one made from it."""
    try:
        return uuid.UUID(run_id)
    except ValueError:
        return uuid.uuid5(uuid.NAMESPACE_URL, run_id)


def _with_handler(config: dict[str, Any], handler: Any) -> dict[str, Any]:
    """``config`` with ``handler`` among its callbacks (as ``astream_events`` adds its own)."""
    callbacks = config.get("callbacks")
    if callbacks is None:
        callbacks = [handler]
    elif isinstance(callbacks, list):
        callbacks = [*callbacks, handler]
    elif isinstance(callbacks, BaseCallbackManager):
        callbacks = callbacks.copy()
        callbacks.add_handler(handler, inherit=True)
    else:
        raise ValueError(f"the config's callbacks are a {type(callbacks).__name__}, not a list or a callback manager")
    return {**config, "callbacks": callbacks}


class _Shaper:
    """LangChain's events as LangGraph's server sends them (see the module's doc)."""

    def __init__(self, root: uuid.UUID, input: Any, run_id: str) -> None:
        self.root = str(root)
        self.input = input
        self.run_id = run_id
        self.started = False

    def shaped(self, event: dict[str, Any]) -> dict[str, Any] | None:
        if HIDDEN in (event.get("tags") or ()):
            return None
        # the run's id under LangGraph's server's key, not under the one a host's versions record it by
        metadata = {k: v for k, v in (event.get("metadata") or {}).items() if k != RUN_KEY}
        metadata.setdefault("run_id", self.run_id)
        event = {**event, "metadata": metadata}
        is_root = str(event.get("run_id")) == self.root
        if is_root and event.get("event") == "on_chain_stream":
            return None  # what the run's other events say
        data = event.get("data")
        if is_root and isinstance(data, dict):
            if event.get("event") == "on_chain_start" and not self.started:
                self.started = True
                event = {**event, "data": {**data, "input": self.input}}  # astream_events shows the input given
            elif str(event.get("event", "")).endswith("_end") and "input" in data:
                event = {**event, "data": {k: v for k, v in data.items() if k != "input"}}
        return event


async def with_callback_events(
    run: Callable[[dict[str, Any]], AsyncIterator[Event]], input: Any, config: dict[str, Any], run_id: str
) -> AsyncIterator[Event]:
    """``run(config)``'s events with its LangChain callback events among them (see the module's doc).

    Args:
        run: starts the run with the config it is given (the caller's, with the handler and the root's id).
        input: what the run was given, shown as the root run's input.
        config: the run's config.
        run_id: the run's id, which names the root chain run.
    """
    handler = _InPlaceHandler()
    root = _root_id(run_id)
    shaper = _Shaper(root, input, run_id)
    queue: asyncio.Queue[tuple[int, Any]] = asyncio.Queue()
    # The run goes at its reader's pace, as without callback events: past _AHEAD events not taken it waits for
    # room. A cancel is delivered inside the run's own step (never while it waits for room), so that it ends as
    # a cancelled run does.
    room = asyncio.Event()
    room.set()
    pace = {"ahead": 0, "stop": False, "waiting": False, "cancel": False}

    async def drive() -> None:
        try:
            events = run({**_with_handler(config, handler), "run_id": root})
            try:
                async for e in events:
                    queue.put_nowait((_RUN, e))
                    pace["ahead"] += 1
                    if pace["ahead"] >= _AHEAD and not pace["stop"]:
                        room.clear()
                        pace["waiting"] = True
                        await room.wait()
                        pace["waiting"] = False
                    if pace["cancel"]:
                        pace["cancel"] = False
                        asyncio.current_task().cancel()  # type: ignore[union-attr]  # delivered in the run's next step
            finally:  # closed when left early (cancelled while it waited for room): as a caller's early stop closes a run
                close = getattr(events, "aclose", None)
                if close is not None:
                    await close()
            queue.put_nowait((_DONE, None))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, which raises it
            queue.put_nowait((_RAISED, exc))
        finally:
            handler.send_stream.close()  # the listener ends once it has taken what came before

    async def listen() -> None:
        async for event in handler:
            queue.put_nowait((_CALLBACK, event))
        queue.put_nowait((_DONE, None))

    driver, listener = asyncio.create_task(drive()), asyncio.create_task(listen())
    finished: RunFinished | None = None
    raised: BaseException | None = None
    cancelled = False
    begun = False
    early: list[CallbackEvent] = []
    ended = 0
    try:
        while ended < 2:
            try:
                kind, item = await queue.get()
            except asyncio.CancelledError:
                cancelled = True  # the run ends as a cancelled one does: its RunFinished first
                pace["stop"] = True
                if pace["waiting"]:
                    pace["cancel"] = True  # it cancels itself once back in its run
                    room.set()
                else:
                    driver.cancel()
                continue
            if kind == _CALLBACK:
                shaped = shaper.shaped(item)
                if shaped is not None:
                    early.append(CallbackEvent(shaped))
            elif kind == _RUN:
                pace["ahead"] -= 1
                if pace["ahead"] < _AHEAD:
                    room.set()
                if isinstance(item, RunFinished):
                    finished = item  # last, after the callback events of the run's end
                else:
                    yield item
                    begun = True
            else:
                ended += 1
                if kind == _RAISED:
                    raised = item
            if begun:  # the run's first event (RunStarted) stays first: the graph's run starts before it
                for e in early:
                    yield e
                early.clear()
        if finished is not None:
            yield finished
        if raised is not None:
            raise raised
        if cancelled:
            raise asyncio.CancelledError
    finally:
        for task in (driver, listener):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
