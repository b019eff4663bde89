"""A Hypothesis fuzzer over raw request bytes, sent to every GraphService
method through a generic channel (no stubs, no client-side validation).

Three kinds of input per method: random bytes; well-formed messages of the
method's request type with random field values (graph names and thread ids
that exist among random ones, JSON payloads shaped like the graphs' state
among random bytes); and those messages mutated (a byte flipped, cut short,
garbage appended). Whatever arrives, the server answers with a status from
the contract, never UNKNOWN or INTERNAL (a crash the caller cannot act on),
and stays SERVING.

Derandomized and bounded in examples, so every run sends the same requests;
``GRAPHWIRE_FUZZ_EXAMPLES=5000`` makes a longer campaign locally.
:func:`test_an_update_a_reducer_rejects_is_invalid_argument` pins what such a
campaign found: an UpdateState whose values a reducer rejects was INTERNAL.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor
from graphwire import InvalidArgument
from graphwire_proto.v1 import graphwire_pb2 as pb
from grpc_health.v1 import health_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hardening.conftest import Hardened

SERVING = health_pb2.HealthCheckResponse.SERVING
SERVICE = pb.DESCRIPTOR.services_by_name["GraphService"]
METHODS = [m.name for m in SERVICE.methods]
FORBIDDEN = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}
# Graphs whose nodes wait for a gate file would hold a run until its deadline: left out.
GRAPHS = ["chain3", "reminders", "failing"]
THREAD = "fuzz-known"
NODES = ["a", "b", "c", "model", "tools", "ask_user", "prepare", "explode", "__start__", "*"]
# Fields set in nine requests of ten (the others in one of two): most requests get past "required".
USUALLY_SET = {"graph", "name", "thread_id", "input", "resume", "values", "update", "checkpoint_id"}
KEYS = ["n", "log", "messages", "reminders", "fail", "role", "content", "id", "tool_calls", "owner", "source", "step"]
SETTINGS = settings(
    max_examples=int(os.environ.get("GRAPHWIRE_FUZZ_EXAMPLES", "150")),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
payload_data = (
    json_values.map(lambda v: json.dumps(v).encode())
    | st.dictionaries(st.sampled_from(KEYS), json_values, max_size=3).map(lambda v: json.dumps(v).encode())
    | st.dictionaries(st.sampled_from(KEYS), json_values, max_size=3).map(lambda v: json.dumps(v).encode())
    | st.binary(max_size=40)
    | st.sampled_from([b"", b"null", b"{", b"[" * 300, b'{"n": 1e999}', b'"\\ud800"', b"\xff\xfe", b'{"n": NaN}'])
)


def field_values(field: FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    """Random values for one protobuf field, biased towards the names the server knows."""
    if field.message_type is not None:
        if field.message_type.GetOptions().map_entry:
            value = field.message_type.fields_by_name["value"]
            return st.dictionaries(st.text(max_size=8), field_values(value, depth + 1), max_size=2)
        if depth > 2:
            return st.none()
        return messages(field.message_type, depth + 1)
    if field.type == FieldDescriptor.TYPE_STRING and field.name.endswith("_json"):
        # A JSON text: valid, or nearly (bytes past UTF-8 reach the server through `mutated`).
        return payload_data.map(lambda d: d.decode("utf-8", "replace"))
    if field.type == FieldDescriptor.TYPE_STRING:
        known = {"graph": GRAPHS, "thread_id": [THREAD], "as_node": NODES}.get(field.name)
        if known is None:
            return st.text(max_size=24)
        # Three in four name something that exists: deeper paths get exercised, not just NOT_FOUND.
        return st.integers(0, 3).flatmap(lambda i: st.text(max_size=12) if i == 0 else st.sampled_from(known))
    if field.type == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if field.type == FieldDescriptor.TYPE_ENUM:
        return st.integers(-3, 12)
    if field.type == FieldDescriptor.TYPE_UINT32:
        return st.integers(0, 2**32 - 1)
    return st.integers(-(2**31), 2**31 - 1)


def messages(descriptor: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Well-formed messages of ``descriptor``'s type, each field set or not, at random."""
    cls = message_factory.GetMessageClass(descriptor)  # ours, and the well-known ones they hold (Timestamp)
    fields = [f for f in descriptor.fields]

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        msg = cls()
        for field in fields:
            if draw(st.integers(0, 9)) >= (9 if field.name in USUALLY_SET else 5):
                continue
            if field.is_repeated and not (field.message_type and field.message_type.GetOptions().map_entry):
                values = draw(st.lists(field_values(field, depth), max_size=3))
                getattr(msg, field.name).extend(values)
                continue
            value = draw(field_values(field, depth))
            if value is None:
                continue
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                getattr(msg, field.name).update(value)
            elif field.message_type is not None:
                getattr(msg, field.name).CopyFrom(value)
            else:
                setattr(msg, field.name, value)
        return msg

    return build()


def mutated(data: bytes) -> st.SearchStrategy[bytes]:
    if not data:
        return st.binary(max_size=16)
    return st.one_of(
        st.integers(0, len(data) - 1).flatmap(lambda i: st.integers(0, 255).map(lambda b: data[:i] + bytes([b]) + data[i + 1 :])),
        st.integers(0, len(data) - 1).map(lambda i: data[:i]),
        st.binary(min_size=1, max_size=16).map(lambda tail: data + tail),
    )


def requests(method: str) -> st.SearchStrategy[bytes]:
    shaped = messages(SERVICE.methods_by_name[method].input_type).map(lambda m: m.SerializeToString())
    return st.one_of(st.binary(max_size=64), shaped, shaped.flatmap(mutated))


@pytest.fixture(scope="module")
def target(sqlite_hardened: Hardened) -> Iterator[tuple[Hardened, grpc.Channel]]:
    with sqlite_hardened.client() as client:  # a thread that exists, for the fuzzer to find
        client.invoke("chain3", THREAD, {"n": 0}, timeout=10)
        client.invoke("reminders", THREAD, {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]}, timeout=10)
    with sqlite_hardened.server.channel() as channel:
        yield sqlite_hardened, channel
    assert sqlite_hardened.server.health() == SERVING


def send(channel: grpc.Channel, method: str, data: bytes) -> grpc.StatusCode:
    path = f"/{SERVICE.full_name}/{method}"
    streaming = SERVICE.methods_by_name[method].server_streaming
    try:
        if streaming:
            for _ in channel.unary_stream(path, request_serializer=None, response_deserializer=None)(data, timeout=10):
                pass
        else:
            channel.unary_unary(path, request_serializer=None, response_deserializer=None)(data, timeout=10)
    except grpc.RpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


@pytest.mark.parametrize("method", METHODS)
def test_garbage_never_crashes_a_method(target: tuple[Hardened, grpc.Channel], method: str) -> None:
    hardened, channel = target

    @SETTINGS
    @given(data=requests(method))
    def fuzz(data: bytes) -> None:
        code = send(channel, method, data)
        assert code not in FORBIDDEN, f"{method} answered {code.name} to {data!r}:\n{hardened.server.log()[-2000:]}"

    fuzz()
    assert hardened.server.health() == SERVING


def test_an_update_a_reducer_rejects_is_invalid_argument(target: tuple[Hardened, grpc.Channel]) -> None:
    hardened, _ = target
    with hardened.client() as client:
        client.invoke("chain3", f"{THREAD}-reducer", {"n": 0}, timeout=10)
        with pytest.raises(InvalidArgument):
            client.update_state("chain3", f"{THREAD}-reducer", {"log": None}, timeout=10)
