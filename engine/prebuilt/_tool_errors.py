"""Which failures of a tool call the model reads as a ToolMessage, and with what text.

Two kinds of failure (LangGraph's, observed on langgraph-prebuilt 1.1.3):

* the model's arguments do not fit the tool's schema: a
  :class:`ToolInvocationError`, whose message lists the errors the model can
  fix (none about an argument the graph fills) and the arguments it sent;
* the tool itself raises.

``handle_tool_errors`` says which become error ToolMessages: the default
handles only the first kind (a model can fix its arguments; a broken tool
should fail the run); True every exception; a string, that text for every
exception; an exception class or tuple, those classes; a callable, the
exceptions its first parameter's annotation names (all without one), with
the text it returns; False none (a bad argument fails the run too).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import UnionType
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin, get_type_hints

from langchain_core.tools.base import ToolException
from pydantic import ValidationError

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

__all__ = [
    "INVALID_TOOL_NAME_ERROR_TEMPLATE", "TOOL_CALL_ERROR_TEMPLATE", "TOOL_EXECUTION_ERROR_TEMPLATE",
    "TOOL_INVOCATION_ERROR_TEMPLATE", "ErrorHandling", "ToolInvocationError", "default_handle_tool_errors",
    "error_content", "handles", "model_errors", "is_invalid_resume",
]  # fmt: skip

INVALID_TOOL_NAME_ERROR_TEMPLATE = "Error: {requested_tool} is not a valid tool, try one of [{available_tools}]."
TOOL_CALL_ERROR_TEMPLATE = "Error: {error}\n Please fix your mistakes."
TOOL_EXECUTION_ERROR_TEMPLATE = (
    "Error executing tool '{tool_name}' with kwargs {tool_kwargs} with error:\n {error}\n Please fix the error and try again."
)
TOOL_INVOCATION_ERROR_TEMPLATE = (
    "Error invoking tool '{tool_name}' with kwargs {tool_kwargs} with error:\n {error}\n Please fix the error and try again."
)

ErrorHandling = bool | str | Callable[..., str] | type[Exception] | tuple[type[Exception], ...]


class ToolInvocationError(ToolException):
    """A tool call's arguments failed the tool's schema (raised by a ToolNode only).

    Attributes:
        message: what the model reads: the tool, the arguments it sent, the errors.
        tool_name: the tool called.
        tool_kwargs: the arguments as the model sent them (nothing the graph filled).
        source: the schema's ValidationError.
        filtered_errors: its errors about arguments the model fills, or None for all of them.
    """

    def __init__(
        self,
        tool_name: str,
        source: ValidationError,
        tool_kwargs: dict[str, Any],
        filtered_errors: list[ErrorDetails] | None = None,
    ) -> None:
        if filtered_errors is None:
            shown = str(source)
        else:
            shown = "\n".join(
                f"{'.'.join(str(p) for p in err.get('loc', ()))}: {err.get('msg', 'Unknown error')}" for err in filtered_errors
            )
        self.message = TOOL_INVOCATION_ERROR_TEMPLATE.format(tool_name=tool_name, tool_kwargs=tool_kwargs, error=shown)
        self.tool_name = tool_name
        self.tool_kwargs = tool_kwargs
        self.source = source
        self.filtered_errors = filtered_errors
        super().__init__(self.message)


def default_handle_tool_errors(e: Exception) -> str:
    """ToolNode's default: a bad argument is the model's to fix (its message); anything else fails the run."""
    if isinstance(e, ToolInvocationError):
        return e.message
    raise e


def model_errors(error: ValidationError, filled: frozenset[str]) -> list[ErrorDetails]:
    """``error``'s details about arguments the model fills, without the graph's values in their input.

    An argument the graph fills (state, store, runtime) is not the model's to
    fix, and its value (the whole state, say) is not for the model to read.
    """
    kept: list[ErrorDetails] = []
    for err in error.errors():
        if not err["loc"] or err["loc"][0] in filled:
            continue
        copy: dict[str, Any] = {**err}
        if isinstance(copy.get("input"), dict):
            copy["input"] = {k: v for k, v in copy["input"].items() if k not in filled}
        kept.append(copy)  # type: ignore[arg-type]
    return kept


def _annotated_types(handler: Callable[..., str]) -> tuple[type[Exception], ...]:
    """The exception classes a handler's first parameter is annotated with (all, without an annotation).

    Raises:
        ValueError: the annotation names something other than exception classes.
    """
    params = list(inspect.signature(handler).parameters.values())
    if not params:
        return (Exception,)
    first = params[1] if params[0].name in ("self", "cls") and len(params) == 2 else params[0]
    hints = get_type_hints(handler)
    if first.name not in hints:
        return (Exception,)
    if get_origin(first.annotation) in (Union, UnionType):
        args = get_args(first.annotation)
        if all(issubclass(a, Exception) for a in args):
            return tuple(args)
        raise ValueError(
            "All types in the error handler error annotation must be Exception types. For example, "
            f"`def custom_handler(e: Union[ValueError, TypeError])`. Got '{first.annotation}' instead."
        )
    hinted = hints[first.name]
    if Exception in getattr(hinted, "__mro__", ()):
        return (hinted,)
    raise ValueError(
        "Arbitrary types are not supported in the error handler signature. Please annotate the error with either a "
        "specific Exception type or a union of Exception types. For example, `def custom_handler(e: ValueError)` or "
        f"`def custom_handler(e: Union[ValueError, TypeError])`. Got '{hinted}' instead."
    )


def handles(flag: ErrorHandling, e: Exception) -> bool:
    """Whether ``handle_tool_errors=flag`` turns ``e`` into a ToolMessage (see the module)."""
    if not flag:
        return False
    if isinstance(flag, type) and issubclass(flag, Exception):
        return isinstance(e, flag)
    if isinstance(flag, tuple):
        return isinstance(e, flag)
    if callable(flag) and not isinstance(flag, type):
        return isinstance(e, _annotated_types(flag))
    return True


def error_content(e: Exception, flag: ErrorHandling) -> str:
    """The error ToolMessage's text for a handled ``e``: the default template, the given text, or the handler's.

    Raises:
        ValueError: ``flag`` is of no supported kind.
    """
    if isinstance(flag, (bool, tuple)) or (isinstance(flag, type) and issubclass(flag, Exception)):
        return TOOL_CALL_ERROR_TEMPLATE.format(error=repr(e))
    if isinstance(flag, str):
        return flag
    if callable(flag):
        handler: Callable[..., Any] = flag  # a function (or a class that is no exception: called as LangGraph calls it)
        return handler(e)
    raise ValueError(f"Got unexpected type of `handle_tool_error`. Expected bool, str or callable. Received: {flag}")


def is_invalid_resume(e: BaseException) -> bool:
    """Whether ``e`` is a resume answer refused by its interrupt's ``response_schema``: never the model's to fix.

    The engine's ``interrupt(response_schema=)`` marks such errors through
    ``engine.errors.is_invalid_resume`` where it has one; before that, no
    error is one.
    """
    from engine import errors

    check: Callable[[BaseException], bool] | None = getattr(errors, "is_invalid_resume", None)
    return bool(check is not None and check(e))
