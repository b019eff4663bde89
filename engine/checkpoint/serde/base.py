"""What a serializer and a cipher are (LangGraph's ``langgraph.checkpoint.serde.base``)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["CipherProtocol", "SerializerCompat", "SerializerProtocol", "UntypedSerializerProtocol"]


@runtime_checkable
class UntypedSerializerProtocol(Protocol):
    """Turns a value into bytes and back."""

    def dumps(self, obj: Any) -> bytes: ...

    def loads(self, data: bytes) -> Any: ...


@runtime_checkable
class SerializerProtocol(Protocol):
    """Turns a value into ``(type tag, bytes)`` and back: what a saver stores values with."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]: ...

    def loads_typed(self, data: tuple[str, bytes]) -> Any: ...


@runtime_checkable
class CipherProtocol(Protocol):
    """Encrypts bytes, naming the cipher; decrypts bytes a cipher of that name encrypted."""

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]: ...

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes: ...


class SerializerCompat:
    """An untyped serializer (``dumps``/``loads``) as a typed one, its tag the class's name."""

    def __init__(self, serde: UntypedSerializerProtocol) -> None:
        self.serde = serde

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        return type(obj).__name__, self.serde.dumps(obj)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        return self.serde.loads(data[1])
