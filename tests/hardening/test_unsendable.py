"""Values the wire cannot carry are refused when they would be stored (issue 13 item 6).

Values cross the wire as JSON. A node that returns NaN, an infinity, an
integer longer than Python's int-to-str limit, a string with a lone
surrogate, or a map whose keys are not strings used to get its version
stored; then the call, GetState and ListHistory failed with
INVALID_ARGUMENT, and inside an append-only list every later turn failed
too. The server's serializer now refuses such a value at write time, as it
refuses a type outside its allowlist: the run ends with ERROR naming
SerializationError, the state key and the path, nothing of it is stored,
and the thread reads and runs on from its last version.
"""

from __future__ import annotations

import pytest
from graphwire import FinishReason

from tests.hardening._unsendable import KINDS
from tests.hardening.conftest import Hardened


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_value_the_wire_cannot_carry_is_refused_and_the_thread_stays_readable(
    hardened: Hardened, tid: str, kind: str
) -> None:
    with hardened.client() as client:
        first = client.invoke("unsendable", tid, {"kind": "fine"}, timeout=30)
        assert first.reason is FinishReason.END
        history = client.history("unsendable", tid, timeout=10)

        refused = client.invoke("unsendable", tid, {"kind": kind}, timeout=30)

        assert refused.reason is FinishReason.ERROR
        assert refused.error is not None and refused.error.type == "SerializationError", refused.error
        path = KINDS[kind][1]
        assert "'value'" in refused.error.message or "'items'" in refused.error.message, refused.error.message
        assert path in refused.error.message, refused.error.message
        # What was stored before stays the thread's state, readable by every RPC.
        state = client.get_state("unsendable", tid, timeout=10)
        assert state.values["items"] == ["fine"] and state.values["value"] == "fine"
        after = client.history("unsendable", tid, timeout=10)
        assert [v.checkpoint.checkpoint_id for v in after[-len(history):]] == [v.checkpoint.checkpoint_id for v in history]
        assert refused.checkpoint is not None
        assert refused.checkpoint.checkpoint_id in {v.checkpoint.checkpoint_id for v in after}
        # The next turn runs on from there (the append-only list holds nothing unsendable).
        again = client.invoke("unsendable", tid, {"kind": "fine"}, timeout=30)
        assert again.reason is FinishReason.END and again.values["items"] == ["fine", "fine"]


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_stream_of_every_event_ends_with_run_finished(hardened: Hardened, tid: str, kind: str) -> None:
    """Issue 28 item 5d: a node value nested 2,000 deep ended the call INTERNAL (RecursionError), and with
    every event kind asked for, any value here did (its TaskFinished and Values events failed to encode,
    before the saver refused the value): no RunFinished. Such an event now goes without that value."""
    with hardened.client() as client:
        assert client.invoke("unsendable", tid, {"kind": "fine"}, timeout=30).reason is FinishReason.END
        events = list(client.stream("unsendable", tid, {"kind": kind}, timeout=30))
        last = events[-1]
        assert type(last).__name__ == "RunFinished" and last.reason is FinishReason.ERROR, events
        assert last.error is not None and last.error.type == "SerializationError", last.error
        assert KINDS[kind][1] in last.error.message, last.error.message
        # (JSON writes an int key as text, and 600 levels are within its reach: those updates go)
        if kind not in ("int key", "600 deep"):
            finished = [e for e in events if type(e).__name__ == "TaskFinished" and e.node == "make"]
            assert [e.update for e in finished] == [None]  # the update the wire cannot carry is left out
        assert client.get_state("unsendable", tid, timeout=10).values["items"] == ["fine"]
        again = client.invoke("unsendable", tid, {"kind": "fine"}, timeout=30)
        assert again.reason is FinishReason.END and again.values["items"] == ["fine", "fine"]
