"""Injection over the wire: ids and metadata filters carrying SQL, LIKE
wildcards, NUL and non-UTF-8 match exactly or are refused, and never reach
another thread's rows, on SQLite and on PostgreSQL.

Every thread here is a chain3 run whose versions carry ``owner`` = its own
thread id in their metadata, so a row that leaked from another thread shows.
The savers' own filter tests (``tests/checkpoint/test_conformance.py::
test_list_filter_hostile_*``) cover the same strings below the RPCs.
"""

from __future__ import annotations

import json
import uuid

import grpc
import pytest
from graphwire import InvalidArgument, NotFound
from graphwire_proto.v1 import graphwire_pb2 as pb
from grpc_health.v1 import health_pb2

from tests.hardening.conftest import Hardened

SERVING = health_pb2.HealthCheckResponse.SERVING
# Ids that a careless store would read as SQL or as patterns: each must name only itself.
HOSTILE_IDS = [
    "') OR 1=1--", "' OR '1'='1", "%", "_", "a%", "a_c", "abc", "ab", "%%", "\\", "\\%", "a\\_c", "*", ".*",
    "$.owner", "x\ny", "é✓", "1; DROP TABLE checkpoints", "%' --",
]  # fmt: skip
VERSIONS_PER_RUN = 5  # chain3: input, then one per step


@pytest.fixture(scope="module")
def population() -> dict[str, str]:
    """A prefix per module run, so threads of one server's earlier tests never meet these."""
    return {"prefix": f"inj-{uuid.uuid4().hex[:6]}-"}


@pytest.fixture
def threads(hardened: Hardened, population: dict[str, str]) -> list[str]:
    """The hostile ids (with a per-module prefix), each a finished chain3 thread (made once per server)."""
    made = population.setdefault(hardened.kind, "")
    ids = [population["prefix"] + t for t in HOSTILE_IDS] + HOSTILE_IDS_BARE
    if not made:
        with hardened.client() as client:
            for t in ids:
                if not client.history("chain3", t, timeout=10):
                    client.invoke("chain3", t, {"n": 0}, run_metadata={"owner": t}, timeout=10)
        population[hardened.kind] = "made"
    return ids


#: Also the bare ids, unprefixed: what a LIKE prefix match or a '%' would most easily reach.
HOSTILE_IDS_BARE = [f"bare-{uuid.uuid4().hex[:4]}-{t}" for t in ("%", "_", "")]


def owners(snapshots: list) -> set[str]:
    return {s.metadata.get("owner") for s in snapshots}


def test_each_id_reads_its_own_rows_only(hardened: Hardened, threads: list[str]) -> None:
    with hardened.client() as client:
        for t in threads:
            history = client.history("chain3", t, timeout=10)
            assert len(history) == VERSIONS_PER_RUN and owners(history) == {t}, t
            state = client.get_state("chain3", t, timeout=10)
            assert state.metadata["owner"] == t and state.values == {"n": 3, "log": ["a", "b", "c"]}


def test_filters_match_exactly_and_never_across_threads(hardened: Hardened, threads: list[str]) -> None:
    with hardened.client() as client:
        for t in threads:
            assert len(client.history("chain3", t, filter={"owner": t}, timeout=10)) == VERSIONS_PER_RUN
            for other in (threads[0], "%", "_", "') OR 1=1--", t + "%", t[:-1] + "_"):
                if other != t:
                    assert client.history("chain3", t, filter={"owner": other}, timeout=10) == [], (t, other)
            for key in ("') OR 1=1--", "owner') OR 1=1--", "%", "_", "owner%", "own_r", "$.owner", 'owner"', "owner\\"):
                assert client.history("chain3", t, filter={key: t}, timeout=10) == [], (t, key)
            # NUL: no stored string holds one, so nothing matches (PostgreSQL text cannot hold it at all).
            assert client.history("chain3", t, filter={"owner": t + "\x00"}, timeout=10) == []
            assert client.history("chain3", t, filter={"owner\x00": t}, timeout=10) == []
            assert client.history("chain3", t, filter={"source": "%"}, timeout=10) == []
            assert len(client.history("chain3", t, filter={"source": "loop", "owner": t}, timeout=10)) == VERSIONS_PER_RUN - 1


def test_checkpoint_ids_are_exact_and_per_thread(hardened: Hardened, threads: list[str]) -> None:
    with hardened.client() as client:
        first, second = threads[0], threads[1]
        theirs = client.get_state("chain3", second, timeout=10).checkpoint.checkpoint_id
        for cid in (theirs, "%", "_", "') OR 1=1--", theirs[:-1] + "%", theirs[:-1] + "_"):
            with pytest.raises(NotFound):
                client.get_state("chain3", first, cid, timeout=10)
            with pytest.raises(NotFound):
                client.history("chain3", first, before=cid, timeout=10)
            with pytest.raises(NotFound):
                client.fork("chain3", first, cid, timeout=10)
        for bad in ("a\x00b", "\x00"):
            with pytest.raises(InvalidArgument, match="NUL"):
                client.get_state("chain3", bad, timeout=10)
            with pytest.raises(InvalidArgument, match="NUL"):
                client.get_state("chain3", first, bad, timeout=10)


def field(number: int, value: bytes) -> bytes:
    """A length-delimited protobuf field, written by hand so it may hold bytes that are not UTF-8."""
    assert len(value) < 128
    return bytes([number << 3 | 2, len(value)]) + value


def test_non_utf8_is_invalid_argument(hardened: Hardened, threads: list[str]) -> None:
    t = threads[0].encode()
    cases = {
        "thread id": ("GetState", field(1, b"chain3") + field(2, t[:3] + b"\xff" + t[3:])),
        "graph name": ("GetState", field(1, b"chain\xc3") + field(2, t)),
        "checkpoint id": ("GetState", field(1, b"chain3") + field(2, t) + field(3, b"\xfe\xff")),
        "history before": ("ListHistory", field(1, b"chain3") + field(2, t) + field(4, b"a\x80")),
        "filter bytes": ("ListHistory", field(1, b"chain3") + field(2, t) + field(6, b'{"owner": "\xff"}')),
        "filter surrogate": ("ListHistory", pb.ListHistoryRequest(graph="chain3", thread_id=threads[0], filter_json=json.dumps({"owner": "\udcff"})).SerializeToString()),
        "delete": ("DeleteThread", field(1, b"chain3") + field(2, b"%\xff")),
    }  # fmt: skip
    for name, (method, data) in cases.items():
        answer = hardened.raw_unary(method, data)
        assert isinstance(answer, grpc.RpcError), name
        assert answer.code() is grpc.StatusCode.INVALID_ARGUMENT, (name, answer.code(), answer.details())
    assert hardened.server.health() == SERVING


def test_deleting_a_pattern_id_deletes_only_itself(hardened: Hardened, threads: list[str]) -> None:
    with hardened.client() as client:
        victims = [t for t in threads if t.endswith(("%", "_"))]
        for t in victims:
            client.delete_thread("chain3", t, timeout=10)
        for t in threads:
            expected = 0 if t in victims else VERSIONS_PER_RUN
            assert len(client.history("chain3", t, timeout=10)) == expected, t
        for t in victims:  # made again, for the next test of this server
            client.invoke("chain3", t, {"n": 0}, run_metadata={"owner": t}, timeout=10)
