"""Serialization of state values: msgpack with an allowlist, then an optional codec.

``Serializer.dumps_typed(value) -> (type_tag, bytes)`` and
``Serializer.loads_typed((type_tag, bytes))``. Types outside the allowlist fail
at write time with :class:`~engine.errors.SerializationError` naming the path
to the offending part; reading never imports or calls code chosen by the
stored bytes. See :class:`Serializer` for the allowlist. A saver's size limits
fail with :class:`StateTooLargeError`, a ``SerializationError``.
"""

from __future__ import annotations

from engine.serde._errors import StateTooLargeError
from engine.serde._serializer import TAG, Codec, Serializer

__all__ = ["TAG", "Codec", "Serializer", "StateTooLargeError"]
