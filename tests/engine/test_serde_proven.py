"""A LangChain message whose stored bytes validated to exactly their own fields is rebuilt without validating them again
(engine/serde/_proven.py): the object is the one validation makes, each read's its own, and bytes a validator changes
or refuses are validated at every read."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage  # noqa: E402

from engine.errors import CorruptCheckpointError  # noqa: E402
from engine.serde import Serializer  # noqa: E402
from engine.serde._ext import Code  # noqa: E402
from engine.serde._proven import Proven  # noqa: E402


def _chat() -> list[Any]:
    call = {"name": "weather", "args": {"city": "Paris", "days": [1, 2]}, "id": "call-1", "type": "tool_call"}
    return [
        SystemMessage(content=[{"type": "text", "text": "be brief"}], id="s"),
        HumanMessage(content="weather in Paris?", id="h", custom_field={"kept": True}),
        AIMessage(content="", id="a", tool_calls=[call], usage_metadata={"input_tokens": 3, "output_tokens": 1, "total_tokens": 4}),
        ToolMessage(content="sunny", tool_call_id="call-1", name="weather", id="t", artifact={"raw": [1.5, None]}),
        AIMessage(content="Sunny.", id="b", response_metadata={"model": "m", "temperature": 0.0}, name="bot"),
        AIMessageChunk(content="Sun", id="k"),
    ]


def _exact(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    assert a == b
    assert a.__pydantic_fields_set__ == b.__pydantic_fields_set__
    assert a.__pydantic_extra__ == b.__pydantic_extra__
    assert a.model_dump_json() == b.model_dump_json()
    assert list(a.__dict__) == list(b.__dict__)


def test_a_second_read_is_what_validation_makes_and_skips_it() -> None:
    serde = Serializer()
    stored = serde.dumps_typed(_chat())
    first = serde.loads_typed(stored)
    assert len(serde._proven._payloads) == len(first)  # every message's bytes proven by its first read
    second = serde.loads_typed(stored)
    for want, a, b in zip(_chat(), first, second):
        _exact(want, a)
        _exact(want, b)


def test_each_read_gets_objects_of_its_own() -> None:
    serde = Serializer()
    stored = serde.dumps_typed(_chat())
    serde.loads_typed(stored)
    mine = serde.loads_typed(stored)
    mine[2].tool_calls[0]["args"]["city"] = "Rome"
    mine[2].additional_kwargs["x"] = 1
    mine[4].content = "changed"
    mine[1].custom_field["kept"] = False
    again = serde.loads_typed(stored)
    for want, got in zip(_chat(), again):
        _exact(want, got)


def _registered(name: str, fields: dict[str, Any]) -> tuple[str, bytes]:
    payload = msgpack.packb([name, fields])
    return "msgpack", msgpack.packb([msgpack.ExtType(Code.REGISTERED, payload)])


def test_bytes_a_validator_changes_are_validated_at_every_read() -> None:
    # An older form: the tool calls only in additional_kwargs, which AIMessage's validator parses into tool_calls.
    legacy = {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Oslo"}'}}
    stored = _registered("langchain:AIMessage", {"content": "", "additional_kwargs": {"tool_calls": [legacy]}})
    serde = Serializer()
    for _ in range(3):
        (message,) = serde.loads_typed(stored)
        assert [(c["name"], c["args"]) for c in message.tool_calls] == [("weather", {"city": "Oslo"})]
    assert not serde._proven._payloads


def test_bytes_validation_refuses_fail_at_every_read() -> None:
    stored = _registered("langchain:HumanMessage", {"content": 42})
    serde = Serializer()
    for _ in range(2):
        with pytest.raises(CorruptCheckpointError, match="HumanMessage"):
            serde.loads_typed(stored)
    assert not serde._proven._payloads


def test_the_remembered_payloads_are_bounded() -> None:
    proven = Proven(max_bytes=1000)
    rebuild: Any = object()  # (a stand-in: only kept and given back)
    for i in range(100):
        proven.add(b"x" * 100 + bytes([i]), rebuild)
    assert len(proven._payloads) < 10
    assert b"x" * 100 + bytes([99]) in proven and proven.get(b"x" * 100 + bytes([99])) is rebuild
    assert proven.get(b"x" * 100 + bytes([0])) is None


class _Xor:
    """A stand-in cipher (the codec's plumbing is what matters here, not the cipher)."""

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        return "xor", bytes(b ^ 0x5A for b in plaintext)

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
        return bytes(b ^ 0x5A for b in ciphertext)


def test_a_cipher_s_plain_text_is_not_kept() -> None:
    from engine.checkpoint.serde.encrypted import EncryptedSerializer

    serde = EncryptedSerializer(_Xor())
    stored = serde.dumps_typed(_chat())
    assert stored[0] != "msgpack"
    for _ in range(2):
        for want, got in zip(_chat(), serde.loads_typed(stored)):
            _exact(want, got)
    assert not serde._proven._payloads


def test_a_shape_past_the_planned_ones_is_rebuilt_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.serde import _proven

    monkeypatch.setattr(_proven, "_MAX_SHAPES", 1)  # the first shape planned and kept, every other planned at each rebuild
    serde = Serializer()
    stored = serde.dumps_typed(_chat())
    serde.loads_typed(stored)
    for _ in range(2):
        again = serde.loads_typed(stored)
        for want, got in zip(_chat(), again):
            _exact(want, got)
        again[0].additional_kwargs["x"] = 1  # a factory's value: each object's own
    assert all(len(r._plans) <= 1 for r in serde._rebuilders.values() if r is not None)
