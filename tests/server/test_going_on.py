"""How a durable run goes on (server._going_on.decide), on plain records: no server, no database.

Each case is a record as a retry or a sweep finds it, and (once its thread is
held) the thread's newest version; the decision is join, close, give up, take,
run on, run again or refuse.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from engine.host import RunRecord
from server._going_on import ThreadSeen, Way, claim_of, decide, request_expired

T0 = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
MAX = 3


def record(status: str = "RUNNING", **kw: Any) -> RunRecord:
    return RunRecord("run-1", "g:t", "g", "t", "Invoke", status, "replica-a", T0, **kw)


def way(r: RunRecord, **seen: Any) -> Way:
    return decide(r, max_attempts=MAX, **seen).way


@pytest.mark.parametrize("status", ["SUCCESS", "INTERRUPTED", "ERROR", "CANCELLED"])
def test_a_run_that_ended_with_its_runfinished_is_joined(status: str) -> None:
    assert way(record(status, finished=b"end", ended_at=T0)) is Way.JOIN
    assert way(record(status, finished=b"end", ended_at=T0), caller=False) is Way.JOIN


@pytest.mark.parametrize("status", ["PENDING", "RUNNING", "RECOVERING"])
def test_a_run_some_replica_runs_is_joined_and_one_nobody_runs_is_taken(status: str) -> None:
    assert way(record(status), running=True) is Way.JOIN
    assert way(record(status)) is Way.TAKE


@pytest.mark.parametrize("status", ["ERROR", "CANCELLED"])
def test_a_run_that_ended_without_its_runfinished_goes_on(status: str) -> None:
    """Its caller left a CANCEL run, or storage failed under it: nothing recorded its end."""
    assert way(record(status, ended_at=T0)) is Way.TAKE
    assert way(record(status, ended_at=T0), running=True) is Way.TAKE  # its own replica ended it


def test_a_sweep_closes_a_run_no_caller_continues_and_takes_a_durable_one() -> None:
    assert way(record(), caller=False) is Way.CLOSE
    assert way(record(durable=True), caller=False) is Way.TAKE
    assert way(record(), caller=True) is Way.TAKE  # a retry continues it


def test_a_run_started_max_attempts_times_is_given_up() -> None:
    decision = decide(record(durable=True, attempts=MAX), max_attempts=MAX, caller=False)
    assert decision.way is Way.GIVE_UP
    assert "started 3 times" in decision.why and "max_run_attempts is 3" in decision.why
    assert way(record(attempts=MAX - 1)) is Way.TAKE
    assert way(record(attempts=MAX), caller=False) is Way.CLOSE  # not durable: closed, whatever its attempts


def test_holding_its_thread_a_run_goes_on_from_its_own_newest_version() -> None:
    own = ThreadSeen(newest="v3", newest_by="run-1", saved_any=True)
    assert way(record(), thread=own) is Way.RUN_ON


def test_holding_its_thread_a_run_that_saved_nothing_runs_again_from_its_request() -> None:
    assert way(record(), thread=ThreadSeen(None, None, False)) is Way.RUN_AGAIN  # no version at all
    assert way(record(), thread=ThreadSeen("v1", "run-0", False)) is Way.RUN_AGAIN  # only others' versions


def test_a_run_whose_thread_went_on_after_its_versions_is_refused() -> None:
    decision = decide(record(), max_attempts=MAX, thread=ThreadSeen("v5", "run-2", True))
    assert decision.way is Way.REFUSE
    assert "run-2" in decision.why and "v5" in decision.why and "would apply its input twice" in decision.why


def test_what_is_decided_before_the_thread_is_held_stands_after() -> None:
    """The second look (with the thread) never undoes a join, a close or a give-up."""
    seen = ThreadSeen("v1", "run-1", True)
    assert way(record(), running=True, thread=seen) is Way.JOIN
    assert way(record(), caller=False, thread=seen) is Way.CLOSE
    assert way(record(attempts=MAX), thread=seen) is Way.GIVE_UP


def test_a_claim_is_one_more_attempt_here() -> None:
    r = record("RECOVERING", attempts=2, ended_at=T0, epoch=4)
    changes, claimed = claim_of(r, "replica-b", 7)
    assert changes == {"attempts": 3, "replica": "replica-b", "epoch": 7, "status": "RUNNING", "ended_at": None}
    assert (claimed.attempts, claimed.replica, claimed.epoch, claimed.status, claimed.ended_at) == (3, "replica-b", 7, "RUNNING", None)
    assert (r.attempts, r.replica, r.status) == (2, "replica-a", "RECOVERING")  # the record read is left as read


def test_a_request_id_expires_a_window_after_its_run_ended() -> None:
    window = timedelta(minutes=5)
    assert not request_expired(record(), T0 + timedelta(days=3), window)
    ended = record("SUCCESS", ended_at=T0)
    assert not request_expired(ended, T0 + timedelta(minutes=4), window)
    assert request_expired(ended, T0 + timedelta(minutes=6), window)
