"""One ErrorInfo for a node's failure, wherever it is reported.

A run reports the live exception (``type(exc).__name__``, ``str(exc)``); a
task read back from storage has only what the engine stored, LangGraph's
``repr(exc)``. ``stored_error`` turns the second into the first's shape.
"""

from __future__ import annotations

import pytest

from server._convert import stored_error


class NodeFailed(Exception):
    pass


@pytest.mark.parametrize(
    "exc",
    [
        KeyError("messages"),  # the example: type KeyError, message 'messages'
        ValueError("explode was told to fail"),
        ValueError(),
        RuntimeError("two", 2),
        NodeFailed("line one\nline two"),
        TypeError({"nested": [1, "x"]}),
        KeyError(("a", 1)),
    ],
    ids=repr,
)
def test_a_stored_error_reads_as_the_run_reported_it(exc: Exception) -> None:
    info = stored_error(repr(exc))
    assert (info.type, info.message) == (type(exc).__name__, str(exc))


def test_a_repr_of_another_shape_keeps_its_text() -> None:
    info = stored_error("<Boom at 0x1>")
    assert (info.type, info.message) == ("Exception", "<Boom at 0x1>")
    code = stored_error("Evil(__import__('os').system('true'))")  # never evaluated: not a literal
    assert code.type == "Evil" and "__import__" in code.message
