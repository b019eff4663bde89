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
    CallbackEvent,
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


def json_text(value: object) -> str:
    return json.dumps(value)


def test_payload_is_compact_json_text() -> None:
    assert _payload.encode({"text": "café ☕", "n": [1, 2]}) == '{"text":"café ☕","n":[1,2]}'


def test_big_integers_cross_exactly() -> None:
    big = 2**64 + 1  # past int64, and far past a double's 53 bits
    text = _payload.encode({"id": big, "neg": -(10**30)})
    assert text == '{"id":18446744073709551617,"neg":-1000000000000000000000000000000}'
    assert _payload.decode(text) == {"id": big, "neg": -(10**30)}


def test_payload_refuses_what_json_cannot_carry() -> None:
    with pytest.raises(ValueError):
        _payload.encode({"x": float("nan")})
    with pytest.raises(TypeError):
        _payload.encode({"when": datetime.now()})


def test_what_json_cannot_carry_is_named_by_its_path_in_the_call() -> None:
    from graphwire import _requests

    when = {"messages": [{"role": "user", "content": datetime.now(UTC)}]}
    with pytest.raises(TypeError, match=r"^input\['messages'\]\[0\]\['content'\] is of type datetime, which JSON cannot"):
        _requests.invoke("g", "t", when, checkpoint_id=None, event_kinds=None, enqueue=False, config=None)
    with pytest.raises(TypeError, match=r"^answer\[1\] is of type set.*a set: list\(\.\.\.\)"):
        _requests.resume("g", "t", ["yes", {1}], resumes=None, event_kinds=None, enqueue=False, config=None)
    with pytest.raises(TypeError, match=r"^values: the key \('a', 1\) is of type tuple"):
        _requests.update_state("g", "t", {("a", 1): 2}, as_node=None, checkpoint_id=None)
    with pytest.raises(ValueError, match=r"^input: Out of range float values .*NaN and infinities are not JSON"):
        _requests.invoke("g", "t", {"x": float("inf")}, checkpoint_id=None, event_kinds=None, enqueue=False, config=None)


def test_payload_decoding() -> None:
    assert _payload.decode("") is None  # empty: no value
    assert _payload.decode("[1]") == [1]
    assert _payload.decode("null") is None
    with pytest.raises(ValueError):
        _payload.decode("{not json")


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
        "reminders", "t1", {"messages": []}, checkpoint_id="c1", event_kinds=["values", EventKind.CUSTOM],
        enqueue=True, config=config,
    )  # fmt: skip
    assert request.graph == "reminders" and request.thread_id == "t1"
    assert _payload.decode(request.input_json) == {"messages": []}
    assert request.checkpoint_id == "c1"
    assert list(request.event_kinds) == [pb.EVENT_KIND_VALUES, pb.EVENT_KIND_CUSTOM]
    assert request.enqueue
    assert request.config.recursion_limit == 5
    assert request.config.durability == pb.DURABILITY_SYNC
    assert _payload.decode(request.config.metadata_json) == {"user": "ana"}
    assert list(request.config.interrupt_before) == ["tool"]


def test_invoke_request_leaves_unset_what_the_caller_did_not_set() -> None:
    config = _requests.run_config(
        recursion_limit=None, durability=None, run_metadata=None, interrupt_before=None, interrupt_after=None
    )
    assert config is None
    request = _requests.invoke("g", "t", None, checkpoint_id=None, event_kinds=None, enqueue=False, config=config)
    assert request.input_json == ""  # no input: continue the thread
    assert not request.HasField("checkpoint_id")
    assert not request.HasField("config")
    assert list(request.event_kinds) == []  # every kind


def test_an_explicit_zero_recursion_limit_is_sent() -> None:
    config = _requests.run_config(
        recursion_limit=0, durability=None, run_metadata=None, interrupt_before=None, interrupt_after=None
    )
    assert config is not None and config.HasField("recursion_limit")


def test_kinds_accept_names_and_reject_unknown_ones() -> None:
    assert _requests.kinds_field("values") == [pb.EVENT_KIND_VALUES]
    assert _requests.kinds_field(["MESSAGE_CHUNK", "interrupt"]) == [
        pb.EVENT_KIND_MESSAGE_CHUNK,
        pb.EVENT_KIND_INTERRUPT,
    ]
    with pytest.raises(ValueError):
        _requests.kinds_field(["updates"])


def test_resume_request_with_one_answer_or_several() -> None:
    one = _requests.resume("g", "t", None, resumes=None, event_kinds=None, enqueue=False, config=None)
    assert one.resume_json == "null"  # None is an answer: JSON null
    several = _requests.resume(
        "g", "t", None, resumes={"i1": "yes", "i2": {"n": 2}}, event_kinds=None, enqueue=False, config=None
    )
    assert several.resume_json == ""
    assert {k: _payload.decode(v) for k, v in several.resumes_json.items()} == {"i1": "yes", "i2": {"n": 2}}
    with pytest.raises(ValueError, match="not both"):
        _requests.resume("g", "t", "yes", resumes={"i1": "no"}, event_kinds=None, enqueue=False, config=None)


def test_fork_update_state_and_history_requests() -> None:
    fork = _requests.fork("g", "t", "c1", update={"x": 1}, as_node="a", event_kinds=None, enqueue=False, config=None)
    assert fork.checkpoint_id == "c1" and fork.as_node == "a"
    assert _payload.decode(fork.update_json) == {"x": 1}
    bare = _requests.fork("g", "t", "c1", update=None, as_node=None, event_kinds=None, enqueue=False, config=None)
    assert bare.update_json == "" and not bare.HasField("as_node")

    update = _requests.update_state("g", "t", {"x": 2}, as_node=None, checkpoint_id="c0")
    assert _payload.decode(update.values_json) == {"x": 2}
    assert update.checkpoint_id == "c0" and not update.HasField("as_node")

    history = _requests.list_history("g", "t", limit=0, before="c9", filter={"source": "loop"})
    assert history.HasField("limit") and history.before == "c9"
    assert _payload.decode(history.filter_json) == {"source": "loop"}


# -- decoding ---------------------------------------------------------------------

CREATED = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


def checkpoint_pb(checkpoint_id: str = "c2", parent_id: str = "c1") -> pb.CheckpointRef:
    ref = pb.CheckpointRef(checkpoint_id=checkpoint_id, parent_id=parent_id, step=1, source="loop", next=["b"])
    ref.created_at.FromDatetime(CREATED)
    return ref


CHECKPOINT = CheckpointRef("c2", "c1", 1, "loop", ("b",), CREATED)
QUESTION = pb.Interrupt(interrupt_id="i1", node="ask", task_id="k1", value_json=json_text({"q": "Add it?"}))
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
                step=0, task_id="k1", node="ask", input_json=json_text({"m": 1}), triggers=["messages"]
            )
        ),
        TaskStarted(1, "r1", 0, "k1", "ask", {"m": 1}, ("messages",)),
    ),
    (
        pb.RunEvent(
            task_finished=pb.TaskFinished(
                step=0, task_id="k1", node="ask", update_json=json_text({"m": 2}), cached=True
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
        pb.RunEvent(values=pb.Values(step=-1, values_json=json_text({"m": [1]}))),
        ValuesEvent(1, "r1", -1, {"m": [1]}),
    ),
    (
        pb.RunEvent(custom=pb.Custom(step=2, task_id="k2", node="tool", payload_json=json_text("50%"))),
        CustomEvent(1, "r1", 2, "k2", "tool", "50%"),
    ),
    (
        pb.RunEvent(
            message_chunk=pb.MessageChunk(
                step=2, task_id="k2", node="llm", chunk_json=json_text({"id": "m1", "content": "Hel"}),
                metadata_json=json_text({"model": "x"}),
            )
        ),
        MessageChunk(1, "r1", 2, "k2", "llm", {"id": "m1", "content": "Hel"}, {"model": "x"}),
    ),
    (
        pb.RunEvent(checkpoint_saved=pb.CheckpointSaved(checkpoint=checkpoint_pb())),
        CheckpointSaved(1, "r1", CHECKPOINT),
    ),
    (
        pb.RunEvent(callback=pb.CallbackEvent(event_json=json_text({"event": "on_chain_start", "name": "g", "data": {}}))),
        CallbackEvent(1, "r1", {"event": "on_chain_start", "name": "g", "data": {}}),
    ),
    (pb.RunEvent(interrupt=QUESTION), InterruptEvent(1, "r1", "i1", "ask", "k1", {"q": "Add it?"})),
    (
        pb.RunEvent(
            run_finished=pb.RunFinished(
                reason=pb.FINISH_REASON_INTERRUPT, checkpoint=checkpoint_pb(), values_json=json_text({"m": [1]}),
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
        values_json=json_text({"m": [1]}),
        next=["b"],
        checkpoint=checkpoint_pb(),
        metadata_json=json_text({"source": "loop", "step": 1}),
        tasks=[
            pb.TaskState(task_id="k1", node="ask", interrupts=[QUESTION], path_json='["__pregel_pull","ask"]'),
            pb.TaskState(task_id="k2", node="tool", error=pb.ErrorInfo(type="KeyError", message="'x'")),
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
            graphwire.TaskState("k1", "ask", (INTERRUPT,), None, path=("__pregel_pull", "ask")),
            graphwire.TaskState("k2", "tool", (), ErrorInfo("KeyError", "'x'")),
        ),
        interrupts=(INTERRUPT,),
    )


def test_graph_info_decoding() -> None:
    message = pb.GraphInfo(
        name="g",
        description="d",
        nodes=[pb.GraphNode(name="__start__"), pb.GraphNode(name="a", metadata_json=json_text({"k": 1}))],
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


@pytest.mark.parametrize(
    ("chunk", "text"),
    [
        ({"type": "AIMessageChunk", "content": "Hel"}, "Hel"),
        ({"content": ["lo", {"type": "text", "text": ", wor"}, {"type": "tool_use", "text": "no"}, {"text": "ld"}]}, "lo, world"),
        ("a bare string", "a bare string"),
        ({"content": None}, ""),
        (42, ""),
    ],
)
def test_a_message_chunk_has_its_text(chunk: object, text: str) -> None:
    """As the TypeScript and Go clients' ``text``: a stream prints without knowing content's shapes."""
    event = graphwire.MessageChunk(seq=1, run_id="r", step=0, task_id="t", node="model", chunk=chunk, metadata={})
    assert event.text == text
