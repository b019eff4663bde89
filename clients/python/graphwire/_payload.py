"""JSON payloads: how Python values cross the wire.

Every value the server sees or sends is one JSON text in a ``Payload``. We
encode compactly and keep non-ASCII text as UTF-8 (``ensure_ascii=False``),
and we refuse NaN and infinities, which are not JSON and which other
languages' parsers reject. Python's ``json`` reads integers as ``int``, so a
20-digit id comes back exactly as it went.
"""

from __future__ import annotations

import json
from typing import Any

from graphwire_proto.v1 import graphwire_pb2 as pb

__all__ = ["JSON", "dumps", "encode", "decode", "decode_field"]

JSON = "json"


def dumps(value: Any) -> bytes:
    """Encode ``value`` as UTF-8 JSON bytes.

    Raises:
        TypeError: ``value`` holds something JSON cannot represent.
        ValueError: ``value`` holds NaN or an infinity.
    """
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def encode(value: Any) -> pb.Payload:
    """Wrap ``value`` in a JSON ``Payload``."""
    return pb.Payload(encoding=JSON, data=dumps(value))


def decode(payload: pb.Payload) -> Any:
    """The value inside a ``Payload``; an empty one reads as ``None``.

    Raises:
        ValueError: the payload names an encoding other than JSON, or its
            bytes are not JSON.
    """
    if payload.encoding not in ("", JSON):
        raise ValueError(f"unsupported payload encoding {payload.encoding!r} (this client reads only JSON)")
    if not payload.data:
        return None
    return json.loads(payload.data)


def decode_field(message: Any, field: str) -> Any:
    """The value of a ``Payload`` field of ``message``; ``None`` when unset."""
    if not message.HasField(field):
        return None
    return decode(getattr(message, field))
