"""Parser bombs and size limits against a real server: each is answered at once
with the right status, the server's memory stays bounded and its health SERVING.

* a stored msgpack array32 / map32 header claiming billions of items: DATA_LOSS
  (the unit test of the same bytes, without a server, is
  ``tests/engine/test_serde.py::test_size_bombs_fail_without_allocating``);
* JSON input nested 200,000 levels deep: INVALID_ARGUMENT (also one of the
  cases of ``tests/server/test_bad_requests.py``, here repeated and measured);
* a request one byte over ``--max-message-bytes``: RESOURCE_EXHAUSTED, and one
  of exactly the limit is accepted by the transport;
* run metadata over :data:`~engine.checkpoint._helpers.MAX_METADATA_BYTES`:
  RESOURCE_EXHAUSTED when the version is written before the run goes on
  (``durability=sync``), and nothing is stored;
* a thread whose state would pass ``max_state_bytes`` (SQLite: the launcher
  passes it to the saver): RESOURCE_EXHAUSTED for UpdateState and sync runs;
  the thread keeps its last version under the limit.

With the default ``durability=async`` the refused write surfaces after the
next step ran, so the run finishes ERROR (``StateTooLargeError``) naming its
last stored version, never the one whose write was refused (see
:func:`test_an_async_run_whose_write_is_refused_finishes_error`).

Memory is the server's resident set size (``VmRSS``) before and after the
whole barrage, with a generous bound: these are not timing tests, and every
call has a deadline, so "answered quickly" means "within it".
"""

from __future__ import annotations

import json
import uuid

import grpc
import pytest
from graphwire import DataLoss, FinishReason, InvalidArgument, NotFound, ResourceExhausted
from graphwire_proto.v1 import graphwire_pb2 as pb
from grpc_health.v1 import health_pb2

from engine.checkpoint._helpers import MAX_METADATA_BYTES
from tests.hardening.conftest import MAX_MESSAGE_BYTES, MAX_STATE_BYTES, Hardened, rss_kib

SERVING = health_pb2.HealthCheckResponse.SERVING
ASK = {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]}
#: Growth of the server's RSS the barrage may cause (a bomb that allocated what it claims would take GiBs).
RSS_BOUND_KIB = 128 * 1024
ROUNDS = 5
BOMBS = {
    "array32 of 2**32-1 items": b"\xdd\xff\xff\xff\xff" + b"\x00" * 16,
    "map32 of 2**32-1 entries": b"\xdf\xff\xff\xff\xff" + b"\x00" * 16,
    "str32 of 4 GiB": b"\xdb\xff\xff\xff\xff" + b"\x00" * 16,
    "list of array32 bombs": b"\x93" + b"\xdd\x80\x00\x00\x00" * 3,
}


def sized(build: object, size: int) -> bytes:
    """The serialized request ``build(n)`` makes, for the ``n`` that gives exactly ``size`` bytes."""
    n = size
    for _ in range(10):
        data = build(n).SerializeToString()  # type: ignore[operator]
        if len(data) == size:
            return data
        n -= len(data) - size
    raise AssertionError(f"no request of exactly {size} bytes")


def test_bombs_and_oversized_requests(hardened: Hardened, tid: str, record_property: object) -> None:
    h = hardened
    threads = []
    with h.client() as client:
        for name, bomb in BOMBS.items():
            thread = f"{tid}-{len(threads)}"
            assert client.invoke("reminders", thread, ASK, timeout=30).interrupted
            key = f"reminders:{thread}"
            cid = h.storage.head(key)
            h.storage.set_blob(key, "messages", h.storage.versions(key, cid)["messages"], "msgpack", bomb)
            threads.append((name, thread, cid))
    nested = pb.InvokeRequest(
        graph="chain3", thread_id=tid, input_json="[" * 200_000 + "]" * 200_000
    ).SerializeToString()
    over = sized(lambda n: pb.GetStateRequest(graph="chain3", thread_id="x" * n), MAX_MESSAGE_BYTES + 1)
    at_limit = sized(lambda n: pb.GetStateRequest(graph="chain3", thread_id="x" * n), MAX_MESSAGE_BYTES)
    invoke_over = sized(
        lambda n: pb.InvokeRequest(graph="chain3", thread_id=tid, input_json=" " * n),
        MAX_MESSAGE_BYTES + 1,
    )
    big_metadata = {"notes": "x" * (MAX_METADATA_BYTES + 1)}

    before = rss_kib(h.server.pid)
    for _ in range(ROUNDS):
        with h.client() as client:
            for name, thread, cid in threads:
                with pytest.raises(DataLoss) as lost:
                    client.get_state("reminders", thread, timeout=10)
                assert cid in lost.value.message, name
                with pytest.raises(DataLoss):
                    client.history("reminders", thread, timeout=10)
            with pytest.raises(ResourceExhausted, match="metadata"):
                client.invoke("chain3", f"{tid}-meta", {"n": 0}, run_metadata=big_metadata, durability="sync", timeout=10)
            with pytest.raises(NotFound):  # nothing of it was stored
                client.get_state("chain3", f"{tid}-meta", timeout=10)
        deep = h.raw_stream("Invoke", nested)
        assert isinstance(deep, grpc.RpcError) and deep.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "deeper" in (deep.details() or "")
        for method, data, rpc in (("GetState", over, h.raw_unary), ("Invoke", invoke_over, h.raw_stream)):
            too_big = rpc(method, data)
            assert isinstance(too_big, grpc.RpcError) and too_big.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, method
        fits = h.raw_unary("GetState", at_limit)
        assert isinstance(fits, grpc.RpcError) and fits.code() is grpc.StatusCode.INVALID_ARGUMENT  # "at most 512"
        assert h.server.health() == SERVING
    after = rss_kib(h.server.pid)

    record_property("rss_kib", {"server": h.kind, "before": before, "after": after})
    print(f"\n{h.kind} server RSS: {before} KiB before, {after} KiB after {ROUNDS} rounds of bombs")
    assert after - before < RSS_BOUND_KIB, f"RSS grew from {before} to {after} KiB"
    with h.client() as client:  # and it still works
        assert client.invoke("chain3", f"{tid}-after", {"n": 0}, timeout=10).values["n"] == 3


def test_state_size_limit(sqlite_hardened: Hardened, tid: str) -> None:
    h = sqlite_hardened
    third = MAX_STATE_BYTES // 3
    with h.client() as client:
        ok = client.invoke("chain3", tid, {"n": 0, "log": ["a" * third]}, timeout=10)
        assert ok.reason is FinishReason.END
        head = ok.checkpoint.checkpoint_id
        big = {"log": ["b" * (2 * third)]}

        with pytest.raises(ResourceExhausted) as refused:
            client.update_state("chain3", tid, big, as_node="c", timeout=10)
        assert "max_state_bytes" in refused.value.message and f"{MAX_STATE_BYTES}" in refused.value.message
        with pytest.raises(ResourceExhausted, match="max_state_bytes"):
            client.invoke("chain3", tid, big, durability="sync", timeout=10)

        state = client.get_state("chain3", tid, timeout=10)
        assert state.checkpoint.checkpoint_id == head  # the last version under the limit stays
        assert len(json.dumps(state.values)) < MAX_STATE_BYTES
        # Under the limit, the thread goes on.
        assert client.invoke("chain3", tid, {"log": ["small"]}, timeout=10).reason is FinishReason.END
        # The limit is per thread: another thread is not charged for this one.
        other = f"{tid}-{uuid.uuid4().hex[:4]}"
        assert client.invoke("chain3", other, {"n": 0, "log": ["c" * third]}, timeout=10).reason is FinishReason.END
    assert h.server.health() == SERVING


def test_oversized_filter_and_ids_are_invalid(sqlite_hardened: Hardened, tid: str) -> None:
    with sqlite_hardened.client() as client:
        client.invoke("chain3", tid, {"n": 0}, timeout=10)
        with pytest.raises(InvalidArgument, match="filter"):
            client.history("chain3", tid, filter={"k": "x" * (MAX_METADATA_BYTES + 1)}, timeout=10)
        with pytest.raises(InvalidArgument, match="checkpoint_id"):
            client.get_state("chain3", tid, "c" * 10_000, timeout=10)


def test_an_async_run_whose_write_is_refused_finishes_error(sqlite_hardened: Hardened, tid: str) -> None:
    with sqlite_hardened.client() as client:
        ok = client.invoke("chain3", tid, {"n": 0}, timeout=10)
        failed = client.invoke("chain3", tid, {"log": ["b" * MAX_STATE_BYTES]}, timeout=10)
        assert failed.reason is FinishReason.ERROR and failed.error is not None
        assert failed.error.type == "StateTooLargeError"
        assert failed.checkpoint is not None and failed.checkpoint.checkpoint_id == ok.checkpoint.checkpoint_id
        # The values are those of that version, not the refused ones (issue 13 item 7).
        assert failed.values == ok.values == client.get_state("chain3", tid, timeout=10).values


def test_oversized_run_metadata_is_refused_before_the_run(sqlite_hardened: Hardened, tid: str) -> None:
    with sqlite_hardened.client() as client:
        with pytest.raises(ResourceExhausted, match="metadata"):
            client.invoke("chain3", tid, {"n": 0}, run_metadata={"notes": "x" * (MAX_METADATA_BYTES + 1)}, timeout=10)
        with pytest.raises(NotFound):  # nothing ran, nothing was stored
            client.get_state("chain3", tid, timeout=10)


def test_a_run_that_stored_nothing_names_no_checkpoint(sqlite_hardened: Hardened, tid: str) -> None:
    with sqlite_hardened.client() as client:
        failed = client.invoke("chain3", tid, {"log": ["b" * MAX_STATE_BYTES]}, timeout=10)
        assert failed.reason is FinishReason.ERROR and failed.error is not None
        assert failed.error.type == "StateTooLargeError"
        with pytest.raises(NotFound):  # nothing was stored...
            client.get_state("chain3", tid, timeout=10)
        assert failed.checkpoint is None and failed.values is None  # ...so the result names no version, and no values