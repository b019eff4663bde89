"""The errors the client raises: one class per gRPC status code.

::

    GraphwireError                 root; carries code, message, details
    ├── NotFound                   unknown graph, thread or checkpoint
    ├── InvalidArgument            malformed request (the message names the field)
    ├── FailedPrecondition         resume with nothing pending
    ├── Aborted                    the thread already has a run
    ├── ResourceExhausted          message over the server's size limit
    ├── Unauthenticated            missing or wrong token
    ├── PermissionDenied
    ├── Unavailable                server down or unreachable (retry later)
    ├── Cancelled                  the call was cancelled
    ├── DeadlineExceeded           the call's timeout passed
    ├── AlreadyExists
    ├── OutOfRange
    ├── Unimplemented              the server is older than this client
    ├── Internal
    ├── DataLoss
    └── Unknown                    anything else, including a broken stream

A node that raises inside a run is *not* one of these: the run finishes with
reason ``ERROR`` and ``RunResult.error`` says what happened. These errors are
for calls that failed as calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import grpc

if TYPE_CHECKING:
    from graphwire._types import TurnRefused

__all__ = [
    "GraphwireError",
    "NotFound",
    "InvalidArgument",
    "FailedPrecondition",
    "Aborted",
    "ResourceExhausted",
    "Unauthenticated",
    "PermissionDenied",
    "Unavailable",
    "Cancelled",
    "DeadlineExceeded",
    "AlreadyExists",
    "OutOfRange",
    "Unimplemented",
    "Internal",
    "DataLoss",
    "Unknown",
    "error_for_status",
    "error_from_rpc",
]


class GraphwireError(Exception):
    """A call to the graphwire server failed.

    Attributes:
        code: The gRPC status code.
        message: The server's readable explanation.
        details: The call's trailing metadata (binary ``-bin`` keys keep
            their bytes), where a server may put machine-readable detail.
        run_id: The run's id, when a run call fails after its run started.
        request_id: The call's request id (run calls): calling again with
            ``request_id=`` this value is the same call, never applied twice.
    """

    status: ClassVar[grpc.StatusCode | None] = None
    run_id: str | None = None
    request_id: str | None = None

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        details: Mapping[str, str | bytes] | None = None,
    ) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.details: Mapping[str, str | bytes] = dict(details or {})

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"


class NotFound(GraphwireError):
    """Unknown graph, thread or checkpoint."""

    status = grpc.StatusCode.NOT_FOUND


class InvalidArgument(GraphwireError):
    """The request is malformed; the message names the field."""

    status = grpc.StatusCode.INVALID_ARGUMENT


class FailedPrecondition(GraphwireError):
    """The thread is not in a state that allows the call (e.g. nothing to resume, or a
    chat-safe turn refused: see :attr:`refused`)."""

    status = grpc.StatusCode.FAILED_PRECONDITION

    @property
    def refused(self) -> TurnRefused | None:
        """Why a chat-safe turn was refused (``if_interrupted="reject"``, ``expect_checkpoint_id``):
        the thread's newest version and its pending interrupts; None for any other failed precondition."""
        data = self.details.get(TURN_REFUSED_KEY)
        if not isinstance(data, bytes):
            return None
        from graphwire._decode import turn_refused  # the errors module imports no decoding at load

        return turn_refused(data)


class Aborted(GraphwireError):
    """The thread already has a run; pass ``enqueue=True`` to wait for it."""

    status = grpc.StatusCode.ABORTED


class ResourceExhausted(GraphwireError):
    """A message is over the server's size limit, or a server limit was hit."""

    status = grpc.StatusCode.RESOURCE_EXHAUSTED


class Unauthenticated(GraphwireError):
    """The server wants a token (``Client(..., token=...)``) and got none or a wrong one."""

    status = grpc.StatusCode.UNAUTHENTICATED


class PermissionDenied(GraphwireError):
    """The caller may not do this."""

    status = grpc.StatusCode.PERMISSION_DENIED


class Unavailable(GraphwireError):
    """The server could not be reached or is shutting down; retrying may work."""

    status = grpc.StatusCode.UNAVAILABLE


class Cancelled(GraphwireError):
    """The call was cancelled."""

    status = grpc.StatusCode.CANCELLED


class DeadlineExceeded(GraphwireError):
    """The call's timeout passed before it finished (its run is cancelled)."""

    status = grpc.StatusCode.DEADLINE_EXCEEDED


class AlreadyExists(GraphwireError):
    """What the call would create already exists."""

    status = grpc.StatusCode.ALREADY_EXISTS


class OutOfRange(GraphwireError):
    """A value is outside the range the server accepts."""

    status = grpc.StatusCode.OUT_OF_RANGE


class Unimplemented(GraphwireError):
    """The server does not have this RPC (it is older than this client)."""

    status = grpc.StatusCode.UNIMPLEMENTED


class Internal(GraphwireError):
    """The server broke an invariant of its own."""

    status = grpc.StatusCode.INTERNAL


class DataLoss(GraphwireError):
    """Stored data was lost or corrupted."""

    status = grpc.StatusCode.DATA_LOSS


class Unknown(GraphwireError):
    """The call failed for a reason with no better status code."""

    status = grpc.StatusCode.UNKNOWN


#: The trailing metadata key of a refused chat-safe turn (a serialized ``graphwire.v1.TurnRefused``).
TURN_REFUSED_KEY = "graphwire-turn-refused-bin"

_BY_STATUS: Mapping[grpc.StatusCode, type[GraphwireError]] = {
    cls.status: cls for cls in GraphwireError.__subclasses__() if cls.status is not None
}


def error_for_status(
    code: grpc.StatusCode,
    message: str,
    details: Mapping[str, str | bytes] | None = None,
) -> GraphwireError:
    """The typed error for a status code (``Unknown`` for codes without a class)."""
    cls = _BY_STATUS.get(code, Unknown)
    return cls(code, message, details)


def error_from_rpc(exc: grpc.RpcError) -> GraphwireError:
    """Translate a failed call (sync or ``grpc.aio``) into a typed error."""
    code = _call(exc, "code") or grpc.StatusCode.UNKNOWN
    message = _call(exc, "details") or str(exc) or code.name
    trailing = _call(exc, "trailing_metadata") or ()
    details: dict[str, str | bytes] = {}
    for item in trailing:
        key, value = item  # grpc.aio.Metadata and sync metadata both yield pairs
        details[key] = value
    return error_for_status(code, message, details)


def _call(exc: grpc.RpcError, name: str) -> Any:
    # grpc.RpcError itself defines no accessors; the concrete errors raised by
    # calls are also grpc.Call (sync) or grpc.aio.AioRpcError, which do.
    method = getattr(exc, name, None)
    try:
        return method() if callable(method) else None
    except Exception:  # an accessor on a half-built error must not hide the error
        return None
