"""``Serializer(json_safe=True)``: what JSON cannot carry is refused at write time, with its path."""

from __future__ import annotations

import math
from datetime import date
from typing import Any

import pytest

import engine.serde._serializer as serializer_module
from engine.errors import SerializationError
from engine.serde import Serializer

REFUSED = [
    ({"x": [1.0, float("nan")]}, "at ['x'][1]: nan is not a number"),
    ({"x": float("-inf")}, "at ['x']: -inf is not a number"),
    ({"x": (1, float("inf"))}, "at ['x'][1]: inf is not a number"),
    ({"x": 10**5000}, "at ['x']: an integer of"),
    ({"x": ["ok", "a\ud800"]}, "at ['x'][1]: a string with a lone surrogate"),
    ({"a\udfff": 1}, "at <key>: a string with a lone surrogate"),
    ({"x": {(1, 2): "pair"}}, "at ['x']<key>: a key of type tuple"),
    ({1: "one"}, "at <key>: a key of type int"),
    ({"x": {True: 1}}, "at ['x']<key>: a key of type bool"),
]


@pytest.mark.parametrize(("value", "message"), REFUSED, ids=[m for _, m in REFUSED])
def test_json_safe_refuses_what_the_wire_cannot_carry_naming_the_path(value: Any, message: str) -> None:
    with pytest.raises(SerializationError) as refused:
        Serializer(json_safe=True).dumps_channel("value", value)
    assert str(refused.value).startswith(f"state key 'value' {message}"), refused.value


@pytest.mark.parametrize(("value", "message"), REFUSED, ids=[m for _, m in REFUSED])
def test_without_json_safe_such_values_are_stored_as_langgraph_stores_them(value: Any, message: str) -> None:
    serde = Serializer()
    back = serde.loads(serde.dumps(value))
    if "nan" in message:
        assert math.isnan(back["x"][1])
    else:
        assert back == value


def test_bytes_that_look_like_a_nan_are_not_refused() -> None:
    # 0xcb 0x7f 0xf8 is how msgpack writes NaN; inside a byte string or a string it is data.
    value = {"a": b"\xcb\x7f\xf8\x00", "b": "\u00cb\x7f", "n": [1.5, -2.0, 1e308]}
    serde = Serializer(json_safe=True)
    assert serde.loads(serde.dumps(value)) == value


def test_the_check_does_not_walk_a_sendable_value(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    monkeypatch.setattr(serializer_module, "find_problem", lambda *a, **k: calls.append(a))
    state = {"messages": [{"role": "user", "content": "héllo"}] * 50, "n": 3, "t": (1, 2), "when": date(2024, 1, 1)}
    serde = Serializer(json_safe=True)
    assert serde.loads(serde.dumps(state)) == state
    assert calls == []
