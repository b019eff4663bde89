"""Checkpoint and task ids.

Checkpoint ids are UUIDv6-like: a 60-bit timestamp first, so that sorting ids
as strings sorts checkpoints by creation time (the savers rely on it for
"newest first" and ``before``). A per-process counter breaks ties within one
clock tick so ids are strictly increasing in one process.
"""

from __future__ import annotations

import hashlib
import os
import random
import threading
import time
import uuid
from datetime import datetime, timezone

_lock = threading.Lock()
_last = 0
_node = int.from_bytes(os.urandom(6), "big") | 0x010000000000


def checkpoint_id() -> str:
    """A new time-ordered id (UUID version 6 layout)."""
    clock_seq = _version_random.getrandbits(14)  # the time and node make it unique; no syscall per id
    return _uuid_text(v6_int(_node, clock_seq))


def v6_int(node: int, clock_seq: int) -> int:
    """A UUID version 6 as an int: the next tick of this process's clock (strictly increasing,
    as :func:`checkpoint_id`'s), ``clock_seq``'s low 14 bits and ``node``'s low 48."""
    global _last
    with _lock:
        # 100-ns intervals since the Gregorian epoch, as UUIDv1/v6 use.
        ts = time.time_ns() // 100 + 0x01B21DD213814000
        if ts <= _last:
            ts = _last + 1
        _last = ts
    time_high_mid = (ts >> 12) & 0xFFFF_FFFF_FFFF
    time_low = ts & 0x0FFF
    return (time_high_mid << 80) | (0x6 << 76) | (time_low << 64) | ((0x8000 | (clock_seq & 0x3FFF)) << 48) | (node & 0xFFFF_FFFF_FFFF)


def task_id(*parts: object) -> str:
    """A deterministic id: the same checkpoint, step and node give the same id.

    Deterministic ids let a resumed run match pending writes to the tasks it
    plans again.
    """
    return _v4_text(hashlib.blake2b("\x00".join(map(str, parts)).encode(), digest_size=16).hexdigest())


def _v4_text(h: str) -> str:
    """32 hex digits as a UUID's text with version 4 and the RFC 4122 variant set, as
    ``uuid.UUID(hex=h, version=4)`` prints it."""
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"


#: a hex digit with its top two bits set to 10 (the RFC 4122 variant)
_VARIANT = {c: format((int(c, 16) & 0x3) | 0x8, "x") for c in "0123456789abcdef"}


def random_uuid() -> str:
    """A random id in UUID version 4 form (a run's id): 122 bits of the private generator."""
    return _v4_text(_version_random.getrandbits(128).to_bytes(16, "big").hex())


def message_id() -> str:
    """A new message's id, made as LangGraph's ``add_messages`` makes it: ``str(uuid.uuid4())`` (so a
    program that patches ``uuid.uuid4`` for stable ids gets them)."""
    return str(uuid.uuid4())


def _uuid_text(value: int) -> str:
    """``str(uuid.UUID(int=value))``, without building a UUID (ids are made every step)."""
    h = value.to_bytes(16, "big").hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def now_iso() -> str:
    """The time now as ``datetime.now(timezone.utc).isoformat()`` writes it (every version's ``ts``)."""
    return iso_of(time.time_ns())


def iso_of(ns: int) -> str:
    """``ns`` nanoseconds after the epoch as UTC ISO 8601, as ``datetime.isoformat()`` writes it;
    the date and second are formatted once a second (half the cost of a datetime)."""
    global _second
    seconds, micros = divmod(ns // 1000, 1_000_000)
    at, text = _second
    if seconds != at:
        text = datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
        _second = (seconds, text)  # one tuple: a thread never reads a half-updated pair
    return f"{text}.{micros:06d}+00:00" if micros else f"{text}+00:00"


_second = (0, "")


# Versions draw their low 32 bits from a private generator: a graph calling
# random.seed() must not make two branches draw the same versions. Re-seeded
# in forked children for the same reason.
_version_random = random.Random()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_version_random.seed)
#: ``k`` random bits from the versions' generator (re-seeded in place: this stays its method)
version_bits = _version_random.getrandbits


def next_version(current: int | None) -> int:
    """The channel version after ``current``: a step counter above 32 random bits.

    The counter orders versions within a branch. The random bits keep two
    branches forked from one version from both calling their next write
    "version N": savers store a channel's value once per (channel, version),
    so equal numbers on two branches would make one read the other's value.
    Fits SQL's 64-bit integers for two billion steps.
    """
    return ((((current or 0) >> 32) + 1) << 32) | version_bits(32)
