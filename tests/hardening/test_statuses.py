"""The real status reaches the caller (issue 13, item 11).

* Server reflection needs a token as every RPC but health does, and works
  with any accepted one: the shared ``auth_token`` or any tenant's token of
  ``auth_tokens`` (it describes the API, not a tenant's threads). Without one,
  or with a wrong one, it answers UNAUTHENTICATED, never UNKNOWN.
* A status message is sent in the call's trailers, which a client refuses
  past its metadata limit (8 KiB for grpcio): the caller would get
  RESOURCE_EXHAUSTED instead of the status. So every message is cut to
  :data:`server._errors.MAX_MESSAGE_BYTES` (saying how much was cut), and the
  caller gets the real code, however long what the request named.
"""

from __future__ import annotations

import json

from typing import Any

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from server._errors import MAX_MESSAGE_BYTES
from tests.conftest import start_server_process

ACME, GLOBEX = "acme-token-0123456789", "globex-token-0123456789"
SHARED = "shared-token-0123456789"
SERVICE = "graphwire.v1.GraphService"


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> Any:
    work = tmp_path_factory.mktemp("statuses-tenants")
    tokens = work / "tokens.toml"
    tokens.write_text(f'acme = "{ACME}"\nglobex = "{GLOBEX}"\n')
    srv = start_server_process(work, args=["--auth-tokens", str(tokens)])
    yield srv
    assert srv.terminate() == 0, srv.log()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = start_server_process(tmp_path_factory.mktemp("statuses-shared"), token=SHARED)
    yield srv
    assert srv.terminate() == 0, srv.log()


def _services(srv: Any, token: str | None) -> set[str]:
    metadata = (("authorization", f"Bearer {token}"),) if token is not None else ()
    with srv.channel() as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        [reply] = list(stub.ServerReflectionInfo(iter([request]), metadata=metadata, timeout=10))
    return {s.name for s in reply.list_services_response.service}


@pytest.mark.parametrize("server, token", [("tenants", ACME), ("tenants", GLOBEX), ("shared", SHARED)])
def test_reflection_works_with_any_accepted_token(server: str, token: str, request: pytest.FixtureRequest) -> None:
    assert SERVICE in _services(request.getfixturevalue(server), token)


@pytest.mark.parametrize("server", ["tenants", "shared"])
@pytest.mark.parametrize("token", [None, "wrong-token"])
def test_reflection_without_a_good_token_is_unauthenticated(server: str, token: str | None, request: pytest.FixtureRequest) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        _services(request.getfixturevalue(server), token)
    assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED, refused.value.details()
    assert "bearer token" in refused.value.details()


def _js(value: Any) -> str:
    return json.dumps(value)


LONG = "n" * 200_000  # far past any metadata limit, well under the request limit


@pytest.mark.parametrize(
    "rpc, request_of, code",
    [
        (
            "Invoke",
            lambda t: pb.InvokeRequest(graph="chain3", thread_id=t, input_json=_js({"n": 0}), config=pb.RunConfig(interrupt_before=[LONG])),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            "Resume",
            lambda t: pb.ResumeRequest(graph="chain3", thread_id=t, resume_json=_js(1), config=pb.RunConfig(interrupt_after=["a", LONG])),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        ("Fork", lambda t: pb.ForkRequest(graph="chain3", thread_id=t, checkpoint_id="c1", update_json=_js({}), as_node=LONG), grpc.StatusCode.INVALID_ARGUMENT),
        ("UpdateState", lambda t: pb.UpdateStateRequest(graph="chain3", thread_id=t, values_json=_js({}), as_node=LONG), grpc.StatusCode.INVALID_ARGUMENT),
    ],
    ids=["invoke-unknown-node", "resume-unknown-node", "fork-unknown-as-node", "update-unknown-as-node"],
)
def test_an_overlong_message_is_cut_and_the_status_is_the_real_one(rpc: str, request_of: Any, code: grpc.StatusCode, server: Any, thread_id: str) -> None:
    with server.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        with pytest.raises(grpc.RpcError) as failed:
            reply = getattr(stub, rpc)(request_of(thread_id), timeout=10)
            if rpc in ("Invoke", "Resume", "Fork"):
                list(reply)
    assert failed.value.code() is code, failed.value.details()[:300]
    details = failed.value.details()
    assert len(details.encode()) <= MAX_MESSAGE_BYTES and "more characters cut" in details, details[-200:]
