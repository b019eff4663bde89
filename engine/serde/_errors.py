"""The serializer's own failure kinds, beside those of :mod:`engine.errors`."""

from __future__ import annotations

from engine.errors import SerializationError

__all__ = ["StateTooLargeError"]


class StateTooLargeError(SerializationError):
    """What a checkpoint would store is over a size limit; nothing was stored.

    Raised at write time, before any row is written: by a saver built with
    ``max_state_bytes`` when a new version's state would be larger, and by
    every saver for checkpoint metadata over
    :data:`engine.checkpoint._helpers.MAX_METADATA_BYTES`. A ``SerializationError``
    (the value cannot be stored), kept apart so a host can answer "too large"
    (gRPC RESOURCE_EXHAUSTED) rather than "malformed".
    """
