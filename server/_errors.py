"""The one table from failures to gRPC status codes.

Handlers raise; :func:`status_for` decides the code. Engine errors are mapped
by class (most specific first); anything unexpected is INTERNAL with the
exception's type in the message (the traceback goes to the server log, not to
the caller).

Storage: a write fenced off because the run lost its thread's lease to another
replica is ABORTED (as a busy thread is); any other checkpointer failure (the
database refused the connection, dropped it, shut down) is UNAVAILABLE, its
message starting "checkpointer unavailable: ", and the call may be retried.
A state or metadata over a saver's size limit is RESOURCE_EXHAUSTED.
The store likewise: a store item that does not decode is DATA_LOSS, any
other store failure UNAVAILABLE, its message starting "store unavailable: ".

The gRPC calls get their status from here through :class:`server._calls.Calls`
(an interceptor: no handler catches), and the inspector's HTTP API through
the same :func:`status_for`.
"""

from __future__ import annotations

import grpc

from engine import errors as E
from engine.serde import StateTooLargeError
from server._json import PayloadError

__all__ = ["MAX_MESSAGE_BYTES", "RpcError", "ThreadBusy", "cut", "status_for", "TABLE"]


class RpcError(Exception):
    """A failure the handler already knows the status code of."""

    #: Trailing metadata sent with the status (machine-readable detail, e.g. a refused turn's).
    trailers: tuple[tuple[str, bytes], ...] = ()

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ThreadBusy(RpcError):
    """ABORTED: the thread already has a run (here, or on another replica), and the call did not enqueue."""

    def __init__(self, message: str) -> None:
        super().__init__(grpc.StatusCode.ABORTED, message)


# Checked in order: the first matching class wins.
TABLE: tuple[tuple[type[BaseException], grpc.StatusCode], ...] = (
    (E.NotFoundError, grpc.StatusCode.NOT_FOUND),
    (E.InvalidResumeError, grpc.StatusCode.FAILED_PRECONDITION),
    (E.EmptyInputError, grpc.StatusCode.FAILED_PRECONDITION),
    (E.InvalidUpdateError, grpc.StatusCode.INVALID_ARGUMENT),
    (StateTooLargeError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (E.SerializationError, grpc.StatusCode.INVALID_ARGUMENT),
    (PayloadError, grpc.StatusCode.INVALID_ARGUMENT),
    (E.CorruptCheckpointError, grpc.StatusCode.DATA_LOSS),
    (E.CorruptItemError, grpc.StatusCode.DATA_LOSS),
    (E.LeaseLostError, grpc.StatusCode.ABORTED),
    (E.CheckpointError, grpc.StatusCode.UNAVAILABLE),
    (E.StoreError, grpc.StatusCode.UNAVAILABLE),
    (E.CacheError, grpc.StatusCode.UNAVAILABLE),
    (E.GraphDefinitionError, grpc.StatusCode.INVALID_ARGUMENT),
    (ValueError, grpc.StatusCode.INVALID_ARGUMENT),
)


#: The longest status message sent, in UTF-8 bytes. It travels in the call's
#: trailers, percent-encoded (up to 3 bytes per byte); a client refuses trailers
#: past its metadata limit (8 KiB for grpcio) and reports RESOURCE_EXHAUSTED
#: instead of the status, so longer messages are cut.
MAX_MESSAGE_BYTES = 1024


def _unavailable(exc: BaseException) -> str:
    if isinstance(exc, E.CacheError):
        return "node cache unavailable: "
    return "store unavailable: " if isinstance(exc, E.StoreError) else "checkpointer unavailable: "


def status_for(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and (cut to :data:`MAX_MESSAGE_BYTES`) message for ``exc``."""
    code, message = _status(exc)
    return code, cut(message)


def cut(message: str) -> str:
    """``message``, at most :data:`MAX_MESSAGE_BYTES` bytes of UTF-8, saying what was cut."""
    data = message.encode("utf-8", "replace")
    if len(data) <= MAX_MESSAGE_BYTES:
        return message
    keep = data[: MAX_MESSAGE_BYTES - 48].decode("utf-8", "ignore")
    return f"{keep}… ({len(message) - len(keep)} more characters cut)"


def _status(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    if isinstance(exc, RpcError):
        return exc.code, exc.message
    for cls, code in TABLE:
        if isinstance(exc, cls):
            message = str(exc) or type(exc).__name__
            if code == grpc.StatusCode.UNAVAILABLE and not message.startswith(prefix := _unavailable(exc)):
                message = prefix + message
            return code, message
    return grpc.StatusCode.INTERNAL, f"internal error ({type(exc).__name__}); see the server log"
