"""Bad requests get the right status code and a message naming the problem,
and the server keeps serving. Requests are built as raw protobuf messages, so
the cases include what no well-behaved client would send (bad encodings,
invalid JSON, unknown enum values). A node's error is not an RPC error: the
run finishes ERROR and the state saved so far stays."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from graphwire import FinishReason, InvalidArgument, ResourceExhausted, Unauthenticated
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from grpc_health.v1 import health_pb2

SERVING = health_pb2.HealthCheckResponse.SERVING
OK_INPUT = {"n": 0}


def js(value: Any) -> str:
    return json.dumps(value)


def raw(data: bytes) -> str:
    return data.decode()


def with_field(message: Any, number: int, value: bytes) -> bytes:
    """``message`` serialized with one more length-delimited field, written by
    hand so that it may hold bytes no protobuf library would put in a string."""
    assert len(value) < 128
    return message.SerializeToString() + bytes([number << 3 | 2, len(value)]) + value


@dataclass(frozen=True)
class Known:
    """A thread id that exists in chain3 and in reminders (finished, nothing
    pending), and a version of its chain3 thread."""

    thread: str
    checkpoint: str

    @property
    def asking(self) -> str:
        """A reminders thread waiting at its question."""
        return f"{self.thread}-asking"


@pytest.fixture(scope="module")
def known(server: Any) -> Known:
    thread = f"bad-requests-{uuid.uuid4().hex[:8]}"
    with server.client() as client:
        first = client.invoke("chain3", thread, OK_INPUT, timeout=30)
        client.invoke("reminders", thread, {"messages": [{"role": "user", "content": "hi"}]}, timeout=30)
        remind = {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]}
        assert client.invoke("reminders", f"{thread}-asking", remind, timeout=30).interrupted
    return Known(thread, first.checkpoint.checkpoint_id)


def call(server: Any, rpc: str, request: Any, metadata: Any = (), timeout: float = 10) -> Any:
    """Make one call on a raw stub; a streaming call is read to its end.
    ``request`` may be bytes, sent as they are."""
    with server.channel() as channel:
        if isinstance(request, bytes):
            path, streams = f"/graphwire.v1.GraphService/{rpc}", rpc in ("Invoke", "Resume", "Fork")
            method = (channel.unary_stream if streams else channel.unary_unary)(path)
        else:
            method = getattr(pb_grpc.GraphServiceStub(channel), rpc)
        result = method(request, timeout=timeout, metadata=metadata)
        return list(result) if rpc in ("Invoke", "Resume", "Fork") else result


# (id, rpc, request from Known, status code, words the message must contain;
# "{thread}" stands for the known thread's id)
Case = tuple[str, str, Callable[[Known], Any], grpc.StatusCode, tuple[str, ...]]
NF, IA, FP = grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION
CASES: list[Case] = [
    # unknown things
    ("unknown graph", "Invoke", lambda k: pb.InvokeRequest(graph="nope", thread_id="t", input_json=js(OK_INPUT)), NF, ("nope",)),
    ("unknown graph get_graph", "GetGraph", lambda k: pb.GetGraphRequest(graph="nope"), NF, ("nope",)),
    ("unknown thread get_state", "GetState", lambda k: pb.GetStateRequest(graph="chain3", thread_id="no-such-thread"), NF, ("no-such-thread",)),
    ("unknown thread resume", "Resume", lambda k: pb.ResumeRequest(graph="chain3", thread_id="no-such-thread", resume_json=js("yes")), NF, ("no-such-thread",)),
    ("unknown thread delete", "DeleteThread", lambda k: pb.DeleteThreadRequest(graph="chain3", thread_id="no-such-thread"), NF, ("no-such-thread",)),
    ("unknown checkpoint get_state", "GetState", lambda k: pb.GetStateRequest(graph="chain3", thread_id=k.thread, checkpoint_id="ck-nope"), NF, ("ck-nope",)),
    ("unknown checkpoint fork", "Fork", lambda k: pb.ForkRequest(graph="chain3", thread_id=k.thread, checkpoint_id="ck-nope"), NF, ("ck-nope",)),
    ("unknown checkpoint invoke", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=js(OK_INPUT), checkpoint_id="ck-nope"), NF, ("ck-nope",)),
    ("unknown checkpoint update", "UpdateState", lambda k: pb.UpdateStateRequest(graph="chain3", thread_id=k.thread, checkpoint_id="ck-nope", values_json=js({"n": 1}), as_node="a"), NF, ("ck-nope",)),
    ("unknown checkpoint history before", "ListHistory", lambda k: pb.ListHistoryRequest(graph="chain3", thread_id=k.thread, before="ck-nope"), NF, ("ck-nope",)),
    # payloads
    ("malformed json", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=raw(b'{"n": ')), IA, ("input_json", "JSON")),
    ("input not an object", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=js([1, 2])), IA, ("input_json", "object")),
    ("input a string", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=js("hi")), IA, ("input_json", "str")),
    ("byte-order mark", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json="\ufeff{}"), IA, ("input_json", "byte-order mark")),
    ("not utf-8", "Invoke", lambda k: with_field(pb.InvokeRequest(graph="chain3", thread_id=k.thread), 11, b'{"n": "\xff"}'), IA, ("input_json", "UTF-8")),
    ("not utf-8 nested", "Invoke", lambda k: with_field(pb.InvokeRequest(graph="chain3", thread_id=k.thread), 10, bytes([6 << 3 | 2, 3]) + b'"\xfe"'), IA, ("config.metadata_json", "UTF-8")),
    ("nan", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=raw(b'{"n": NaN}')), IA, ("input_json", "NaN")),
    ("deeply nested", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=raw(b'{"n": ' + b"[" * 100 + b"]" * 100 + b"}")), IA, ("input_json", "deeper")),
    ("very deeply nested", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=raw(b"[" * 200_000 + b"]" * 200_000)), IA, ("input_json", "deeper")),
    ("resume payload malformed", "Resume", lambda k: pb.ResumeRequest(graph="reminders", thread_id=k.thread, resume_json=raw(b"{")), IA, ("resume_json",)),
    ("update not an object", "UpdateState", lambda k: pb.UpdateStateRequest(graph="chain3", thread_id=k.thread, values_json=js(3)), IA, ("values_json",)),
    ("update missing", "UpdateState", lambda k: pb.UpdateStateRequest(graph="chain3", thread_id=k.thread), IA, ("values_json",)),
    ("update a reducer refuses", "UpdateState", lambda k: pb.UpdateStateRequest(graph="chain3", thread_id=k.thread, values_json=js({"log": 5})), IA,
     ("update_state: the state's reducers rejected {{'log': 5}}: TypeError: can only concatenate list",)),
    ("history filter not an object", "ListHistory", lambda k: pb.ListHistoryRequest(graph="chain3", thread_id=k.thread, filter_json=js([1])), IA, ("filter_json",)),
    ("metadata not an object", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=js(OK_INPUT), config=pb.RunConfig(metadata_json=js(1))), IA, ("config.metadata_json",)),
    # state of the thread
    ("resume with nothing pending", "Resume", lambda k: pb.ResumeRequest(graph="reminders", thread_id=k.thread, resume_json=js("yes")), FP, ("{thread}", "pending")),
    ("resume without an answer", "Resume", lambda k: pb.ResumeRequest(graph="reminders", thread_id=k.thread), IA, ("resume_json",)),
    ("resumes with nothing pending", "Resume", lambda k: pb.ResumeRequest(graph="reminders", thread_id=k.thread, resumes_json={"i": js("y")}), FP, ("{thread}", "pending")),
    ("resumes unknown interrupt id", "Resume", lambda k: pb.ResumeRequest(graph="reminders", thread_id=k.asking, resumes_json={"bogus-id": js("yes")}), IA, ("resumes_json", "bogus-id")),
    ("resume and resumes", "Resume", lambda k: pb.ResumeRequest(graph="reminders", thread_id=k.thread, resume_json=js("y"), resumes_json={"i": js("y")}), IA, ("resumes_json",)),
    # ids
    ("empty graph", "Invoke", lambda k: pb.InvokeRequest(graph="", thread_id="t", input_json=js(OK_INPUT)), IA, ("graph", "required")),
    ("empty thread", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id="", input_json=js(OK_INPUT)), IA, ("thread_id", "required")),
    ("empty thread get_state", "GetState", lambda k: pb.GetStateRequest(graph="chain3", thread_id=""), IA, ("thread_id",)),
    ("empty thread cancel", "CancelRun", lambda k: pb.CancelRunRequest(graph="chain3", thread_id=""), IA, ("thread_id",)),
    ("empty graph name", "GetGraph", lambda k: pb.GetGraphRequest(graph=""), IA, ("graph",)),
    ("empty checkpoint fork", "Fork", lambda k: pb.ForkRequest(graph="chain3", thread_id=k.thread, checkpoint_id=""), IA, ("checkpoint_id",)),
    ("thread id too long", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id="x" * 10_000, input_json=js(OK_INPUT)), IA, ("thread_id", "512")),
    ("thread id with NUL", "GetState", lambda k: pb.GetStateRequest(graph="chain3", thread_id="a\x00b"), IA, ("thread_id", "NUL")),
    # run config
    ("recursion limit zero", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=js(OK_INPUT), config=pb.RunConfig(recursion_limit=0)), IA, ("recursion_limit",)),
    ("unknown interrupt_before node", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=js(OK_INPUT), config=pb.RunConfig(interrupt_before=["zzz"])), IA, ("interrupt_before", "zzz")),
    ("unknown interrupt_after node", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=js(OK_INPUT), config=pb.RunConfig(interrupt_after=["zzz"])), IA, ("interrupt_after", "zzz")),
    ("unknown as_node fork", "Fork", lambda k: pb.ForkRequest(graph="chain3", thread_id=k.thread, checkpoint_id=k.checkpoint, update_json=js({"n": 1}), as_node="zzz"), IA, ("as_node", "zzz")),
    ("unknown as_node update", "UpdateState", lambda k: pb.UpdateStateRequest(graph="chain3", thread_id=k.thread, values_json=js({"n": 1}), as_node="zzz"), IA, ("as_node", "zzz")),
    ("unknown event kind", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=js(OK_INPUT), event_kinds=[99]), IA, ("event_kinds", "99")),
    ("unknown durability", "Invoke", lambda k: pb.InvokeRequest(graph="chain3", thread_id=k.thread, input_json=js(OK_INPUT), config=pb.RunConfig(durability=42)), IA, ("durability", "42")),
]


@pytest.mark.parametrize(("rpc", "build", "code", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_request(
    server: Any, known: Known, rpc: str, build: Callable[[Known], Any], code: grpc.StatusCode, words: tuple[Any, ...]
) -> None:
    request = build(known)
    with pytest.raises(grpc.RpcError) as failed:
        call(server, rpc, request)
    assert failed.value.code() is code, failed.value.details()
    message = failed.value.details() or ""
    for word in words:
        expected = word.format(thread=known.thread)
        assert expected in message, f"{expected!r} not in {message!r}"
    assert f":{known.thread}" not in message  # the storage key ("graph:thread") stays inside
    # ...and the server still serves.
    assert server.health() == SERVING


def test_bad_requests_leave_threads_unchanged(server: Any, known: Known) -> None:
    with server.client() as client:
        state = client.get_state("chain3", known.thread)
        history = client.history("chain3", known.thread)
        asking = client.get_state("reminders", known.asking)
    assert state.checkpoint.checkpoint_id == known.checkpoint
    assert [s.checkpoint.source for s in history] == ["loop", "loop", "loop", "loop", "input"]
    # The bad resumes did not answer the pending question.
    assert [i.value for i in asking.interrupts] == ["Add a reminder to call mom at 5pm?"]


def test_node_error_finishes_error_and_keeps_saved_state(server: Any, thread_id: str) -> None:
    with server.client() as client:
        failed = client.invoke("failing", thread_id, {"fail": True}, timeout=30)

        assert failed.reason is FinishReason.ERROR
        assert failed.error is not None
        assert (failed.error.type, failed.error.message) == ("ValueError", "explode was told to fail")
        # The versions saved before the error stay: prepare ran, explode is due.
        state = client.get_state("failing", thread_id)
        assert state.values == {"fail": True, "log": ["prepared"]}
        assert state.next == ("explode",)
        assert failed.checkpoint is not None and failed.checkpoint.checkpoint_id == state.checkpoint.checkpoint_id
        assert [(t.node, t.path) for t in state.tasks] == [("explode", ("__pregel_pull", "explode"))]  # LangGraph's PregelTask.path
        # One shape for a node's failure: the task's error, read back from
        # storage, says what the run's end said.
        assert state.tasks[0].error == failed.error

        # Fix the state, then invoke without input: the failed step runs again.
        client.update_state("failing", thread_id, {"fail": False}, as_node="prepare")
        fixed = client.invoke("failing", thread_id, None, timeout=30)
    assert fixed.reason is FinishReason.END
    assert fixed.values == {"fail": False, "log": ["prepared", "exploded"]}
    assert server.health() == SERVING


def test_oversized_payload_is_resource_exhausted(start_server: Any, thread_id: str) -> None:
    small = start_server(graphs={"chain3": "tests.graphs:chain3"}, args=["--max-message-bytes", "4096"])
    with small.client() as client:
        with pytest.raises(ResourceExhausted) as too_big:
            client.invoke("chain3", thread_id, {"n": 0, "log": ["x" * 10_000]}, timeout=10)
        assert "4096" in too_big.value.message
        assert small.health() == SERVING
        # A request under the limit still works, and large *responses* are not limited.
        ok = client.invoke("chain3", thread_id, {"n": 0, "log": ["x" * 1_000]}, timeout=10)
        assert ok.reason is FinishReason.END
        for _ in range(5):
            client.update_state("chain3", thread_id, {"log": ["y" * 3_000]}, as_node="c")
        assert len(json.dumps(client.get_state("chain3", thread_id).values)) > 15_000


def test_auth(start_server: Any, thread_id: str) -> None:
    secured = start_server(graphs={"chain3": "tests.graphs:chain3"}, token="s3cret-token")
    request = pb.InvokeRequest(graph="chain3", thread_id=thread_id, input_json=js(OK_INPUT))
    for rpc, req in (("Invoke", request), ("ListGraphs", pb.ListGraphsRequest()), ("GetState", pb.GetStateRequest(graph="chain3", thread_id=thread_id))):
        with pytest.raises(grpc.RpcError) as missing:
            call(secured, rpc, req)
        assert missing.value.code() is grpc.StatusCode.UNAUTHENTICATED
        assert "missing bearer token" in (missing.value.details() or "")
        with pytest.raises(grpc.RpcError) as wrong:
            call(secured, rpc, req, metadata=(("authorization", "Bearer nope"),))
        assert wrong.value.code() is grpc.StatusCode.UNAUTHENTICATED
        assert "wrong bearer token" in (wrong.value.details() or "")
    # Health needs no token.
    assert secured.health() == SERVING
    # Through the client: no token is Unauthenticated; the right one works.
    with secured.client(token=None) as anonymous, pytest.raises(Unauthenticated):
        anonymous.invoke("chain3", thread_id, OK_INPUT, timeout=10)
    with secured.client() as client:
        assert client.invoke("chain3", thread_id, OK_INPUT, timeout=10).reason is FinishReason.END
        with pytest.raises(InvalidArgument, match="thread_id"):
            client.get_state("chain3", "")
    assert secured.health() == SERVING
