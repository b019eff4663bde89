"""LangGraph's serializer faces (langgraph.checkpoint.serde.*) on the engine's serializer, in real savers."""

from __future__ import annotations

import dataclasses
import operator
import sqlite3
from typing import Annotated, Any, TypedDict

import pytest

from engine.checkpoint.base import SerializerProtocol
from engine.checkpoint.memory import InMemorySaver
from engine.checkpoint.serde.base import CipherProtocol, SerializerCompat
from engine.checkpoint.serde.encrypted import EncryptedSerializer
from engine.checkpoint.serde.jsonplus import JsonPlusSerializer
from engine.checkpoint.sqlite import SqliteSaver
from engine.errors import CorruptCheckpointError, SerializationError
from engine.graph import START, StateGraph

SECRET = "the-plaintext-marker"


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Xor:
    """A toy cipher (the protocol's shape; AES is tested below with pycryptodome)."""

    def __init__(self, name: str = "xor") -> None:
        self.name = name

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        return self.name, bytes(b ^ 0x5A for b in plaintext)

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
        assert ciphername == self.name, ciphername
        return bytes(b ^ 0x5A for b in ciphertext)


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def _graph(saver: Any) -> Any:
    b = StateGraph(S)
    b.add_node("echo", lambda s: {"log": [SECRET]})
    b.add_edge(START, "echo")
    return b.compile(checkpointer=saver)


def test_the_faces_are_the_protocols_langgraph_names() -> None:
    assert isinstance(JsonPlusSerializer(), SerializerProtocol)
    assert isinstance(EncryptedSerializer(Xor()), SerializerProtocol)
    assert isinstance(Xor(), CipherProtocol)


def test_jsonplus_round_trips_and_allows_the_classes_code_names() -> None:
    plain = JsonPlusSerializer()
    assert plain.loads_typed(plain.dumps_typed({"a": (1, 2.5, "x", b"y")})) == {"a": (1, 2.5, "x", b"y")}
    with pytest.raises(SerializationError):
        plain.dumps_typed(Point(1, 2))  # nothing named it: refused at write time, as everywhere in the engine
    named = JsonPlusSerializer(allowed_msgpack_modules=[(__name__, "Point")])
    assert named.loads_typed(named.dumps_typed(Point(1, 2))) == Point(1, 2)
    assert JsonPlusSerializer(allowed_msgpack_modules=[Point]).loads_typed(named.dumps_typed(Point(3, 4))) == Point(3, 4)


@pytest.mark.parametrize(
    "options", [{"pickle_fallback": True}, {"allowed_json_modules": [("langchain_core", "messages")]}],
)
def test_jsonplus_refuses_what_would_load_code_by_name(options: dict[str, Any]) -> None:
    with pytest.raises(NotImplementedError, match="Where it differs"):
        JsonPlusSerializer(**options)


def test_encrypted_bytes_hide_the_value_and_name_their_cipher() -> None:
    serde = EncryptedSerializer(Xor(), JsonPlusSerializer(allowed_msgpack_modules=[Point]))
    tag, data = serde.dumps_typed({"p": Point(1, 2), "s": SECRET})
    assert SECRET.encode() not in data
    assert serde.loads_typed((tag, data)) == {"p": Point(1, 2), "s": SECRET}  # the classes of the serde given
    with pytest.raises(CorruptCheckpointError):
        EncryptedSerializer(Xor("other")).loads_typed((tag, data))  # another cipher never reads it
    assert serde.loads_typed(JsonPlusSerializer().dumps_typed([1])) == [1]  # stored before encryption: still read


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_saver_given_an_encrypted_serde_stores_ciphertext_only(kind: str, tmp_path: Any) -> None:
    path = tmp_path / "enc.db"
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(sqlite3.connect(path, check_same_thread=False))
    saver.serde = EncryptedSerializer.from_pycryptodome_aes(key=b"1234567890123456")
    graph = _graph(saver)
    config = {"configurable": {"thread_id": "t"}}
    assert graph.invoke({"log": ["hi"]}, config) == {"log": ["hi", SECRET]}
    assert graph.get_state(config).values == {"log": ["hi", SECRET]}
    if kind == "sqlite":
        assert SECRET.encode() not in path.read_bytes()


def test_aes_needs_a_key_of_a_valid_length(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LANGGRAPH_AES_KEY", raising=False)
    with pytest.raises(ValueError, match="LANGGRAPH_AES_KEY environment variable is not set"):
        EncryptedSerializer.from_pycryptodome_aes()
    monkeypatch.setenv("LANGGRAPH_AES_KEY", "short")
    with pytest.raises(ValueError, match="16, 24, or 32 bytes"):
        EncryptedSerializer.from_pycryptodome_aes()
    monkeypatch.setenv("LANGGRAPH_AES_KEY", "k" * 24)
    serde = EncryptedSerializer.from_pycryptodome_aes()
    assert serde.loads_typed(serde.dumps_typed("x")) == "x"


def test_serializer_compat_wraps_an_untyped_serializer() -> None:
    class Upper:
        def dumps(self, obj: Any) -> bytes:
            return str(obj).upper().encode()

        def loads(self, data: bytes) -> Any:
            return data.decode()

    assert SerializerCompat(Upper()).dumps_typed("ab") == ("str", b"AB")
    assert SerializerCompat(Upper()).loads_typed(("str", b"AB")) == "AB"
