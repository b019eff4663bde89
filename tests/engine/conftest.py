"""Fixtures for engine tests: every run-model test runs on every saver."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Iterator, TypedDict

import pytest

from engine.checkpoint import InMemorySaver, SqliteSaver


@pytest.fixture(params=["memory", "sqlite"])
def checkpointer(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    if request.param == "memory":
        saver = InMemorySaver()
    else:
        saver = SqliteSaver(str(tmp_path / "engine.db"))
    yield saver
    saver.close()
