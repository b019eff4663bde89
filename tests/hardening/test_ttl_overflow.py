"""PutItem with a TTL too long for a date (issue 28 item 5c), on SQLite and PostgreSQL servers.

``ttl_minutes = 1e308`` passed the finite-and-not-negative check, then
overflowed computing the expiry (OverflowError): INTERNAL. A TTL past
``MAX_TTL_MINUTES`` (about 1,900 years; an expiry is a date, which ends at
year 9999) is now INVALID_ARGUMENT naming the field, as NaN, infinity and -1
are, and nothing is stored; the longest TTL is stored, read and refreshed.
"""

from __future__ import annotations

import uuid

import grpc
import pytest

from engine.store import MAX_TTL_MINUTES
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from tests.hardening.conftest import Hardened


@pytest.mark.parametrize("minutes", [1e308, MAX_TTL_MINUTES * 1.5, float("nan"), float("inf"), -1.0])
def test_a_ttl_too_long_is_invalid_argument_and_stores_nothing(hardened: Hardened, minutes: float) -> None:
    ns = ["ttl", uuid.uuid4().hex[:12]]
    with hardened.server.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        with pytest.raises(grpc.RpcError) as info:
            stub.PutItem(pb.PutItemRequest(namespace=ns, key="k", value_json="{}", ttl_minutes=minutes), timeout=30)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, info.value.details()
        assert info.value.details().startswith(
            "ttl_minutes: a number of minutes >= 0 and at most 1,000,000,000 (about 1,900 years; 0: never expires), got "
        ), info.value.details()
        with pytest.raises(grpc.RpcError) as missing:
            stub.GetItem(pb.GetItemRequest(namespace=ns, key="k"), timeout=30)
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def test_the_longest_ttl_is_stored_read_and_refreshed(hardened: Hardened) -> None:
    ns = ("ttl", uuid.uuid4().hex[:12])
    with hardened.client() as client:
        client.store.put_item(ns, "k", {"v": 1}, ttl=MAX_TTL_MINUTES)
        item = client.store.get_item(ns, "k")  # the read refreshes the TTL: its expiry is computed again
        assert item is not None and item.value == {"v": 1}
        assert [i.key for i in client.store.search_items(ns)] == ["k"]
