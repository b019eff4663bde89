"""A call's ``context=``: coerced into the graph's ``context_schema`` as LangGraph does, or read from JSON strictly.

:func:`coerce_context` is LangGraph 1.2's rule for Python callers: a dict
given to a graph whose context schema is a dataclass or a Pydantic model is
made into one (``Schema(**context)``: a missing or unknown field raises
TypeError, or pydantic's ValidationError); anything else is passed as it is.

:func:`context_from_json` is for hosts that receive the context as JSON (the
server's ``RunConfig.context_json``): a JSON object is checked against the
schema field by field, and :class:`ContextError` names the first bad field,
so a caller learns which key it got wrong rather than a Python traceback.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

__all__ = ["coerce_context", "context_from_json", "ContextError"]


class ContextError(ValueError):
    """A context that does not fit the graph's context schema; ``field`` names the key."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.reason = message


def _is_pydantic(schema: Any) -> bool:
    return isinstance(schema, type) and hasattr(schema, "model_validate") and hasattr(schema, "model_fields")


def _is_typeddict(schema: Any) -> bool:
    return isinstance(schema, type) and issubclass(schema, dict) and hasattr(schema, "__required_keys__")


def coerce_context(schema: Any, context: Any) -> Any:
    """The context a run's nodes see: LangGraph's ``_coerce_context``."""
    if context is None or schema is None:
        return context
    if isinstance(context, dict) and (_is_pydantic(schema) or dataclasses.is_dataclass(schema)):
        return schema(**context)
    return context


_SIMPLE = {str: "a string", int: "an integer", float: "a number", bool: "true or false", list: "a list", dict: "an object"}


def _fits(value: Any, hint: Any) -> bool | None:
    """Whether a JSON value fits a simple annotation (None: not one this checks)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        results = [_fits(value, a) for a in typing.get_args(hint)]
        if any(r is None for r in results):
            return None
        return any(results)
    if hint is type(None):
        return value is None
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    base = origin or hint
    if base is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if base is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if base in (str, bool, list, dict):
        return isinstance(value, base)
    return None


def _check_fields(schema: Any, data: dict[str, Any], hints: dict[str, Any], required: set[str]) -> None:
    for key in data:
        if key not in hints:
            raise ContextError(key, f"is not a field of {schema.__name__} (fields: {', '.join(sorted(hints)) or 'none'})")
    for key in sorted(required):
        if key not in data:
            raise ContextError(key, f"is required by {schema.__name__}")
    for key, value in data.items():
        if _fits(value, hints[key]) is False:
            want = _SIMPLE.get(typing.get_origin(hints[key]) or hints[key], repr(hints[key]))
            raise ContextError(key, f"must be {want}, not {type(value).__name__ if value is not None else 'null'}")


def context_from_json(schema: Any, data: Any) -> Any:
    """The context of a call that sent ``data`` (decoded JSON) for a graph with ``schema``.

    Without a schema the value is passed as it is. With one, ``data`` must be
    a JSON object whose keys are the schema's fields, each of a fitting type
    (str, int, float, bool, lists, objects, Optional and Literal of these are
    checked; other annotations are taken as they come). Raises ContextError.
    """
    if data is None or schema is None:
        return data
    if not isinstance(data, dict):
        raise ContextError("", f"must be a JSON object (the fields of {getattr(schema, '__name__', schema)}), not {type(data).__name__}")
    if _is_pydantic(schema):
        try:
            return schema.model_validate(data)
        except Exception as e:  # pydantic's ValidationError: its first error's location is the field
            errors = getattr(e, "errors", None)
            first = errors()[0] if callable(errors) and errors() else {}
            raise ContextError(".".join(str(p) for p in first.get("loc", ())), first.get("msg", str(e))) from None
    if isinstance(schema, type) and dataclasses.is_dataclass(schema):
        fields = {f.name: f for f in dataclasses.fields(schema) if f.init}
        hints = {k: v for k, v in typing.get_type_hints(schema).items() if k in fields}
        required = {
            n for n, f in fields.items() if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
        _check_fields(schema, data, hints, required)
        try:
            return schema(**data)
        except Exception as e:  # the schema's own checks (__post_init__)
            raise ContextError("", f"{schema.__name__} refused it: {type(e).__name__}: {e}") from None
    if _is_typeddict(schema):
        _check_fields(schema, data, typing.get_type_hints(schema), set(schema.__required_keys__))
        return dict(data)
    return data
