"""msgpack ext codes, and how the built-in allowlisted types are encoded.

msgpack natively stores None, bool, int (64-bit), float, str, bytes, list and
dict. Everything else on the allowlist travels as an *ext* value: a one-byte
code chosen here plus a payload. The codes are part of the stored format:
never renumber one, only add.

Decoders receive bytes chosen by whoever wrote the database, so they only call
fixed constructors (``tuple``, ``datetime``, ``UUID``...) with checked
arguments. Anything they raise is turned into a
:class:`~engine.errors.CorruptCheckpointError` by the caller.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from decimal import Decimal
from typing import Any
from uuid import UUID

__all__ = ["CODE_NAMES", "DECODERS", "ENCODERS", "Code", "tz_state"]

Pack = Callable[[Any], bytes]
Unpack = Callable[[bytes], Any]
Encoder = Callable[[Any, Pack], tuple[int, bytes]]
Decoder = Callable[[bytes, Unpack], Any]


class Code:
    """The ext codes of the stored format (0 and 12..127 are free)."""

    TUPLE = 1
    SET = 2
    FROZENSET = 3
    BIGINT = 4
    DATETIME = 5
    DATE = 6
    TIME = 7
    TIMEDELTA = 8
    UUID = 9
    DECIMAL = 10
    REGISTERED = 11


CODE_NAMES = {v: k.lower() for k, v in vars(Code).items() if not k.startswith("_")}

_ONE_US = timedelta(microseconds=1)


# -- time zones ------------------------------------------------------------
def tz_state(tz: tzinfo | None, offset: timedelta | None) -> Any:
    """How a time zone is stored.

    ``None`` (naive), an IANA key (``ZoneInfo``: its rules survive, so
    arithmetic across DST keeps working after a reload), microseconds of a
    fixed offset, or ``[microseconds, name]`` for a named fixed offset. Other
    tzinfo classes (pytz, dateutil) are stored as the fixed offset they give
    this value: the instant and the wall time survive, the zone's rules do not.

    Raises:
        TypeError: a tz-aware ``time`` whose tzinfo gives no offset.
    """
    if tz is None:
        return None
    if type(tz) is zoneinfo.ZoneInfo and tz.key is not None:
        return tz.key
    if offset is None:
        raise TypeError(f"time zone {tz!r} gives no UTC offset for this value")
    us = offset // _ONE_US
    if type(tz) is timezone:
        name = tz.tzname(None)
        if name != timezone(offset).tzname(None):
            return [us, name]
    return us


def _tz_from_state(state: Any) -> tzinfo | None:
    if state is None:
        return None
    if type(state) is str:
        return zoneinfo.ZoneInfo(state)
    if type(state) is int:
        return timezone(timedelta(microseconds=state))
    if type(state) is list and len(state) == 2 and type(state[0]) is int and type(state[1]) is str:
        return timezone(timedelta(microseconds=state[0]), state[1])
    raise ValueError(f"bad time zone {state!r}")


def _ints(value: Any, n: int) -> list[int]:
    if type(value) is not list or len(value) != n or any(type(x) is not int for x in value):
        raise ValueError(f"expected {n} integers, got {value!r}")
    return value


# -- encoders: (value, pack) -> (code, payload) ---------------------------------
def _enc_tuple(v: tuple[Any, ...], pack: Pack) -> tuple[int, bytes]:
    return Code.TUPLE, pack(list(v))


def _enc_set(v: set[Any], pack: Pack) -> tuple[int, bytes]:
    return Code.SET, pack(list(v))


def _enc_frozenset(v: frozenset[Any], pack: Pack) -> tuple[int, bytes]:
    return Code.FROZENSET, pack(list(v))


def _enc_bigint(v: int, pack: Pack) -> tuple[int, bytes]:
    # Only called for ints outside msgpack's 64-bit range. +8 leaves room for the sign bit.
    return Code.BIGINT, v.to_bytes((v.bit_length() + 8) // 8, "big", signed=True)


def _enc_datetime(v: datetime, pack: Pack) -> tuple[int, bytes]:
    tz = tz_state(v.tzinfo, v.utcoffset())
    fields = [v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, v.fold, tz]
    return Code.DATETIME, pack(fields)


def _enc_date(v: date, pack: Pack) -> tuple[int, bytes]:
    return Code.DATE, pack([v.year, v.month, v.day])


def _enc_time(v: time, pack: Pack) -> tuple[int, bytes]:
    tz = tz_state(v.tzinfo, v.utcoffset())
    return Code.TIME, pack([v.hour, v.minute, v.second, v.microsecond, v.fold, tz])


def _enc_timedelta(v: timedelta, pack: Pack) -> tuple[int, bytes]:
    return Code.TIMEDELTA, pack([v.days, v.seconds, v.microseconds])


def _enc_uuid(v: UUID, pack: Pack) -> tuple[int, bytes]:
    return Code.UUID, v.bytes


def _enc_decimal(v: Decimal, pack: Pack) -> tuple[int, bytes]:
    # str() is exact: it keeps the exponent (1.50 stays 1.50), NaN, sNaN and -0.
    return Code.DECIMAL, str(v).encode("ascii")


ENCODERS: dict[type, Encoder] = {
    tuple: _enc_tuple,
    set: _enc_set,
    frozenset: _enc_frozenset,
    int: _enc_bigint,
    datetime: _enc_datetime,
    date: _enc_date,
    time: _enc_time,
    timedelta: _enc_timedelta,
    UUID: _enc_uuid,
    Decimal: _enc_decimal,
}


# -- decoders: (payload, unpack) -> value -------------------------------------
def _items(payload: bytes, unpack: Unpack) -> list[Any]:
    items = unpack(payload)
    if type(items) is not list:
        raise ValueError(f"expected an array, got {type(items).__name__}")
    return items


def _dec_datetime(payload: bytes, unpack: Unpack) -> datetime:
    fields = unpack(payload)
    if type(fields) is not list or len(fields) != 9:
        raise ValueError("expected 9 fields")
    y, mo, d, h, mi, s, us, fold = _ints(fields[:8], 8)
    return datetime(y, mo, d, h, mi, s, us, tzinfo=_tz_from_state(fields[8]), fold=fold)


def _dec_date(payload: bytes, unpack: Unpack) -> date:
    return date(*_ints(unpack(payload), 3))


def _dec_time(payload: bytes, unpack: Unpack) -> time:
    fields = unpack(payload)
    if type(fields) is not list or len(fields) != 6:
        raise ValueError("expected 6 fields")
    h, mi, s, us, fold = _ints(fields[:5], 5)
    return time(h, mi, s, us, tzinfo=_tz_from_state(fields[5]), fold=fold)


def _dec_timedelta(payload: bytes, unpack: Unpack) -> timedelta:
    days, seconds, us = _ints(unpack(payload), 3)
    return timedelta(days=days, seconds=seconds, microseconds=us)


def _dec_uuid(payload: bytes, unpack: Unpack) -> UUID:
    return UUID(bytes=bytes(payload))


def _dec_decimal(payload: bytes, unpack: Unpack) -> Decimal:
    return Decimal(bytes(payload).decode("ascii"))


DECODERS: dict[int, Decoder] = {
    Code.TUPLE: lambda p, u: tuple(_items(p, u)),
    Code.SET: lambda p, u: set(_items(p, u)),
    Code.FROZENSET: lambda p, u: frozenset(_items(p, u)),
    Code.BIGINT: lambda p, u: int.from_bytes(p, "big", signed=True),
    Code.DATETIME: _dec_datetime,
    Code.DATE: _dec_date,
    Code.TIME: _dec_time,
    Code.TIMEDELTA: _dec_timedelta,
    Code.UUID: _dec_uuid,
    Code.DECIMAL: _dec_decimal,
}
