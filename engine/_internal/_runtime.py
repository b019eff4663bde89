"""Runtime: what a running node gets besides its state (LangGraph 1.2's ``langgraph.runtime.Runtime``).

It lives beside :mod:`engine._internal._task` (which builds one per task,
when a node asks for it) so that neither the loop nor ``engine.runtime``
imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Generic, TypeVar

__all__ = ["Runtime", "ExecutionInfo", "RunControl", "ServerInfo", "server_info"]


def server_info(configurable: Any) -> Any:
    """The ``ServerInfo`` a call's ``configurable`` gives (None without those keys), as LangGraph reads it:
    the user is anything with an ``identity`` (its server's proxy of ``BaseUser``)."""
    user = configurable.get("langgraph_auth_user")
    if user is not None and not hasattr(user, "identity"):
        user = None
    assistant_id, graph_id = configurable.get("assistant_id"), configurable.get("graph_id")
    if assistant_id is None and graph_id is None and user is None:
        return None
    return ServerInfo(assistant_id=str(assistant_id) if assistant_id else "", graph_id=str(graph_id) if graph_id else "", user=user)


class RunControl:
    """A run's cooperative stop (LangGraph's): ``request_drain()``, from any thread, and the run
    stops before its next superstep, its version saved, raising ``GraphDrained`` (resume it later
    with ``invoke(None, config)``). One per run: a drained control stays drained."""

    __slots__ = ("_drain_reason",)

    def __init__(self) -> None:
        self._drain_reason: str | None = None

    def request_drain(self, reason: str = "shutdown") -> None:
        # one attribute write: safe from any thread without a lock
        self._drain_reason = reason

    @property
    def drain_requested(self) -> bool:
        return self._drain_reason is not None

    @property
    def drain_reason(self) -> str | None:
        return self._drain_reason

ContextT = TypeVar("ContextT")


def _no_op_stream_writer(_: Any) -> None:
    return None


def _no_op_heartbeat() -> None:
    return None


@dataclass(frozen=True, slots=True)
class ExecutionInfo:
    """Where the running node is: its version, namespace, task, thread and run."""

    checkpoint_id: str
    checkpoint_ns: str
    task_id: str
    thread_id: str | None = None
    run_id: str | None = None
    node_attempt: int = 1
    node_first_attempt_time: float | None = None

    def patch(self, **overrides: Any) -> "ExecutionInfo":
        return replace(self, **overrides)


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """LangGraph Server's assistant and graph ids and the caller's user: as LangGraph, built from the call's
    ``configurable`` keys ``assistant_id``, ``graph_id`` and ``langgraph_auth_user`` (None when none is set)."""

    assistant_id: str
    graph_id: str
    user: Any = None


@dataclass(frozen=True, slots=True)
class Runtime(Generic[ContextT]):
    """A run's context and tools, injected into a node's ``runtime`` parameter.

    ``context`` is what the call passed as ``context=`` (a dict coerced into
    the graph's ``context_schema`` when that is a dataclass or a Pydantic
    model, as LangGraph does); ``store`` the graph's store; ``stream_writer``
    the custom-event writer; ``previous`` the functional API's previous
    return value (None in a StateGraph). ``heartbeat()`` tells a node's
    ``idle_timeout`` that it makes progress (a no-op without one); ``server_info`` comes from the call's
    configurable keys and ``control`` is the call's ``control=``, as LangGraph's.
    """

    context: ContextT = field(default=None)  # type: ignore[assignment]
    store: Any = field(default=None)
    stream_writer: Callable[[Any], None] = field(default=_no_op_stream_writer)
    heartbeat: Callable[[], None] = field(default=_no_op_heartbeat)
    previous: Any = field(default=None)
    execution_info: ExecutionInfo | None = field(default=None)
    server_info: ServerInfo | None = field(default=None)
    control: Any = field(default=None)

    def merge(self, other: "Runtime[ContextT]") -> "Runtime[ContextT]":
        """``other``'s values where it has them, this one's elsewhere (as LangGraph's)."""
        return Runtime(
            context=other.context or self.context,
            store=other.store or self.store,
            stream_writer=self.stream_writer if other.stream_writer is _no_op_stream_writer else other.stream_writer,
            heartbeat=self.heartbeat if other.heartbeat is _no_op_heartbeat else other.heartbeat,
            previous=self.previous if other.previous is None else other.previous,
            execution_info=other.execution_info or self.execution_info,
            server_info=other.server_info or self.server_info,
            control=other.control or self.control,
        )

    def override(self, **overrides: Any) -> "Runtime[ContextT]":
        return replace(self, **overrides)

    def patch_execution_info(self, **overrides: Any) -> "Runtime[ContextT]":
        if self.execution_info is None:
            raise RuntimeError("Cannot patch execution_info before it has been set")
        return replace(self, execution_info=self.execution_info.patch(**overrides))

    @property
    def drain_requested(self) -> bool:
        return False

    @property
    def drain_reason(self) -> str | None:
        return None
