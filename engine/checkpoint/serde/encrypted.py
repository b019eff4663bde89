"""LangGraph's ``EncryptedSerializer``: the engine's serializer with a cipher as its codec.

The engine serializes in two stages (msgpack with an allowlist, then a codec
on the bytes; :mod:`engine.serde`): encryption is a codec. The cipher's name
is stored with each ciphertext, so a value written with one cipher is never
decrypted with another; values stored before encryption was configured
(plain ``msgpack``) still read.
"""

from __future__ import annotations

import os
from typing import Any

from engine.checkpoint.serde.base import CipherProtocol
from engine.errors import CorruptCheckpointError
from engine.serde import Serializer

__all__ = ["EncryptedSerializer"]


class _CipherCodec:
    """A :class:`CipherProtocol` as a codec: ``len(name) name ciphertext``."""

    name = "encrypted"

    def __init__(self, cipher: CipherProtocol) -> None:
        self.cipher = cipher

    def encode(self, data: bytes) -> bytes:
        ciphername, ciphertext = self.cipher.encrypt(data)
        raw = ciphername.encode()
        if not 0 < len(raw) < 256:
            raise ValueError(f"a cipher's name must be 1 to 255 bytes, not {ciphername!r}")
        return bytes((len(raw),)) + raw + ciphertext

    def decode(self, data: bytes) -> bytes:
        if not data or len(data) < 1 + data[0]:
            raise CorruptCheckpointError("encrypted bytes too short to name their cipher")
        n = data[0]
        return self.cipher.decrypt(data[1 : 1 + n].decode(), data[1 + n :])


class EncryptedSerializer(Serializer):
    """Serializes as ``serde`` does, then encrypts the bytes with ``cipher``.

    Args:
        cipher: encrypts and decrypts (:class:`CipherProtocol`).
        serde: whose registered classes and options to keep (default: a new
            :class:`~engine.serde.Serializer`).
    """

    __slots__ = ("cipher", "serde")

    def __init__(self, cipher: CipherProtocol, serde: Serializer | None = None) -> None:
        base = serde if serde is not None else Serializer()
        if not isinstance(base, Serializer):
            raise TypeError(f"serde must be the engine's Serializer (or JsonPlusSerializer), not {type(base).__name__}")
        super().__init__(types=base.registered.values(), codec=_CipherCodec(cipher), json_safe=base.json_safe)
        self.cipher = cipher
        self.serde = base

    @classmethod
    def from_pycryptodome_aes(cls, serde: Serializer | None = None, **kwargs: Any) -> EncryptedSerializer:
        """AES with pycryptodome (``pip install pycryptodome``), EAX mode unless ``mode`` says otherwise.

        The key is ``key=`` (bytes), else the ``LANGGRAPH_AES_KEY`` environment
        variable (16, 24 or 32 bytes).
        """
        try:
            from Crypto.Cipher import AES  # type: ignore[import-not-found]
        except ImportError:
            raise ImportError("pycryptodome is not installed: pip install pycryptodome") from None
        if "key" in kwargs:
            key: bytes = kwargs.pop("key")
        else:
            key_str = os.getenv("LANGGRAPH_AES_KEY")
            if key_str is None:
                raise ValueError("LANGGRAPH_AES_KEY environment variable is not set.")
            key = key_str.encode()
            if len(key) not in (16, 24, 32):
                raise ValueError("LANGGRAPH_AES_KEY must be 16, 24, or 32 bytes long.")
        if kwargs.get("mode") is None:
            kwargs["mode"] = AES.MODE_EAX
        return cls(_AesCipher(AES, key, kwargs), serde)


class _AesCipher:
    """AES through pycryptodome: ``nonce (16) tag (16) ciphertext``."""

    def __init__(self, aes: Any, key: bytes, options: dict[str, Any]) -> None:
        self._aes, self._key, self._options = aes, key, options

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        cipher = self._aes.new(self._key, **self._options)
        ciphertext, tag = cipher.encrypt_and_digest(plaintext)
        return "aes", cipher.nonce + tag + ciphertext

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
        if ciphername != "aes":
            raise ValueError(f"unsupported cipher: {ciphername!r}")
        nonce, tag, body = ciphertext[:16], ciphertext[16:32], ciphertext[32:]
        return self._aes.new(self._key, **self._options, nonce=nonce).decrypt_and_verify(body, tag)  # type: ignore[no-any-return]
