"""Subgraphs of a v3 run, found by the "tasks" mode: ``run.lifecycle`` and ``run.subgraphs``.

A subgraph's first task event (at namespace ``parent_ns + ("node:task_id",)``)
says it started; the result of the parent's task ``task_id`` says how it
ended (interrupted, failed, or completed); a subgraph still open when the run
ends gets the run's end. Both transformers share that reading
(:class:`_TasksLifecycleBase`) and keep the tasks events out of the main log.
``LifecycleTransformer`` reports every depth below its scope as
``lifecycle`` events; ``SubgraphTransformer`` makes a handle (a run stream of
its own, over a child mux) for each direct child, and feeds it the events of
its namespace and below.

A subgraph run by a LangChain agent (``lc_agent_name`` in its task's
metadata) is named after the agent, and, when a tool call started it, its
``cause`` is that call.
"""

from __future__ import annotations

import logging
from typing import Any, Union

from typing_extensions import NotRequired, TypedDict

from engine.errors import GraphDrained, GraphInterrupt
from engine.stream._types import ProtocolEvent, StreamTransformer, SubgraphStatus
from engine.stream.run_stream import AsyncSubgraphRunStream, SubgraphRunStream
from engine.stream.stream_channel import StreamChannel

__all__ = ["LifecyclePayload", "LifecycleTransformer", "SubgraphStatus", "SubgraphTransformer"]

_log = logging.getLogger(__name__)

_Handle = Union[SubgraphRunStream, AsyncSubgraphRunStream]
_Transition = tuple["tuple[str, ...]", SubgraphStatus, "str | None"]


class LifecyclePayload(TypedDict, total=False):
    """A ``lifecycle`` event's data: the status of the subgraph at ``namespace``."""

    event: SubgraphStatus
    namespace: list[str]
    graph_name: NotRequired[str]
    trigger_call_id: NotRequired[str]
    cause: NotRequired[Any]
    error: NotRequired[str]


def _split_segment(segment: str) -> tuple[str, str | None]:
    """``"node:task_id"`` -> (``"node"``, ``"task_id"``); a segment without ``:`` has no task id."""
    name, colon, task_id = segment.partition(":")
    return name, task_id if colon else None


def _status_from_exception(err: BaseException) -> tuple[SubgraphStatus, str | None]:
    if isinstance(err, GraphDrained):
        return "drained", None
    if isinstance(err, GraphInterrupt):
        return "interrupted", None
    return "failed", str(err)


def _terminal_from_result(result: dict[str, Any]) -> tuple[SubgraphStatus, str | None]:
    """A parent task's result -> its subgraph's end (interrupts first: an interrupt is not an error)."""
    if result.get("interrupts"):
        return "interrupted", None
    if error := result.get("error"):
        return "failed", str(error)
    return "completed", None


def _tool_call_id(task_input: Any) -> str | None:
    """The id of the tool call a task runs: its input a ``{"tool_call": {...}}`` (one call) or a list of calls (the first)."""
    if isinstance(task_input, dict) and isinstance(task_input.get("tool_call"), dict):
        found = task_input["tool_call"].get("id")
        return found if isinstance(found, str) else None
    if isinstance(task_input, list):
        for call in task_input:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                return str(call["id"])
    return None


class _TasksLifecycleBase(StreamTransformer):
    """Finds subgraphs' starts and ends in the "tasks" events (LangChain's agents subclass it).

    Subclasses say which namespaces they follow (``_should_track``) and act on
    a start (``_on_started``; the start's cause, if any, in ``_pending_cause``)
    and on an end (``_on_terminal``), each once per namespace.
    """

    required_stream_modes = ("tasks",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._seen: set[tuple[str, ...]] = set()
        self._open: dict[tuple[str, ...], str] = {}  # started namespace -> the parent task id whose result ends it
        self._lc_by_ns: dict[tuple[str, ...], str | None] = {}  # each namespace's lc_agent_name (first task's)
        self._pending_tool_calls: dict[str, str] = {}  # task id -> the tool call id it runs
        self._pending_cause: Any = None

    def _should_track(self, ns: tuple[str, ...]) -> bool:
        raise NotImplementedError

    def _on_started(self, ns: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None) -> None:
        raise NotImplementedError

    def _on_terminal(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        raise NotImplementedError

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] != "tasks":
            return True
        ns = tuple(event["params"]["namespace"])
        data = event["params"]["data"]
        if "result" in data:
            for child, status, error in self._pop_terminal_transitions(ns, data):
                self._on_terminal(child, status, error)
        else:
            self._note_start(ns, data)
        return False  # folded into the projections: the main log does not show it twice

    def _note_start(self, ns: tuple[str, ...], data: dict[str, Any]) -> None:
        self._record_identity(ns, data)
        self._record_pending_tool_calls(data)
        self._handle_task_start(ns, data)

    def _record_identity(self, ns: tuple[str, ...], data: dict[str, Any]) -> None:
        if ns not in self._lc_by_ns:
            self._lc_by_ns[ns] = (data.get("metadata") or {}).get("lc_agent_name")

    def _record_pending_tool_calls(self, data: dict[str, Any]) -> None:
        task_id = data.get("id")
        if isinstance(task_id, str) and (call_id := _tool_call_id(data.get("input"))) is not None:
            self._pending_tool_calls[task_id] = call_id

    def _handle_task_start(self, ns: tuple[str, ...], data: dict[str, Any]) -> None:
        if ns in self._seen or not self._should_track(ns):
            return
        self._seen.add(ns)
        name, trigger = _split_segment(ns[-1])
        agent = (data.get("metadata") or {}).get("lc_agent_name")
        cause = None
        if agent is not None and trigger is not None and (call_id := self._pending_tool_calls.get(trigger)):
            cause = {"type": "toolCall", "tool_call_id": str(call_id)}
        self._pending_cause = cause
        self._on_started(ns, agent if agent is not None else (name or None), trigger)
        if trigger is not None:
            self._open[ns] = trigger

    def _pop_terminal_transitions(self, ns: tuple[str, ...], result: dict[str, Any]) -> list[_Transition]:
        """The open subgraphs of the parent task whose ``result`` this is, closed now."""
        task_id = result.get("id")
        if not task_id:
            return []
        ended = [child for child, parent in self._open.items() if parent == task_id and child[:-1] == ns]
        status, error = _terminal_from_result(result)
        for child in ended:
            del self._open[child]
        return [(child, status, error) for child in ended]

    def finalize(self) -> None:
        for ns in list(self._open):
            self._on_terminal(ns, "completed", None)
        self._open.clear()

    def fail(self, err: BaseException) -> None:
        status, error = _status_from_exception(err)
        for ns in list(self._open):
            self._on_terminal(ns, status, error)
        self._open.clear()


class LifecycleTransformer(_TasksLifecycleBase):
    """``run.lifecycle`` (and ``lifecycle`` events in the main log): each subgraph below the scope, at any depth, starting and ending."""

    _native = True

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._channel: StreamChannel[LifecyclePayload] = StreamChannel("lifecycle")

    def init(self) -> dict[str, Any]:
        return {"lifecycle": self._channel}

    def _should_track(self, ns: tuple[str, ...]) -> bool:
        return len(ns) > len(self.scope) and ns[: len(self.scope)] == self.scope

    def _on_started(self, ns: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None) -> None:
        if trigger_call_id is None:
            return  # nothing could end it; the run's end will
        payload: LifecyclePayload = {"event": "started", "namespace": list(ns)}
        if graph_name:
            payload["graph_name"] = graph_name
        payload["trigger_call_id"] = trigger_call_id
        if self._pending_cause is not None:
            payload["cause"] = self._pending_cause
        self._channel.push(payload)

    def _on_terminal(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        payload: LifecyclePayload = {"event": status, "namespace": list(ns)}
        if error is not None:
            payload["error"] = error
        self._channel.push(payload)


class SubgraphTransformer(_TasksLifecycleBase):
    """``run.subgraphs``: a handle per direct child subgraph, fed the events of its namespace and below."""

    _native = True
    supports_sync = True

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[_Handle] = StreamChannel()
        self._handles: dict[tuple[str, ...], _Handle] = {}
        self._mux: Any = None

    def init(self) -> dict[str, Any]:
        return {"subgraphs": self._log}

    def _on_register(self, mux: Any) -> None:
        self._mux = mux

    def _should_track(self, ns: tuple[str, ...]) -> bool:
        return len(ns) == len(self.scope) + 1 and ns[:-1] == self.scope  # deeper ones: the child's own transformer

    def _on_started(self, ns: tuple[str, ...], graph_name: str | None, trigger_call_id: str | None) -> None:
        if self._mux is None:
            return
        try:
            child = self._mux._make_child(ns)
        except RuntimeError:  # a mux of made transformers cannot make children
            return
        cls = AsyncSubgraphRunStream if child.is_async else SubgraphRunStream
        handle = cls(mux=child, path=ns, graph_name=graph_name, trigger_call_id=trigger_call_id)
        self._handles[ns] = handle
        self._log.push(handle)

    def _mark_terminal(self, handle: _Handle, status: SubgraphStatus, error: str | None) -> bool:
        """Record the handle's end; False if it had one already."""
        if handle._seen_terminal:
            return False
        handle.status = status
        if error is not None and handle.error is None:
            handle.error = error
        handle._seen_terminal = True
        return True

    def _ending(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> _Handle | None:
        """The handle at ``ns`` if this ends it now and its mux is still open."""
        handle = self._handles.get(ns)
        if handle is None or not self._mark_terminal(handle, status, error) or handle._mux._events._closed:
            return None
        return handle

    def _on_terminal(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        if (handle := self._ending(ns, status, error)) is not None:
            if status == "failed":
                handle._mux.fail(RuntimeError(error or "Subgraph failed"))
            else:
                handle._mux.close()

    async def _aon_terminal(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        if (handle := self._ending(ns, status, error)) is not None:
            if status == "failed":
                await handle._mux.afail(RuntimeError(error or "Subgraph failed"))
            else:
                await handle._mux.aclose()

    def _handle_for_event(self, event: ProtocolEvent) -> _Handle | None:
        ns = tuple(event["params"]["namespace"])
        depth = len(self.scope) + 1
        handle = self._handles.get(ns[:depth]) if len(ns) >= depth else None
        if handle is None or handle._mux._events._closed:
            return None
        return handle

    def process(self, event: ProtocolEvent) -> bool:
        keep = super().process(event)  # first: the handle of a subgraph starting now must exist to get the event
        if (handle := self._handle_for_event(event)) is not None:
            handle._observe_event(event)
            handle._mux.push(event)
        return keep

    async def aprocess(self, event: ProtocolEvent) -> bool:
        keep = True
        if event["method"] == "tasks":
            ns = tuple(event["params"]["namespace"])
            data = event["params"]["data"]
            if "result" in data:
                for child, status, error in self._pop_terminal_transitions(ns, data):
                    await self._aon_terminal(child, status, error)
            else:
                self._note_start(ns, data)
            keep = False
        if (handle := self._handle_for_event(event)) is not None:
            handle._observe_event(event)
            await handle._mux.apush(event)
        return keep

    def _unended(self) -> list[tuple[str, ...]]:
        """Every namespace whose handle has not ended (open ones first, then the rest), forgetting the open ones."""
        order = list(self._open) + [ns for ns in self._handles if ns not in self._open]
        self._open.clear()
        return order

    def finalize(self) -> None:
        first: BaseException | None = None
        for ns in self._unended():
            try:
                self._on_terminal(ns, "completed", None)
            except BaseException as e:
                first = first or e
        if first is not None:
            raise first

    async def afinalize(self) -> None:
        first: BaseException | None = None
        for ns in self._unended():
            try:
                await self._aon_terminal(ns, "completed", None)
            except BaseException as e:
                first = first or e
        if first is not None:
            raise first

    def _failing(self, err: BaseException) -> list[_Handle]:
        status, error = _status_from_exception(err)
        self._open.clear()
        out = []
        for handle in self._handles.values():
            self._mark_terminal(handle, status, error)
            if not handle._mux._events._closed:
                out.append(handle)
        return out

    def fail(self, err: BaseException) -> None:
        for handle in self._failing(err):
            try:
                handle._mux.fail(err)
            except Exception:
                _log.warning("could not fail the subgraph stream at %s", handle.path, exc_info=True)

    async def afail(self, err: BaseException) -> None:
        for handle in self._failing(err):
            try:
                await handle._mux.afail(err)
            except Exception:
                _log.warning("could not fail the subgraph stream at %s", handle.path, exc_info=True)
