"""The Python client's pure parts, without a server: payloads, requests,
decoding of every event kind, the run fold, and the error table."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime

import graphwire
import grpc
import pytest
from graphwire import (
    CheckpointRef,
    CheckpointSaved,
    CustomEvent,
    ErrorInfo,
    EventKind,
    FinishReason,
    Interrupt,
    InterruptEvent,
    MessageChunk,
    RunFinished,
    RunStarted,
    StepFinished,
    StepStarted,
    TaskFinished,
    TaskRef,
    TaskStarted,
    ValuesEvent,
    _decode,
    _payload,
    _requests,
)
from graphwire._errors import error_for_status, error_from_rpc
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire._run import RunCollector

# -- payloads -------------------------------------------------------------------


def json_payload(value: object) -> pb.Payload:
    return pb.Payload(encoding="json", data=json.dumps(value).encode())


def test_payload_is_compact_utf8_json() -> None:
    payload = _payload.encode({"text": "café ☕", "n": [1, 2]})
    assert payload.encoding == "json"
    assert payload.data == '{"text":"café ☕","n":[1,2]}'.encode()


def test_big_integers_cross_exactly() -> None:
    big = 2**64 + 1  # past int64, and far past a double's 53 bits
    payload = _payload.encode({"id": big, "neg": -(10**30)})
    assert payload.data == b'{"id":18446744073709551617,"neg":-1000000000000000000000000000000}'
    assert _payload.decode(payload) == {"id": big, "neg": -(10**30)}


def test_payload_refuses_what_json_cannot_carry() -> None:
    with pytest.raises(ValueError):
        _payload.encode({"x": float("nan")})
    with pytest.raises(TypeError):
        _payload.encode({"when": datetime.now()})


def test_payload_decoding() -> None:
    assert _payload.decode(pb.Payload()) is None  # empty: no value
    assert _payload.decode(pb.Payload(encoding="", data=b"[1]")) == [1]  # empty encoding means JSON
    assert _payload.decode(pb.Payload(encoding="json", data=b"null")) is None
    with pytest.raises(ValueError, match="msgpack"):
        _payload.decode(pb.Payload(encoding="msgpack", data=b"\x90"))


# -- requests -------------------------------------------------------------------


def test_invoke_request() -> None:
    config = _requests.run_config(
        recursion_limit=5,
        durability="sync",
        run_metadata={"user": "ana"},
        interrupt_before=["tool"],
        interrupt_after=None,
    )
    request = _requests.invoke(
        "reminders", "t1", {"messages": []}, checkpoint_id="c1", kinds=["values", EventKind.CUSTOM],
        enqueue=True, config=config,
    )  # fmt: skip
    assert request.graph == "reminders" and request.thread_id == "t1"
    assert _payload.decode(request.input) == {"messages": []}
    assert request.checkpoint_id == "c1"
    assert list(request.stream) == [pb.EVENT_KIND_VALUES, pb.EVENT_KIND_CUSTOM]
    assert request.enqueue
    assert request.config.recursion_limit == 5
    assert request.config.durability == pb.DURABILITY_SYNC
    assert _payload.decode(request.config.metadata) == {"user": "ana"}
    assert list(request.config.interrupt_before) == ["tool"]


def test_invoke_request_leaves_unset_what_the_caller_did_not_set() -> None:
    config = _requests.run_config(
        recursion_limit=None, durability=None, run_metadata=None, interrupt_before=None, interrupt_after=None
    )
    assert config is None
    request = _requests.invoke("g", "t", None, checkpoint_id=None, kinds=None, enqueue=False, config=config)
    assert not request.HasField("input")  # no input: continue the thread
    assert not request.HasField("checkpoint_id")
    assert not request.HasField("config")
    assert list(request.stream) == []  # every kind


def test_an_explicit_zero_recursion_limit_is_sent() -> None:
    config = _requests.run_config(
        recursion_limit=0, durability=None, run_metadata=None, interrupt_before=None, interrupt_after=None
    )
    assert config is not None and config.HasField("recursion_limit")


def test_kinds_accept_names_and_reject_unknown_ones() -> None:
    assert _requests.event_kinds("values") == [pb.EVENT_KIND_VALUES]
    assert _requests.event_kinds(["MESSAGE_CHUNK", "interrupt"]) == [
        pb.EVENT_KIND_MESSAGE_CHUNK,
        pb.EVENT_KIND_INTERRUPT,
    ]
    with pytest.raises(ValueError):
        _requests.event_kinds(["updates"])


def test_resume_request_with_one_answer_or_several() -> None:
    one = _requests.resume("g", "t", None, resumes=None, kinds=None, enqueue=False, config=None)
    assert one.resume.data == b"null"  # None is an answer: JSON null
    several = _requests.resume(
        "g", "t", None, resumes={"i1": "yes", "i2": {"n": 2}}, kinds=None, enqueue=False, config=None
    )
    assert not several.HasField("resume")
    assert {k: _payload.decode(v) for k, v in several.resumes.items()} == {"i1": "yes", "i2": {"n": 2}}
    with pytest.raises(ValueError, match="not both"):
        _requests.resume("g", "t", "yes", resumes={"i1": "no"}, kinds=None, enqueue=False, config=None)


def test_fork_update_state_and_history_requests() -> None:
    fork = _requests.fork("g", "t", "c1", update={"x": 1}, as_node="a", kinds=None, enqueue=False, config=None)
    assert fork.checkpoint_id == "c1" and fork.as_node == "a"
    assert _payload.decode(fork.update) == {"x": 1}
    bare = _requests.fork("g", "t", "c1", update=None, as_node=None, kinds=None, enqueue=False, config=None)
    assert not bare.HasField("update") and not bare.HasField("as_node")

    update = _requests.update_state("g", "t", {"x": 2}, as_node=None, checkpoint_id="c0")
    assert _payload.decode(update.values) == {"x": 2}
    assert update.checkpoint_id == "c0" and not update.HasField("as_node")

    history = _requests.list_history("g", "t", limit=0, before="c9", filter={"source": "loop"})
    assert history.HasField("limit") and history.before == "c9"
    assert _payload.decode(history.filter) == {"source": "loop"}


# -- decoding ---------------------------------------------------------------------

CREATED = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


def checkpoint_pb(checkpoint_id: str = "c2", parent_id: str = "c1") -> pb.CheckpointRef:
    ref = pb.CheckpointRef(checkpoint_id=checkpoint_id, parent_id=parent_id, step=1, source="loop", next=["b"])
    ref.created_at.FromDatetime(CREATED)
    return ref


CHECKPOINT = CheckpointRef("c2", "c1", 1, "loop", ("b",), CREATED)
QUESTION = pb.Interrupt(id="i1", node="ask", task_id="k1", value=json_payload({"q": "Add it?"}))
INTERRUPT = Interrupt("i1", "ask", "k1", {"q": "Add it?"})

# One wire event per case of the RunEvent oneof, and the event it decodes to.
EVENTS = [
    (
        pb.RunEvent(run_started=pb.RunStarted(run_id="r1", thread_id="t1", graph="g", checkpoint_id="c0")),
        RunStarted(1, "r1", "t1", "g", "c0"),
    ),
    (
        pb.RunEvent(step_started=pb.StepStarted(step=0, tasks=[pb.TaskRef(task_id="k1", node="ask")])),
        StepStarted(1, "r1", 0, (TaskRef("k1", "ask"),)),
    ),
    (pb.RunEvent(step_finished=pb.StepFinished(step=3)), StepFinished(1, "r1", 3)),
    (
        pb.RunEvent(
            task_started=pb.TaskStarted(
                step=0, task_id="k1", node="ask", input=json_payload({"m": 1}), triggers=["messages"]
            )
        ),
        TaskStarted(1, "r1", 0, "k1", "ask", {"m": 1}, ("messages",)),
    ),
    (
        pb.RunEvent(
            task_finished=pb.TaskFinished(
                step=0, task_id="k1", node="ask", update=json_payload({"m": 2}), cached=True
            )
        ),
        TaskFinished(1, "r1", 0, "k1", "ask", update={"m": 2}, error=None, interrupts=(), cached=True),
    ),
    (
        pb.RunEvent(
            task_finished=pb.TaskFinished(
                step=0, task_id="k1", node="ask", error=pb.ErrorInfo(type="ValueError", message="bad"),
                interrupts=[QUESTION],
            )
        ),
        TaskFinished(
            1, "r1", 0, "k1", "ask", update=None, error=ErrorInfo("ValueError", "bad"),
            interrupts=(INTERRUPT,), cached=False,
        ),
    ),
    (
        pb.RunEvent(values=pb.Values(step=-1, values=json_payload({"m": [1]}))),
        ValuesEvent(1, "r1", -1, {"m": [1]}),
    ),
    (
        pb.RunEvent(custom=pb.Custom(step=2, task_id="k2", node="tool", payload=json_payload("50%"))),
        CustomEvent(1, "r1", 2, "k2", "tool", "50%"),
    ),
    (
        pb.RunEvent(
            message_chunk=pb.MessageChunk(
                step=2, task_id="k2", node="llm", chunk=json_payload({"id": "m1", "content": "Hel"}),
                metadata=json_payload({"model": "x"}),
            )
        ),
        MessageChunk(1, "r1", 2, "k2", "llm", {"id": "m1", "content": "Hel"}, {"model": "x"}),
    ),
    (
        pb.RunEvent(checkpoint_saved=pb.CheckpointSaved(checkpoint=checkpoint_pb())),
        CheckpointSaved(1, "r1", CHECKPOINT),
    ),
    (pb.RunEvent(interrupt=QUESTION), InterruptEvent(1, "r1", "i1", "ask", "k1", {"q": "Add it?"})),
    (
        pb.RunEvent(
            run_finished=pb.RunFinished(
                reason=pb.FINISH_REASON_INTERRUPT, checkpoint=checkpoint_pb(), values=json_payload({"m": [1]}),
                interrupts=[QUESTION],
            )
        ),
        RunFinished(
            1, "r1", reason=FinishReason.INTERRUPT, checkpoint=CHECKPOINT, values={"m": [1]}, error=None,
            interrupts=(INTERRUPT,),
        ),
    ),
]  # fmt: skip


def test_the_table_covers_every_case_of_the_oneof() -> None:
    cases = {m.WhichOneof("event") for m, _ in EVENTS}
    assert cases == {f.name for f in pb.RunEvent.DESCRIPTOR.oneofs_by_name["event"].fields}


@pytest.mark.parametrize(("message", "expected"), EVENTS, ids=[m.WhichOneof("event") for m, _ in EVENTS])
def test_event_decoding(message: pb.RunEvent, expected: graphwire.Event) -> None:
    envelope = pb.RunEvent(seq=1, run_id="r1")
    envelope.MergeFrom(message)
    event = _decode.event(envelope)
    assert event == expected
    assert type(event).kind.value == message.WhichOneof("event")


@pytest.mark.parametrize("event", [e for _, e in EVENTS], ids=lambda e: type(e).__name__)
def test_events_are_frozen_and_slotted(event: graphwire.Event) -> None:
    assert not hasattr(event, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.seq = 2  # type: ignore[misc]


def test_interrupt_event_gives_its_interrupt() -> None:
    event = _decode.event(pb.RunEvent(seq=4, run_id="r", interrupt=QUESTION))
    assert isinstance(event, InterruptEvent) and event.interrupt == INTERRUPT


def test_unset_and_unknown_values_decode_to_none_and_unspecified() -> None:
    empty = _decode.event(pb.RunEvent(seq=9, run_id="r", run_finished=pb.RunFinished(reason=42)))
    assert empty == RunFinished(9, "r", FinishReason.UNSPECIFIED, None, None, None, ())
    assert _decode.event(pb.RunEvent(seq=1)) is None  # no case set (or one from a newer server)
    started = _decode.event(pb.RunEvent(seq=1, run_id="r", run_started=pb.RunStarted(thread_id="t")))
    assert isinstance(started, RunStarted) and started.checkpoint_id is None
    first = _decode.checkpoint_ref(pb.CheckpointRef(checkpoint_id="c0", step=-1, source="input"))
    assert first.parent_id is None and first.created_at is None


def test_state_snapshot_decoding() -> None:
    message = pb.StateSnapshot(
        values=json_payload({"m": [1]}),
        next=["b"],
        checkpoint=checkpoint_pb(),
        metadata=json_payload({"source": "loop", "step": 1}),
        tasks=[
            pb.TaskState(id="k1", name="ask", interrupts=[QUESTION]),
            pb.TaskState(id="k2", name="tool", error=pb.ErrorInfo(type="KeyError", message="'x'")),
        ],
        interrupts=[QUESTION],
    )
    snapshot = _decode.state_snapshot(message)
    assert snapshot == graphwire.StateSnapshot(
        values={"m": [1]},
        next=("b",),
        checkpoint=CHECKPOINT,
        metadata={"source": "loop", "step": 1},
        tasks=(
            graphwire.TaskState("k1", "ask", (INTERRUPT,), None),
            graphwire.TaskState("k2", "tool", (), ErrorInfo("KeyError", "'x'")),
        ),
        interrupts=(INTERRUPT,),
    )


def test_graph_info_decoding() -> None:
    message = pb.GraphInfo(
        name="g",
        description="d",
        nodes=[pb.GraphNode(name="__start__"), pb.GraphNode(name="a", metadata=json_payload({"k": 1}))],
        edges=[
            pb.GraphEdge(source="__start__", target="a"),
            pb.GraphEdge(source="a", target="__end__", conditional=True, label="done"),
        ],
    )
    assert _decode.graph_info(message) == graphwire.GraphInfo(
        "g",
        "d",
        (graphwire.GraphNode("__start__", None), graphwire.GraphNode("a", {"k": 1})),
        (
            graphwire.GraphEdge("__start__", "a", False, None),
            graphwire.GraphEdge("a", "__end__", True, "done"),
        ),
    )


# -- the run fold ------------------------------------------------------------------


def test_run_collector_folds_events_into_a_result() -> None:
    collector = RunCollector("t1")
    events = [expected for _, expected in EVENTS]
    for event in events:
        collector.add(event)
    result = collector.result()
    assert result.run_id == "r1" and result.thread_id == "t1"
    assert result.reason is FinishReason.INTERRUPT and result.interrupted
    assert result.values == {"m": [1]}
    assert result.checkpoint == CHECKPOINT
    assert result.interrupts == (INTERRUPT,)
    assert result.error is None
    assert result.events == tuple(events)


def test_an_error_run_is_a_result_not_an_exception() -> None:
    collector = RunCollector("t1")
    error = ErrorInfo("ValueError", "boom")
    collector.add(RunFinished(2, "r1", FinishReason.ERROR, CHECKPOINT, {"m": []}, error, ()))
    result = collector.result()
    assert result.reason is FinishReason.ERROR and result.reason == "ERROR"
    assert result.error == error and not result.interrupted


def test_a_stream_without_run_finished_raises() -> None:
    collector = RunCollector("t1")
    collector.add(RunStarted(1, "r1", "t1", "g", None))
    with pytest.raises(graphwire.Unknown, match="without a RunFinished"):
        collector.result()


# -- errors ----------------------------------------------------------------------

ERRORS = {
    grpc.StatusCode.NOT_FOUND: graphwire.NotFound,
    grpc.StatusCode.INVALID_ARGUMENT: graphwire.InvalidArgument,
    grpc.StatusCode.FAILED_PRECONDITION: graphwire.FailedPrecondition,
    grpc.StatusCode.ABORTED: graphwire.Aborted,
    grpc.StatusCode.RESOURCE_EXHAUSTED: graphwire.ResourceExhausted,
    grpc.StatusCode.UNAUTHENTICATED: graphwire.Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: graphwire.PermissionDenied,
    grpc.StatusCode.UNAVAILABLE: graphwire.Unavailable,
    grpc.StatusCode.CANCELLED: graphwire.Cancelled,
    grpc.StatusCode.DEADLINE_EXCEEDED: graphwire.DeadlineExceeded,
    grpc.StatusCode.ALREADY_EXISTS: graphwire.AlreadyExists,
    grpc.StatusCode.OUT_OF_RANGE: graphwire.OutOfRange,
    grpc.StatusCode.UNIMPLEMENTED: graphwire.Unimplemented,
    grpc.StatusCode.INTERNAL: graphwire.Internal,
    grpc.StatusCode.DATA_LOSS: graphwire.DataLoss,
    grpc.StatusCode.UNKNOWN: graphwire.Unknown,
}


def test_every_failure_status_has_its_class() -> None:
    assert set(ERRORS) == set(grpc.StatusCode) - {grpc.StatusCode.OK}


class FakeRpcError(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    """What a failed sync call raises: an RpcError that is also a Call."""

    def __init__(self, code: grpc.StatusCode, details: str, trailing: tuple = ()) -> None:
        self._code, self._details, self._trailing = code, details, trailing

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> tuple:
        return self._trailing

    def initial_metadata(self) -> tuple:
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> None:
        return None

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: object) -> bool:
        return False


@pytest.mark.parametrize("code", list(ERRORS), ids=lambda c: c.name)
def test_status_codes_map_to_typed_errors(code: grpc.StatusCode) -> None:
    error = error_from_rpc(FakeRpcError(code, "unknown graph 'nope'", (("graphwire-field", "graph"),)))
    assert type(error) is ERRORS[code]
    assert isinstance(error, graphwire.GraphwireError)
    assert error.code is code
    assert error.message == "unknown graph 'nope'"
    assert error.details == {"graphwire-field": "graph"}
    assert str(error) == f"{code.name}: unknown graph 'nope'"


def test_an_rpc_error_without_accessors_is_unknown() -> None:
    error = error_from_rpc(grpc.RpcError("connection reset"))
    assert type(error) is graphwire.Unknown
    assert error.message == "connection reset"


def test_errors_can_be_built_for_a_status() -> None:
    error = error_for_status(grpc.StatusCode.ABORTED, "thread 't1' is busy")
    assert isinstance(error, graphwire.Aborted) and error.details == {}
