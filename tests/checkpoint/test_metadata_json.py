"""Metadata JSON through the C encoder directly (engine.checkpoint._json): the text and errors of json.dumps."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.checkpoint import _json
from engine.checkpoint._helpers import dump_metadata
from engine.errors import SerializationError


def _dumps(obj: Any, default: Any = repr) -> str:
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=default)


VALUES: list[Any] = [
    {},
    {"source": "loop", "step": 3, "parents": {"": "1ef-abc"}, "__graphwire_run_id__": "r"},
    {"text": "héllo ✓ 😀 \n\t\"quoted\" \\ \u2028", "nested": {"a": [1, -2.5, 0.1, 1e300, None, True, False]}},
    {1: "int key", 2.5: "float key", False: "bool key", None: "none key"},
    ["a list", ("a", "tuple"), {"deep": [[[{"x": -0.0}]]]}],
    {"big": 2**80, "neg": -(2**70)},
]


def test_this_python_takes_the_fast_path() -> None:
    assert _json.compact_json is _json._fast


@pytest.mark.parametrize("value", VALUES)
def test_the_text_is_json_dumps(value: Any) -> None:
    assert _json.compact_json(value, repr) == _dumps(value)
    assert _json._fast(value, repr) == _json._slow(value, repr)


def test_default_is_called_for_what_json_cannot_hold() -> None:
    assert _json.compact_json({"x": {1, 2}}, lambda o: sorted(o)) == _dumps({"x": {1, 2}}, lambda o: sorted(o))


@pytest.mark.parametrize("value", [{"x": float("nan")}, {"x": float("inf")}, [float("-inf")]])
def test_nan_and_infinities_are_refused_as_json_dumps_refuses_them(value: Any) -> None:
    with pytest.raises(ValueError) as fast:
        _json.compact_json(value, repr)
    with pytest.raises(ValueError) as slow:
        _dumps(value)
    assert str(fast.value) == str(slow.value)


def test_a_circular_value_is_refused_each_time() -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    for _ in range(2):  # a fresh circular-reference map every call
        with pytest.raises(ValueError, match="Circular reference"):
            _json.compact_json(loop, repr)
    assert _json.compact_json({"a": [loop["self"] is loop]}, repr) == '{"a":[true]}'


def test_dump_metadata_still_refuses_what_it_refused() -> None:
    with pytest.raises(SerializationError, match="cannot store a value of type object"):
        dump_metadata({"x": object()})
    with pytest.raises(SerializationError, match="Out of range float"):
        dump_metadata({"x": float("nan")})
    assert dump_metadata({"source": "loop", "step": 1, "writes": None}) == '{"source":"loop","step":1,"writes":null}'


LOOPS: list[Any] = [
    {"source": "loop", "step": 3, "parents": {}},
    {"source": "input", "step": -1, "parents": {}},
    {"__graphwire_run_id__": "0b7e5f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b", "source": "update", "step": 2**40, "parents": {}},
]
NOT_LOOPS: list[Any] = [
    {"source": "loop", "step": True, "parents": {}},  # a bool is no step
    {"source": "loop", "step": 1.0, "parents": {}},
    {"source": "loop", "step": 1, "parents": {"": "id"}},  # parents: the encoder's
    {"step": 1, "source": "loop", "parents": {}},  # another key order: another text
    {"source": 'lo"op', "step": 1, "parents": {}},
    {"source": "loop", "step": 1, "parents": {}, "extra": 1},
    {"__graphwire_run_id__": "not a uuid", "source": "loop", "step": 1, "parents": {}},
    {"source": "loop", "step": 2**60, "parents": {}},
]


@pytest.mark.parametrize("value", LOOPS)
def test_a_loops_metadata_has_the_encoders_text_without_it(value: Any) -> None:
    assert _json.loop_json(value) == _dumps(value)
    assert dump_metadata(value) == _dumps(value)


@pytest.mark.parametrize("value", NOT_LOOPS)
def test_other_metadata_goes_through_the_encoder(value: Any) -> None:
    assert _json.loop_json(value) is None
    assert dump_metadata(value) == _dumps(value)


def test_an_encoder_is_taken_again_after_a_success_not_after_a_failure() -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises(SerializationError):
        dump_metadata({"x": loop})
    assert dump_metadata({"a": [1, {"b": None}]}) == '{"a":[1,{"b":null}]}'
    assert dump_metadata({"a": [1, {"b": None}]}) == '{"a":[1,{"b":null}]}'
