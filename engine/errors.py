"""The engine's error tree.

Every failure the engine raises derives from :class:`GraphwireError`::

    GraphwireError
    ├── GraphDefinitionError      the graph as built cannot be compiled
    ├── GraphRunError             a run could not go on
    │   ├── InvalidUpdateError    a write the channels reject (two writes to a plain key…)
    │   │   └── InvalidRouteError   a router's answer its path_map does not name (also a ``KeyError``)
    │   ├── EmptyInputError       a run was started with no input and nothing to resume
    │   ├── GraphRecursionError   the run hit ``recursion_limit`` (also a ``RecursionError``)
    │   ├── InvalidResumeError    a resume with nothing pending, or naming an unknown interrupt
    │   │   │                     (also a ``RuntimeError``, as LangGraph's refused resumes are)
    │   │   └── UnknownInterruptError  strict resume mode: the answers do not match the pending interrupts
    │   ├── NodeTimeoutError      a node's attempt ran past its ``TimeoutPolicy`` (retryable)
    │   ├── NodeCancelledError    a node raised ``asyncio.CancelledError`` itself
    │   └── MultipleSubgraphsError  a node ran two subgraphs that would share one namespace
    ├── NotFoundError             an unknown thread or checkpoint (also a ``LookupError``)
    ├── CheckpointError           the saver failed to read or write
    │   ├── CorruptCheckpointError  stored bytes that do not decode
    │   └── LeaseLostError        a write fenced off: its run no longer holds the thread
    ├── StoreError                the long-term memory store failed to read or write
    │   └── CorruptItemError      a stored item that does not decode
    ├── CacheError                the node cache failed to read or write
    ├── InvalidNamespaceError     a store namespace LangGraph's rules refuse (also a ``ValueError``)
    └── SerializationError        a value outside the serializer's allowlist
        └── StateTooLargeError    a version or write over the saver's size limit (engine.serde)

Interrupts are control flow, not failures: :class:`GraphInterrupt` derives from
:class:`GraphBubbleUp` (an ``Exception``), so ``except GraphwireError`` never
swallows one; nor :class:`ParentCommand`, a subgraph's node handing a
``Command(graph=Command.PARENT)`` to the graph it runs in (raised by a root
graph's call, as LangGraph's is, since it has no parent).
Exceptions raised by a node itself reach the caller unchanged. :class:`NodeError`
is no exception: it is what a node's error handler is given (the failed node
and its exception).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, Sequence

from engine._internal._interrupt import Interrupt

__all__ = [
    "GraphwireError",
    "GraphDefinitionError",
    "GraphRunError",
    "InvalidUpdateError",
    "InvalidRouteError",
    "EmptyInputError",
    "GraphRecursionError",
    "InvalidResumeError",
    "UnknownInterruptError",
    "TaskNotFound",
    "NotFoundError",
    "CheckpointError",
    "CorruptCheckpointError",
    "LeaseLostError",
    "SerializationError",
    "StoreError",
    "CorruptItemError",
    "CacheError",
    "InvalidNamespaceError",
    "NodeError",
    "NodeTimeoutError",
    "NodeCancelledError",
    "GraphBubbleUp",
    "EmptyChannelError",
    "GraphDrained",
    "ErrorCode",
    "create_error_message",
    "is_invalid_resume",
    "GraphInterrupt",
    "NodeInterrupt",
    "ParentCommand",
    "MultipleSubgraphsError",
]


class ErrorCode(Enum):
    """LangGraph's error codes: the last part of the troubleshooting link its messages end with."""

    GRAPH_RECURSION_LIMIT = "GRAPH_RECURSION_LIMIT"
    INVALID_CONCURRENT_GRAPH_UPDATE = "INVALID_CONCURRENT_GRAPH_UPDATE"
    INVALID_GRAPH_NODE_RETURN_VALUE = "INVALID_GRAPH_NODE_RETURN_VALUE"
    MULTIPLE_SUBGRAPHS = "MULTIPLE_SUBGRAPHS"
    INVALID_CHAT_HISTORY = "INVALID_CHAT_HISTORY"


def create_error_message(*, message: str, error_code: ErrorCode) -> str:
    """``message`` and LangGraph's troubleshooting link for ``error_code``, as its errors read."""
    return f"{message}\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/{error_code.value}"


_INVALID_RESUME = "_langgraph_invalid_resume"


def mark_invalid_resume(error: BaseException) -> None:
    """Mark ``error`` as an answer that did not match its question's ``response_schema``."""
    setattr(error, _INVALID_RESUME, True)


def is_invalid_resume(error: BaseException) -> bool:
    """Whether ``error`` was raised because a resume value did not match its interrupt's ``response_schema``
    (LangGraph's: such a run can be resumed again with a valid answer)."""
    return getattr(error, _INVALID_RESUME, False) is True


class GraphwireError(Exception):
    """Root of every failure the engine raises."""


class GraphDefinitionError(GraphwireError, ValueError):
    """The graph as built cannot be compiled."""


class GraphRunError(GraphwireError):
    """A run could not go on."""


class InvalidUpdateError(GraphRunError):
    """A write that the state's channels reject."""


class InvalidRouteError(InvalidUpdateError, KeyError):
    """A conditional edge returned a value its ``path_map`` does not name.

    Also a ``KeyError``: LangGraph looks the value up in the path map and
    lets the ``KeyError`` out, so ``except KeyError`` clauses written for it
    catch this too.
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class EmptyInputError(GraphRunError):
    """A run was started with no input and nothing to resume."""


class GraphRecursionError(GraphRunError, RecursionError):
    """The run reached its ``recursion_limit`` before reaching END.

    Raise ``recursion_limit`` in the run's config if the graph loops on purpose.
    """


class InvalidResumeError(GraphRunError, RuntimeError):
    """A resume that matches no pending interrupt.

    A ``RuntimeError``, as LangGraph's refusals are (several interrupts
    pending and a plain answer; a resume without a checkpointer).
    """


class TaskNotFound(Exception):
    """LangGraph's error of a task its distributed executor cannot find. The engine runs its tasks in
    the process that planned them and never raises it; it is here for code that names it."""


class UnknownInterruptError(InvalidResumeError):
    """Strict resume mode (LangGraph's ``configurable["__pregel_strict_resume"]``): a resume that does
    not match the interrupts pending, refused before anything is written, so they can still be answered.

    ``reason``: ``"not_pending"`` (the map names interrupts not pending: ``interrupt_ids``),
    ``"empty_map"``, or ``"ambiguous"`` (one answer while several are pending); ``pending_ids``: those
    still waiting. One answer with none pending is taken (it goes on from a static breakpoint).
    """

    def __init__(
        self,
        message: str,
        *,
        reason: Literal["not_pending", "empty_map", "ambiguous"],
        interrupt_ids: Sequence[str] = (),
        pending_ids: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.interrupt_ids = tuple(interrupt_ids)
        self.pending_ids = tuple(pending_ids)


class MultipleSubgraphsError(GraphRunError):
    """A node ran a second subgraph with a checkpointer: both would save under the task's one namespace.

    As LangGraph: give each its own node, or compile them with ``checkpointer=False``.
    """


class NodeTimeoutError(GraphRunError):
    """A node's attempt ran past its :class:`~engine.types.TimeoutPolicy` and was cancelled.

    Not a built-in ``TimeoutError`` (an ``OSError``), so the default
    ``RetryPolicy`` retries it, as LangGraph's. ``run_timeout`` and
    ``idle_timeout`` are the policy's (None when unset); ``kind`` says which
    one fired and ``timeout`` is its value; ``elapsed`` the attempt's seconds.
    """

    def __init__(
        self,
        node: str,
        elapsed: float,
        *,
        kind: Literal["idle", "run"],
        idle_timeout: float | None = None,
        run_timeout: float | None = None,
    ) -> None:
        if kind == "idle":
            if idle_timeout is None:
                raise ValueError("idle_timeout is required when kind='idle'")
            self.timeout: float = idle_timeout
            message = (f"Node '{node}' exceeded its idle timeout of {idle_timeout:.3f}s without making progress "
                       f"(elapsed: {elapsed:.3f}s).")  # fmt: skip
        elif kind == "run":
            if run_timeout is None:
                raise ValueError("run_timeout is required when kind='run'")
            self.timeout = run_timeout
            message = f"Node '{node}' exceeded its run timeout of {run_timeout:.3f}s (elapsed: {elapsed:.3f}s)."
        else:
            raise ValueError("kind must be 'idle' or 'run'")
        super().__init__(message)
        self.node = node
        self.elapsed = elapsed
        self.kind = kind
        self.idle_timeout = idle_timeout
        self.run_timeout = run_timeout


class NodeCancelledError(GraphRunError):
    """A node raised ``asyncio.CancelledError`` itself (not the run being cancelled): a failure of
    the node like any other, as LangGraph reports it, rather than a silent stop."""

    def __init__(self, node: str, message: str | None = None) -> None:
        super().__init__(message or f"Node {node!r} raised asyncio.CancelledError")
        self.node = node


@dataclass(frozen=True, slots=True)
class NodeError:
    """What a node's error handler (``add_node(..., error_handler=...)``) is given in its ``error``
    parameter: the failed node's name and the exception it raised after its retries."""

    node: str
    error: BaseException


class NotFoundError(GraphwireError, LookupError):
    """An unknown thread or checkpoint."""


class CheckpointError(GraphwireError):
    """The checkpointer failed to read or write."""


class CorruptCheckpointError(CheckpointError):
    """Stored bytes that do not decode into an allowed value."""


class LeaseLostError(CheckpointError):
    """A write refused because its run no longer holds the thread's lease.

    Raised by a saver that enforces one run per thread across processes
    (``supports_leases``): another process took the thread over, the lease
    lapsed, or the write does not continue the version this lease last
    wrote. Nothing was stored. The run must stop; the thread goes on
    wherever its lease is now held.
    """


class StoreError(GraphwireError):
    """The store (:mod:`engine.store`) failed to read or write.

    Raised for a database that cannot be reached or refuses a statement, and
    for stored rows that do not decode (the message names the namespace and
    key). Nothing of the failed batch is stored.
    """


class CorruptItemError(StoreError):
    """A stored item (its value or a vector) that does not decode; the message names the item."""


class CacheError(GraphwireError):
    """The node cache (:mod:`engine.cache`) failed to read or write.

    Raised for a database that cannot be reached or refuses a statement, and
    for cached rows that do not decode. A failed write stores nothing of its
    batch; the run that asked fails with this error, as with a saver's.
    """


class InvalidNamespaceError(GraphwireError, ValueError):
    """A store namespace or label that LangGraph's rules refuse.

    Labels are non-empty strings without ``.`` or NUL; a namespace written to
    is non-empty and does not start with ``"langgraph"``.
    """


class SerializationError(GraphwireError, TypeError):
    """A value outside the serializer's allowlist.

    The message names the state key and the path inside it, e.g.
    ``state key 'messages' at [3].content: cannot store object of type Foo``.
    """


class EmptyChannelError(Exception):
    """Read of a channel that holds no value yet (control flow, not a failure: outside the tree)."""


class GraphBubbleUp(Exception):
    """Control flow that leaves a node for the graph around it: an interrupt, or a Command for the parent graph."""


class GraphDrained(GraphBubbleUp):
    """A run stopped at a superstep's start because its ``RunControl.request_drain()`` was called
    (LangGraph's): its version is saved, so ``invoke(None, config)`` goes on from there."""

    def __init__(self, reason: str = "shutdown") -> None:
        self.reason = reason
        super().__init__(f"Graph drained: {reason}")


class GraphInterrupt(GraphBubbleUp):
    """Control flow: a node stopped the run to wait for input.

    Carries the :class:`~engine.types.Interrupt` objects raised.
    """

    def __init__(self, interrupts: Sequence[Any] = ()) -> None:
        # args[0] is the sequence as given (a list stays a list), as LangGraph's
        super().__init__(interrupts if isinstance(interrupts, (list, tuple)) else tuple(interrupts))
        self.interrupts = tuple(interrupts)


class NodeInterrupt(GraphInterrupt):
    """Raised by a node to interrupt with a value (LangGraph's older spelling)."""

    def __init__(self, value: Any, id: str | None = None) -> None:
        from engine.warnings import LangGraphDeprecatedSinceV10

        warnings.warn("NodeInterrupt is deprecated. Please use `langgraph.types.interrupt` instead.",
                      LangGraphDeprecatedSinceV10, stacklevel=2)
        # LangGraph's Interrupt default id: the interrupt has no id of its own (it is not answered by id)
        super().__init__([Interrupt(value=value, id=id or "placeholder-id")])


class ParentCommand(GraphBubbleUp):
    """Control flow: a subgraph's node returned ``Command(graph=Command.PARENT, ...)``.

    It ends the subgraph's run and reaches the parent's task, which applies
    the command (its ``update`` and ``goto``) as if its node had returned it.
    """

    def __init__(self, command: Any) -> None:
        super().__init__(command)
        self.command = command
        #: raised by a graph a node ran on its own (a config of its own): there is no parent
        #: graph to take it, so it goes on up as an error, as LangGraph's does
        self.orphan = False
