"""The pure half of chat-safe turns and double-texting (server/_turns.py): a request's turn, and the refusal decision."""

from __future__ import annotations

from datetime import datetime, timezone

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb

from engine.host import RunRecord
from server._errors import RpcError
from server._going_on import Way, decide
from server._turns import REFUSED_KEY, Turn, refusal, turn_of


def test_the_strategy_of_a_request() -> None:
    assert turn_of(pb.InvokeRequest()) == Turn("reject")
    assert turn_of(pb.InvokeRequest(enqueue=True)) == Turn("enqueue")
    assert turn_of(pb.ResumeRequest(enqueue=True, multitask_strategy=pb.MULTITASK_STRATEGY_ENQUEUE)) == Turn("enqueue")
    for value, name in [(pb.MULTITASK_STRATEGY_INTERRUPT, "interrupt"), (pb.MULTITASK_STRATEGY_ROLLBACK, "rollback")]:
        turn = turn_of(pb.ForkRequest(multitask_strategy=value))
        assert turn.strategy == name and turn.waits and turn.replaces and not turn.checks
    assert not turn_of(pb.InvokeRequest(multitask_strategy=pb.MULTITASK_STRATEGY_REJECT)).waits


@pytest.mark.parametrize(
    "request_, field",
    [
        (pb.InvokeRequest(enqueue=True, multitask_strategy=pb.MULTITASK_STRATEGY_REJECT), "multitask_strategy"),
        (pb.ResumeRequest(enqueue=True, multitask_strategy=pb.MULTITASK_STRATEGY_ROLLBACK), "multitask_strategy"),
        (pb.InvokeRequest(multitask_strategy=99), "multitask_strategy"),  # type: ignore[arg-type]
        (pb.InvokeRequest(if_interrupted=7), "if_interrupted"),  # type: ignore[arg-type]
        (pb.ForkRequest(expect_checkpoint_id="x" * 600), "expect_checkpoint_id"),
    ],
)
def test_a_bad_turn_is_invalid_argument_naming_its_field(request_: object, field: str) -> None:
    with pytest.raises(RpcError) as info:
        turn_of(request_)
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT and field in info.value.message


def test_the_checks_of_a_request() -> None:
    turn = turn_of(pb.InvokeRequest(if_interrupted=pb.IF_INTERRUPTED_REJECT, expect_checkpoint_id="c1"))
    assert turn.reject_interrupted and turn.expect_checkpoint_id == "c1" and turn.checks
    assert not turn_of(pb.InvokeRequest(if_interrupted=pb.IF_INTERRUPTED_DROP)).checks


def test_refusal() -> None:
    waiting = [pb.Interrupt(interrupt_id="i1", node="ask", value_json='"go?"')]
    reject = Turn(reject_interrupted=True)
    assert refusal(reject, "t", "c2", []) is None  # nothing pending
    assert refusal(Turn(), "t", "c2", waiting) is None  # DROP
    refused = refusal(reject, "t", "c2", waiting)
    assert refused is not None and refused.code == grpc.StatusCode.FAILED_PRECONDITION and "i1 (ask)" in refused.message
    assert refused.refused.reason == pb.TURN_REFUSED_REASON_INTERRUPTED and list(refused.refused.interrupts) == waiting
    assert refused.trailers == ((REFUSED_KEY, refused.refused.SerializeToString()),)

    fresh = Turn(reject_interrupted=True, expect_checkpoint_id="c2")
    assert refusal(Turn(expect_checkpoint_id="c2"), "t", "c2", waiting) is None
    stale = refusal(fresh, "t", "c3", waiting)  # the stale version is said first, with what is pending there
    assert stale is not None and stale.refused.reason == pb.TURN_REFUSED_REASON_STALE_CHECKPOINT
    assert stale.refused.checkpoint_id == "c3" and list(stale.refused.interrupts) == waiting and "'c3'" in stale.message
    empty = refusal(Turn(expect_checkpoint_id="c2"), "t", None, [])
    assert empty is not None and empty.refused.checkpoint_id == "" and "no version yet" in empty.message


def test_a_replaced_run_is_not_continued_by_a_retry() -> None:
    """A run cancelled before its RunFinished is continued by its call's retry, unless another call replaced it."""
    left = RunRecord("r1", "g:t", "g", "t", "Invoke", "CANCELLED", "me", datetime(2026, 1, 1, tzinfo=timezone.utc), request_id="q")
    assert decide(left, max_attempts=3).way is Way.TAKE
    left.replaced_by = "r2"
    assert decide(left, max_attempts=3).way is Way.JOIN
    left.status = "ROLLED_BACK"
    assert decide(left, max_attempts=3).way is Way.JOIN
