"""The one table from failures to gRPC status codes.

Handlers raise; :func:`status_for` decides the code. Engine errors are mapped
by class (most specific first); anything unexpected is INTERNAL with the
exception's type in the message (the traceback goes to the server log, not to
the caller).
"""

from __future__ import annotations

import grpc

from engine import errors as E
from server._json import PayloadError

__all__ = ["RpcError", "status_for", "TABLE"]


class RpcError(Exception):
    """A failure the handler already knows the status code of."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# Checked in order: the first matching class wins.
TABLE: tuple[tuple[type[BaseException], grpc.StatusCode], ...] = (
    (E.NotFoundError, grpc.StatusCode.NOT_FOUND),
    (E.InvalidResumeError, grpc.StatusCode.FAILED_PRECONDITION),
    (E.EmptyInputError, grpc.StatusCode.FAILED_PRECONDITION),
    (E.InvalidUpdateError, grpc.StatusCode.INVALID_ARGUMENT),
    (E.SerializationError, grpc.StatusCode.INVALID_ARGUMENT),
    (PayloadError, grpc.StatusCode.INVALID_ARGUMENT),
    (E.CorruptCheckpointError, grpc.StatusCode.DATA_LOSS),
    (E.CheckpointError, grpc.StatusCode.UNAVAILABLE),
    (E.GraphDefinitionError, grpc.StatusCode.INVALID_ARGUMENT),
    (ValueError, grpc.StatusCode.INVALID_ARGUMENT),
)


def status_for(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    if isinstance(exc, RpcError):
        return exc.code, exc.message
    for cls, code in TABLE:
        if isinstance(exc, cls):
            return code, str(exc) or type(exc).__name__
    return grpc.StatusCode.INTERNAL, f"internal error ({type(exc).__name__}); see the server log"
