"""LangGraph's deprecation warnings, as ``langgraph.warnings``.

A program (or a test) that filters or expects LangGraph's deprecations by
class gets the same classes here, with the same text: the message, the
version it was deprecated in and the one it goes away in.
"""

from __future__ import annotations

__all__ = (
    "LangGraphDeprecationWarning",
    "LangGraphDeprecatedSinceV05",
    "LangGraphDeprecatedSinceV10",
    "LangGraphDeprecatedSinceV11",
)


class LangGraphDeprecationWarning(DeprecationWarning):
    """A deprecated LangGraph feature: what, since which version, and until which.

    Attributes:
        message: what is deprecated (without a final period).
        since: the (major, minor) version that deprecated it.
        expected_removal: the (major, minor) version expected to remove it (next major by default).
    """

    message: str
    since: tuple[int, int]
    expected_removal: tuple[int, int]

    def __init__(self, message: str, *args: object, since: tuple[int, int], expected_removal: tuple[int, int] | None = None) -> None:
        super().__init__(message, *args)
        self.message = message.rstrip(".")
        self.since = since
        self.expected_removal = expected_removal if expected_removal is not None else (since[0] + 1, 0)

    def __str__(self) -> str:
        since, until = self.since, self.expected_removal
        return f"{self.message}. Deprecated in LangGraph V{since[0]}.{since[1]} to be removed in V{until[0]}.{until[1]}."


class LangGraphDeprecatedSinceV05(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 0.5, to go in 2.0."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(0, 5), expected_removal=(2, 0))


class LangGraphDeprecatedSinceV10(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 1.0, to go in 2.0."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(1, 0), expected_removal=(2, 0))


class LangGraphDeprecatedSinceV11(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 1.1, to go in 3.0."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(1, 1), expected_removal=(3, 0))
