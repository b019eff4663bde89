"""Public value types of the run model: what nodes return and what callers read."""

from __future__ import annotations

import types
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Generic, Literal, NamedTuple, Sequence, TypeVar

from engine._langchain import tool_output_bases
from engine._internal._cache_key import default_cache_key
from engine._internal._interrupt import Interrupt
from engine._internal._retry import default_retry_on
from engine._internal._task import interrupt
from engine._stream_parts import (
    CheckpointPayload, CheckpointStreamPart, CheckpointTask, CustomStreamPart, DebugPayload, DebugStreamPart, MessagesStreamPart,
    TaskPayload, TaskResultPayload, TasksStreamPart, UpdatesStreamPart, ValuesStreamPart,
)  # fmt: skip

__all__ = [
    "ensure_valid_checkpointer",
    "START",
    "END",
    "Send",
    "Command",
    "Interrupt",
    "interrupt",
    "RetryPolicy",
    "TimeoutPolicy",
    "StateSnapshot",
    "StateUpdate",
    "PregelTask",
    "Durability",
    "StreamMode",
    "StreamWriter",
    "All",
    "Checkpointer",
    "Overwrite",
    "CachePolicy",
    "TracePolicy",
    "omit_payload",
    "GraphOutput",
    "StreamPart",
    # LangGraph's typed parts and payloads (annotations only)
    "CheckpointPayload", "CheckpointStreamPart", "CheckpointTask", "CustomStreamPart", "DebugPayload", "DebugStreamPart",
    "MessagesStreamPart", "TaskPayload", "TaskResultPayload", "TasksStreamPart", "UpdatesStreamPart", "ValuesStreamPart",
]

START = "__start__"
END = "__end__"

Durability = Literal["sync", "async", "exit"]
#: ``interrupt_before="*"`` / ``interrupt_after="*"``: every node.
All = Literal["*"]
#: What ``compile(checkpointer=...)`` takes: None or a saver (``engine.checkpoint``,
#: which imports this module, so the alias cannot name its class).
Checkpointer = Any
#: What ``get_stream_writer()`` returns, and what a node's ``writer`` parameter receives.
StreamWriter = Callable[[Any], None]
StreamMode = Literal["values", "updates", "custom", "messages", "checkpoints", "tasks", "debug"]


def _seconds(value: float | timedelta | None, field: str) -> float | None:
    if value is None:
        return None
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    if seconds <= 0:
        raise ValueError(f"{field} must be greater than 0")
    return seconds


@dataclass(frozen=True, slots=True)
class TimeoutPolicy:
    """How long one attempt of a node may run (``add_node(timeout=...)``, ``@task(timeout=...)``).

    ``run_timeout``: seconds an attempt may take in all, whatever it does.
    ``idle_timeout``: seconds it may go without a sign of progress; with
    ``refresh_on="auto"`` any custom event, message chunk, LangChain callback
    or ``runtime.heartbeat()`` is one, with ``"heartbeat"`` only the latter.
    An attempt over either is cancelled and fails with
    :class:`~engine.errors.NodeTimeoutError` (which a ``RetryPolicy`` may retry).
    Only async nodes take one, as in LangGraph: a sync function cannot be
    stopped, so a sync node with a timeout is refused when the graph is built.
    Cancellation is cooperative: an async node that blocks the event loop
    (``time.sleep``) is not stopped until it gives it back.
    """

    run_timeout: float | timedelta | None = None
    idle_timeout: float | timedelta | None = None
    refresh_on: Literal["auto", "heartbeat"] = "auto"

    @classmethod
    def coerce(cls, value: "float | timedelta | TimeoutPolicy | None") -> "TimeoutPolicy | None":
        """``value`` as a policy in seconds (a number or a timedelta is a ``run_timeout``); None for none.

        Raises:
            ValueError: a timeout of 0 or less, or an unknown ``refresh_on``.
        """
        if value is None:
            return None
        if not isinstance(value, TimeoutPolicy):
            value = cls(run_timeout=value)
        elif _coerced(value):
            return value
        if value.refresh_on not in ("auto", "heartbeat"):
            raise ValueError("refresh_on must be 'auto' or 'heartbeat'")
        run, idle = _seconds(value.run_timeout, "run_timeout"), _seconds(value.idle_timeout, "idle_timeout")
        if run is None and idle is None:
            return None
        return cls(run_timeout=run, idle_timeout=idle, refresh_on=value.refresh_on)


def _coerced(p: TimeoutPolicy) -> bool:
    """Whether ``p`` is already in seconds (``coerce`` gives it back as it is)."""
    ok = [t is None or (type(t) is float and t > 0) for t in (p.run_timeout, p.idle_timeout)]
    return all(ok) and p.refresh_on in ("auto", "heartbeat") and (p.run_timeout is not None or p.idle_timeout is not None)


@dataclass(frozen=True, slots=True, init=False, repr=False)
class Send:
    """Run ``node`` once with ``arg`` as its input, in the next superstep.

    A router returning several Sends fans out (map); their results are applied
    in Send order whatever order the tasks finish in (reduce). ``timeout``:
    the task's own :class:`TimeoutPolicy` (a number or a timedelta is a
    ``run_timeout``), instead of its node's.
    """

    node: str
    arg: Any
    timeout: TimeoutPolicy | None

    def __init__(self, node: str, arg: Any, timeout: "float | timedelta | TimeoutPolicy | None" = None) -> None:
        object.__setattr__(self, "node", node)
        object.__setattr__(self, "arg", arg)
        object.__setattr__(self, "timeout", TimeoutPolicy.coerce(timeout))

    def __repr__(self) -> str:
        if self.timeout is None:
            return f"Send(node={self.node!r}, arg={self.arg!r})"
        return f"Send(node={self.node!r}, arg={self.arg!r}, timeout={self.timeout!r})"


N = TypeVar("N")


# LangChain's ToolOutputMixin when installed: a tool returning a Command returns it as it is (LangGraph's)
@dataclass(frozen=True, slots=True)
class Command(Generic[N], *tool_output_bases()):  # type: ignore[misc]
    """Returned by a node (``update``, ``goto``) or passed as input (``resume``).

    ``resume`` answers the pending interrupt; with several pending, a mapping
    of interrupt id → answer. ``goto`` names the next node(s) or Sends.
    ``graph`` is accepted for LangGraph compatibility; only ``None`` (this
    graph) is supported.
    """

    graph: str | None = None
    update: Any = None
    resume: Any = None
    goto: str | Send | Sequence[str | Send] = ()

    PARENT = "__parent__"

    def __repr__(self) -> str:
        # As LangGraph's: only the fields that are set (a router's Send argument shows it).
        contents = ", ".join(f"{k}={v!r}" for k in ("graph", "update", "resume", "goto") if (v := getattr(self, k)))
        return f"Command({contents})"


@dataclass(slots=True)
class Overwrite:
    """A write that replaces a reducer key's value instead of folding into it.

    ``{"log": Overwrite(["b"])}`` sets ``log`` to ``["b"]`` whatever its
    reducer. As in LangGraph 1.2: a second Overwrite of the same key in one
    step is an ``InvalidUpdateError``, and writes applied after it in that
    step (tasks are applied sorted by node name) are dropped. The dict forms
    ``{"__overwrite__": value}`` and ``{"type": "__overwrite__", "value": value}``
    mean the same, so a caller speaking JSON (over gRPC) can overwrite too.
    On a plain key (no reducer) it is an ordinary value, as there.
    """

    value: Any
    type: Literal["__overwrite__"] = "__overwrite__"


@dataclass(frozen=True, slots=True)
class DeltaSnapshot:
    """A :class:`~engine.channels.delta.DeltaChannel`'s value as a version stores it, when it
    stores one (LangGraph's ``langgraph.checkpoint.serde.types._DeltaSnapshot``): reading the
    channel's history back stops at the nearest one."""

    value: Any


@dataclass(frozen=True, slots=True)
class CachePolicy:
    """Cache a node's writes (``add_node(cache_policy=...)``, with ``compile(cache=...)``).

    A task of the node whose input gives the same ``key_func(input)`` as an
    earlier one, within ``ttl`` seconds (None: forever), does not run: the
    cached writes are applied as if it had, and stream mode "updates" marks
    its chunk ``"__metadata__": {"cached": True}``.
    """

    key_func: Callable[..., str | bytes] = default_cache_key
    ttl: int | None = None

    def __class_getitem__(cls, item: Any) -> Any:  # ``CachePolicy[KeyFunc]`` in an annotation, as LangGraph's generic class
        return types.GenericAlias(cls, item)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How a node is retried when it raises.

    Attempt ``n`` (from 1) waits ``initial_interval * backoff_factor**(n-1)``
    seconds, capped at ``max_interval``, plus up to 25% jitter when ``jitter``.
    ``retry_on`` is an exception class, a sequence of them, or a predicate; by
    default, as LangGraph's, every exception but a programming error's
    (:func:`engine._internal._retry.default_retry_on`).
    """

    initial_interval: float = 0.5
    backoff_factor: float = 2.0
    max_interval: float = 128.0
    max_attempts: int = 3
    jitter: bool = True
    retry_on: type[BaseException] | Sequence[type[BaseException]] | Callable[[Exception], bool] = default_retry_on


class PregelTask(NamedTuple):
    """A task due in a snapshot's next step."""

    id: str
    name: str
    path: tuple[Any, ...] = ()
    error: Exception | None = None
    interrupts: tuple[Interrupt, ...] = ()
    state: Any = None
    result: Any = None


class StateUpdate(NamedTuple):
    """One update of ``bulk_update_state``: ``values`` as if node ``as_node`` returned them."""

    values: dict[str, Any] | None
    as_node: str | None = None
    task_id: str | None = None


class StateSnapshot(NamedTuple):
    """A version of a thread's state, as ``get_state`` returns it."""

    values: dict[str, Any]
    next: tuple[str, ...]
    config: dict[str, Any]
    metadata: dict[str, Any] | None
    created_at: str | None
    parent_config: dict[str, Any] | None
    tasks: tuple[PregelTask, ...]
    interrupts: tuple[Interrupt, ...] = ()




def ensure_valid_checkpointer(checkpointer: Any) -> Any:
    """``checkpointer`` if it is one a graph takes (a saver, True, False or None), else LangGraph's TypeError.

    A saver is known by the contract it keeps (``aget_tuple``, ``aput``,
    ``aput_writes``: what a run calls), so this module need not import the
    savers, which import it.
    """
    saver = all(callable(getattr(checkpointer, m, None)) for m in ("aget_tuple", "aput", "aput_writes"))
    if checkpointer not in (None, True, False) and not saver:
        raise TypeError(
            "Invalid checkpointer provided. Expected an instance of `BaseCheckpointSaver`, `True`, `False`, or `None`. "
            f"Received {type(checkpointer).__name__!s}. Pass a proper saver (e.g., InMemorySaver, AsyncPostgresSaver)."
        )
    return checkpointer


@dataclass(frozen=True, slots=True, kw_only=True)
class TracePolicy:
    """What a node's own run records in the caller's callbacks (tracers): ``process_inputs`` is given
    the node's input and ``process_outputs`` its output, and what they return is recorded instead
    (``add_node(trace_policy=)``). The node itself still gets and returns the real values."""

    process_inputs: Callable[[Any], Any] | None = None
    process_outputs: Callable[[Any], Any] | None = None


def omit_payload(_value: Any) -> dict[str, Any]:
    """A :class:`TracePolicy` processor recording an empty payload (the run and its timing stay)."""
    return {}


#: A chunk of ``stream(..., version="v2")`` (LangGraph's ``StreamPart``): a dict with the mode
#: (``"type"``), the namespace (``"ns"``) and the chunk (``"data"``); a "values" part has its
#: interrupts apart (``"interrupts"``). ``StreamPart[StateT, OutputT]`` annotates as LangGraph's does.
StreamPart = dict


@dataclass(frozen=True)
class GraphOutput(Generic[N]):
    """What ``invoke(..., version="v2")`` returns: the output (``value``, a dict or the output schema's
    instance) and the interrupts the run stopped at."""

    value: N
    interrupts: tuple[Interrupt, ...] = ()

    def __getitem__(self, key: str) -> Any:
        """The old, dict-like reading (deprecated, as in LangGraph): ``"__interrupt__"`` or a key of ``value``."""
        _deprecated_access("result[key]")
        if key == "__interrupt__":
            return self.interrupts
        if isinstance(self.value, dict):
            return self.value[key]
        try:
            return getattr(self.value, key)
        except AttributeError:
            raise KeyError(key) from None

    def __contains__(self, key: object) -> bool:
        _deprecated_access("key in result")
        if key == "__interrupt__":
            return bool(self.interrupts)
        if isinstance(self.value, dict):
            return key in self.value
        return isinstance(key, str) and hasattr(self.value, key)


def _deprecated_access(how: str) -> None:
    import warnings

    from engine.warnings import LangGraphDeprecatedSinceV11

    warnings.warn(
        f"Accessing GraphOutput via `{how}` is deprecated. Use `result.value` to access the output value directly, "
        "or `result.interrupts` for interrupts.",
        LangGraphDeprecatedSinceV11,
        stacklevel=3,
    )
