"""The durable-turn fields of the wire (request_id, on_disconnect, background,
JoinRun, GetRun, ListRuns) are refused while the server does not honour them:
UNIMPLEMENTED naming the field, never accepted and ignored, and nothing is
written."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

UN, IA = grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.INVALID_ARGUMENT
INPUT = json.dumps({"n": 0})


def _call(server: Any, rpc: str, request: Any) -> None:
    with server.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        methods = {
            "Invoke": stub.Invoke, "Resume": stub.Resume, "Fork": stub.Fork, "UpdateState": stub.UpdateState,
            "JoinRun": stub.JoinRun, "GetRun": stub.GetRun, "ListRuns": stub.ListRuns,
        }  # fmt: skip
        result = methods[rpc](request, timeout=10)
        if rpc in ("Invoke", "Resume", "Fork", "JoinRun"):
            list(result)


CASES = [
    ("Invoke", lambda t: pb.InvokeRequest(graph="chain3", thread_id=t, input_json=INPUT, request_id="r1"), UN, "request_id"),
    ("Invoke", lambda t: pb.InvokeRequest(graph="chain3", thread_id=t, input_json=INPUT, on_disconnect=pb.ON_DISCONNECT_CONTINUE), UN, "on_disconnect"),
    ("Invoke", lambda t: pb.InvokeRequest(graph="chain3", thread_id=t, input_json=INPUT, on_disconnect=7), IA, "on_disconnect"),
    ("Invoke", lambda t: pb.InvokeRequest(graph="chain3", thread_id=t, input_json=INPUT, background=True), UN, "background"),
    ("Resume", lambda t: pb.ResumeRequest(graph="chain3", thread_id=t, resume_json="1", request_id="r1"), UN, "request_id"),
    ("Fork", lambda t: pb.ForkRequest(graph="chain3", thread_id=t, checkpoint_id="c", background=True), UN, "background"),
    ("UpdateState", lambda t: pb.UpdateStateRequest(graph="chain3", thread_id=t, values_json=INPUT, request_id="r1"), UN, "request_id"),
    ("JoinRun", lambda t: pb.JoinRunRequest(run_id="r"), UN, "JoinRun"),
    ("GetRun", lambda t: pb.GetRunRequest(run_id="r"), UN, "GetRun"),
    ("ListRuns", lambda t: pb.ListRunsRequest(graph="chain3", thread_id=t), UN, "ListRuns"),
]


@pytest.mark.parametrize(("rpc", "build", "code", "word"), CASES, ids=[f"{c[0]}-{c[3]}-{c[2].name}" for c in CASES])
def test_refused_not_ignored(server: Any, thread_id: str, rpc: str, build: Any, code: grpc.StatusCode, word: str) -> None:
    with pytest.raises(grpc.RpcError) as failed:
        _call(server, rpc, build(thread_id))
    assert failed.value.code() is code, failed.value.details()
    assert word in (failed.value.details() or "")
    with server.channel() as channel:  # nothing was written
        with pytest.raises(grpc.RpcError) as missing:
            pb_grpc.GraphServiceStub(channel).GetState(pb.GetStateRequest(graph="chain3", thread_id=thread_id), timeout=10)
    assert missing.value.code() is grpc.StatusCode.NOT_FOUND
