"""Chat-safe turns and double-texting: what a run call asks of a thread that is busy, or waits.

A run call (Invoke, Resume, Fork) carries a :class:`Turn`, parsed once with
the rest of the request (:func:`turn_of`):

* its **multitask strategy**, for a thread that already has a run: REJECT
  (ABORTED at once), ENQUEUE (wait), INTERRUPT (cancel the running run, keep
  its versions, run once the thread is free) or ROLLBACK (cancel it, delete
  its versions, then run). ``enqueue = true`` is ENQUEUE, kept for the
  callers that set it; it and another strategy together are INVALID_ARGUMENT.
  The cancelling and the rollback are :class:`server._replace.Replacer`'s.
* its **chat-safe checks**, made once the call holds the thread (its slot and
  lease: after any wait, so no run slips in between the check and the run):
  ``if_interrupted = REJECT`` (Invoke) refuses a thread whose newest version
  waits at an interrupt, and ``expect_checkpoint_id`` one whose newest
  version is another (or none). :func:`refusal` decides, from plain values.

A refused call is FAILED_PRECONDITION whose trailing metadata
(:data:`REFUSED_KEY`) holds a serialized ``TurnRefused``: the newest version
and its pending interrupts, which the clients decode. It is refused before
its run is recorded, so it wrote nothing and ``ListRuns`` does not list it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from graphwire_proto.v1 import graphwire_pb2 as pb
from server import _requests as req
from server._errors import RpcError

__all__ = ["ENQUEUE", "REFUSED_KEY", "Turn", "TurnRefusedError", "refusal", "turn_of"]

#: The trailing metadata key of a refused turn's ``TurnRefused`` (binary: ``-bin``).
REFUSED_KEY = "graphwire-turn-refused-bin"

_STRATEGIES = {
    pb.MULTITASK_STRATEGY_REJECT: "reject",
    pb.MULTITASK_STRATEGY_ENQUEUE: "enqueue",
    pb.MULTITASK_STRATEGY_INTERRUPT: "interrupt",
    pb.MULTITASK_STRATEGY_ROLLBACK: "rollback",
}


@dataclass(frozen=True, slots=True)
class Turn:
    """What a run call asks of its thread (see the module's doc)."""

    #: "reject", "enqueue", "interrupt" or "rollback".
    strategy: str = "reject"
    #: Refuse a thread waiting at an interrupt (Invoke's ``if_interrupted = REJECT``).
    reject_interrupted: bool = False
    #: Run only on this newest version (None: no check).
    expect_checkpoint_id: str | None = None

    @property
    def waits(self) -> bool:
        """Whether the call waits for a busy thread (every strategy but REJECT)."""
        return self.strategy != "reject"

    @property
    def replaces(self) -> bool:
        """Whether the call cancels the thread's running run first."""
        return self.strategy in ("interrupt", "rollback")

    @property
    def checks(self) -> bool:
        """Whether the call reads the thread before it runs (a chat-safe check)."""
        return self.reject_interrupted or self.expect_checkpoint_id is not None


#: A continued run's turn: it waits for its thread, and checks nothing.
ENQUEUE = Turn("enqueue")


def turn_of(request: Any) -> Turn:
    """The turn of a run request: INVALID_ARGUMENT naming the field for an unknown or inconsistent value."""
    asked = request.multitask_strategy
    if asked != pb.MULTITASK_STRATEGY_UNSPECIFIED and asked not in _STRATEGIES:
        raise req.bad("multitask_strategy", f"unknown value {asked}")
    if request.enqueue and asked not in (pb.MULTITASK_STRATEGY_UNSPECIFIED, pb.MULTITASK_STRATEGY_ENQUEUE):
        raise req.bad(
            "multitask_strategy",
            f"{pb.MultitaskStrategy.Name(asked)} with enqueue = true: enqueue means MULTITASK_STRATEGY_ENQUEUE; set one of them",
        )
    if asked == pb.MULTITASK_STRATEGY_UNSPECIFIED:
        strategy = "enqueue" if request.enqueue else "reject"
    else:
        strategy = _STRATEGIES[asked]
    reject = False
    if isinstance(request, pb.InvokeRequest):
        if request.if_interrupted not in pb.IfInterrupted.values():
            raise req.bad("if_interrupted", f"unknown value {request.if_interrupted}")
        reject = request.if_interrupted == pb.IF_INTERRUPTED_REJECT
    expect = req.ident(request.expect_checkpoint_id, "expect_checkpoint_id") if request.expect_checkpoint_id else None
    return Turn(strategy, reject, expect)


class TurnRefusedError(RpcError):
    """FAILED_PRECONDITION: a chat-safe check refused the call; ``refused`` says why (sent as trailing metadata)."""

    def __init__(self, message: str, refused: pb.TurnRefused) -> None:
        super().__init__(grpc.StatusCode.FAILED_PRECONDITION, message)
        self.refused = refused
        self.trailers = ((REFUSED_KEY, refused.SerializeToString()),)


def refusal(turn: Turn, thread_id: str, newest: str | None, pending: Sequence[pb.Interrupt]) -> TurnRefusedError | None:
    """Whether ``turn`` refuses the thread as it is (pure): its ``newest`` version id (None: it has none)
    and the interrupts pending there. The stale-version check comes first: a caller that saw an older
    version must look again whatever waits now."""
    expect = turn.expect_checkpoint_id
    if expect is not None and expect != newest:
        refused = pb.TurnRefused(
            reason=pb.TURN_REFUSED_REASON_STALE_CHECKPOINT, checkpoint_id=newest or "", interrupts=list(pending)
        )
        now = f"its newest version is {newest!r}" if newest else "it has no version yet"
        return TurnRefusedError(
            f"thread {thread_id!r}: expect_checkpoint_id {expect!r} is not the thread's newest version ({now}); "
            "nothing was run: read the thread again (GetState) and decide",
            refused,
        )
    if turn.reject_interrupted and pending:
        refused = pb.TurnRefused(reason=pb.TURN_REFUSED_REASON_INTERRUPTED, checkpoint_id=newest or "", interrupts=list(pending))
        where = ", ".join(f"{i.interrupt_id} ({i.node})" if i.node else i.interrupt_id for i in pending)
        return TurnRefusedError(
            f"thread {thread_id!r} waits at {len(pending)} interrupt(s): {where}; if_interrupted = REJECT, so nothing "
            "was run: answer with Resume, or send with if_interrupted = DROP to start a new turn",
            refused,
        )
    return None
