"""server/_json.encode: every value a graph may hold in state, as JSON text, the same on a class's
first value and on later ones (its converter is found once per class)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import json
import uuid
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from server._json import encode


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Person(BaseModel):
    name: str
    born: dt.date


class Plain:
    def __init__(self) -> None:
        self.shown = 1
        self._hidden = 2


class Opaque:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<opaque>"


class ClaimsToBeASet:
    """A proxy: its ``__class__`` says set, so ``isinstance(x, set)`` holds, as for the value it stands for."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return set

    def __iter__(self) -> Any:
        return iter([3])


CASES: list[tuple[str, Any, Any]] = [
    ("set", {1}, [1]),
    ("frozenset", frozenset({2}), [2]),
    ("tuple", (1, "a"), [1, "a"]),
    ("datetime", dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc), "2026-01-02T03:04:05+00:00"),
    ("date", dt.date(2026, 1, 2), "2026-01-02"),
    ("time", dt.time(3, 4), "03:04:00"),
    ("timedelta", dt.timedelta(seconds=90), 90.0),
    ("uuid", uuid.UUID(int=1), "00000000-0000-0000-0000-000000000001"),
    ("decimal", decimal.Decimal("1.50"), "1.50"),
    ("enum", Color.RED, "red"),
    ("bytes", b"\x00\xff", "AP8="),
    ("bytearray", bytearray(b"ab"), "YWI="),
    ("dataclass", Point(1, 2), {"x": 1, "y": 2}),
    ("pydantic model", Person(name="Ada", born=dt.date(1815, 12, 10)), {"name": "Ada", "born": "1815-12-10"}),
    ("plain object", Plain(), {"shown": 1}),
    ("anything else", Opaque(), "<opaque>"),
    ("a class", Plain, None),  # its non-private attributes: checked below
    ("a proxy", ClaimsToBeASet(), [3]),
]


@pytest.mark.parametrize(("what", "value", "expected"), CASES, ids=[c[0] for c in CASES])
def test_each_kind_of_value_encodes_the_same_the_first_time_and_after(what: str, value: Any, expected: Any) -> None:
    first, again = encode({"v": value}), encode({"v": value})
    assert first == again
    got = json.loads(first)["v"]
    if what == "a class":
        assert "shown" not in got and all(not k.startswith("_") for k in got)
        return
    assert got == expected


def test_a_langchain_message_is_its_json_dump() -> None:
    messages = [HumanMessage("héllo", id="h1"), AIMessage("", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}], id="a1")]
    text = encode({"messages": messages})
    assert json.loads(text) == {"messages": [m.model_dump(mode="json") for m in messages]}
    assert "héllo" in text  # not escaped
    assert encode({"messages": messages}) == text


def test_a_list_of_messages_is_written_as_each_messages_own_json_dump() -> None:
    """A list of models that write themselves is written in one call (pydantic_core.to_json): the same
    text, byte for byte, as each one's model_dump_json joined (non-finite floats, bytes, text beyond ASCII)."""
    messages = [
        HumanMessage("héllo ✓ \u2028 \"q\"", id="h1"),
        AIMessage("", tool_calls=[{"name": "f", "args": {"x": 1.5}, "id": "c1"}], id="a1",
                  additional_kwargs={"nan": float("nan"), "inf": float("-inf"), "big": 10**30, "raw": b"\x00b"}),
        AIMessage("x", response_metadata={"t": 1e20, "z": -0.0}, id="a2"),
    ]  # fmt: skip
    text = encode({"messages": messages, "n": 1})
    assert text == '{"messages":[' + ",".join(m.model_dump_json() for m in messages) + '],"n":1}'


class _OwnDump(BaseModel):
    """A model whose class writes itself its own way: model_dump_json would not follow it."""

    n: int

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return {"n": self.n * 10}


class _Holds(BaseModel):
    x: Any = None


class _Unwritable:
    pass


def test_a_state_s_models_are_written_by_pydantic_as_their_json_dump() -> None:
    messages = [HumanMessage("a\nb\u2028", id="h"), AIMessage("x", response_metadata={"big": 1e20, "t": 0.1}, id="a")]
    values = {"messages": messages, "one": Person(name="Ada", born=dt.date(1815, 12, 10)), 1.5: None}
    assert json.loads(encode(values)) == {"messages": [m.model_dump(mode="json") for m in messages],
                                          "one": {"name": "Ada", "born": "1815-12-10"}, "1.5": None}  # fmt: skip
    values.pop(1.5)
    assert json.loads(encode(values))["messages"][1]["response_metadata"] == {"big": 1e20, "t": 0.1}
    # a list mixing models and plain values, a class with its own model_dump: this module's way
    mixed = {"items": [Person(name="B", born=dt.date(2000, 1, 1)), {"k": {2}}], "own": [_OwnDump(n=1)]}
    assert json.loads(encode(mixed)) == {"items": [{"name": "B", "born": "2000-01-01"}, {"k": [2]}], "own": [{"n": 10}]}


def test_a_model_pydantic_cannot_write_fails_as_before_and_a_non_finite_float_in_one_is_null() -> None:
    with pytest.raises(ValueError, match="[Uu]nable to serialize"):
        encode({"items": [_Holds(x=_Unwritable())]})
    assert json.loads(encode({"items": [_Holds(x=float("nan"))]})) == {"items": [{"x": None}]}
    with pytest.raises(ValueError, match="not JSON compliant"):
        encode({"items": [float("nan")]})  # outside a model: refused, as before
