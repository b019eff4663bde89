"""A key's reducer must take two values (issue 29). Twin of tests/sidebyside/reducer_signature.py."""

from __future__ import annotations

from typing import Annotated, TypedDict

import pytest

from engine.errors import GraphDefinitionError
from engine.graph import StateGraph


def one(a): ...  # noqa: ANN001, ANN201


def three(a, b, c=None): ...  # noqa: ANN001, ANN201


def star(*values):  # noqa: ANN002, ANN201
    return sum(values)


def two(a, b):  # noqa: ANN001, ANN201
    return a + b


@pytest.mark.parametrize("fn", [one, three, star])
def test_a_reducer_not_taking_two_values_is_refused(fn: object) -> None:
    State = TypedDict("State", {"k": Annotated[int, fn]})  # type: ignore[misc]  # noqa: UP013
    with pytest.raises(GraphDefinitionError, match="Invalid reducer signature") as err:
        StateGraph(State)
    assert isinstance(err.value, ValueError)


def test_a_two_value_reducer_is_taken() -> None:
    State = TypedDict("State", {"k": Annotated[int, two]})  # type: ignore[misc]  # noqa: UP013
    assert sorted(StateGraph(State).channels) == ["k"]
