"""The one table from gRPC statuses to HTTP ones, on plain exceptions (what the servicer's parts raise)."""

from __future__ import annotations

import grpc
import pytest

from engine import errors as E
from server._errors import RpcError, ThreadBusy
from server.http._errors import HTTP_STATUS, http_error, invalid_message, not_served


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (RpcError(grpc.StatusCode.NOT_FOUND, "no assistant 'x'"), 404),
        (RpcError(grpc.StatusCode.ALREADY_EXISTS, "exists"), 409),
        (RpcError(grpc.StatusCode.INVALID_ARGUMENT, "limit: at most 1000"), 422),
        (RpcError(grpc.StatusCode.FAILED_PRECONDITION, "interrupted"), 409),
        (ThreadBusy("thread 't' has a run"), 409),
        (RpcError(grpc.StatusCode.PERMISSION_DENIED, "shared"), 403),
        (RpcError(grpc.StatusCode.UNAUTHENTICATED, "token"), 401),
        (RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, "too large"), 413),
        (E.CheckpointError("connection refused"), 503),
        (E.NotFoundError("unknown graph 'g'"), 404),
        (ValueError("bad"), 422),
        (RpcError(grpc.StatusCode.DATA_LOSS, "corrupt"), 500),
        (KeyError("a bug"), 500),
    ],
)
def test_status_table(exc: BaseException, status: int) -> None:
    assert http_error(exc).status == status


def test_messages_are_the_grpc_ones() -> None:
    assert http_error(RpcError(grpc.StatusCode.NOT_FOUND, "no assistant 'x'")).message == "no assistant 'x'"
    assert http_error(E.CheckpointError("refused")).message == "checkpointer unavailable: refused"
    assert http_error(KeyError("secret detail")).message == "internal error (KeyError); see the server log"
    assert set(HTTP_STATUS.values()) == {401, 403, 404, 409, 413, 422, 503}


def test_validation_errors_name_their_fields() -> None:
    errors = [
        {"type": "extra_forbidden", "loc": ("body", "temperature"), "msg": "Extra inputs are not permitted"},
        {"type": "missing", "loc": ("body", "graph_id"), "msg": "Field required"},
        {"type": "int_parsing", "loc": ("query", "limit"), "msg": "Input should be a valid integer"},
    ]
    assert invalid_message(errors) == (
        "body.temperature: unknown field (graphwire refuses options it does not apply); body.graph_id: required; "
        "query.limit: Input should be a valid integer"
    )


def test_not_served_messages() -> None:
    assert "runs are not served" in not_served("/threads/t/runs/stream")
    assert "runs are not served" in not_served("/threads/t/stream")
    assert "A2A" in not_served("/a2a/x") and "MCP" in not_served("/mcp")
    assert "no such route" in not_served("/threadsx") and "no such route" in not_served("/threads/t/nothing")
    # Once the runs' routes are there, a run route none of them serves is only unknown.
    assert "no such route" in not_served("/threads/t/runs/x", ("server.http._runs",))
    assert "crons are not served" in not_served("/crons/search", ("server.http._runs",))
