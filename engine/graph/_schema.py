"""Reading a state schema: its keys, their channels, and how to build a state object.

A schema is a TypedDict, a dataclass, or (when pydantic is installed) a
Pydantic model; a ``pydantic.v1`` model is read as LangGraph reads it, as
a TypedDict of its annotations (nodes get dicts, not instances). A key annotated ``Annotated[T, reducer]`` becomes a
reducer channel; any other key keeps its last value. Anything else with no
annotations (``list[str]``, ``Annotated[list, operator.add]``, a plain
class) is, as in LangGraph, a *root* state: one channel, ``__root__``, whose
value the nodes take and return whole.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import sys
import typing
from typing import Any, Callable, Sequence, get_type_hints

from engine.managed import is_managed_value, managed_values
from engine.channels import BinaryOperatorAggregate, LastValue
from engine.channels.base import MISSING, BaseChannel
from engine.channels.delta import DeltaChannel
from engine.errors import GraphDefinitionError

__all__ = ["ROOT", "SchemaInfo", "read_schema", "annotated_schema"]

#: the one channel of a root state (a schema with no keys)
ROOT = "__root__"


def _is_pydantic(schema: Any) -> bool:
    return isinstance(schema, type) and hasattr(schema, "model_fields") and hasattr(schema, "model_validate")


def _is_pydantic_v1(schema: Any) -> bool:
    """A ``pydantic.v1`` model (pydantic 2's compatibility module: loaded if such a model exists)."""
    v1 = sys.modules.get("pydantic.v1")
    return v1 is not None and isinstance(schema, type) and issubclass(schema, v1.BaseModel)


_WRAPPERS = {"Required", "NotRequired", "ReadOnly"}


def _is_typeddict(schema: Any) -> bool:
    # typing_extensions.TypedDict makes classes typing.is_typeddict rejects on 3.11.
    return isinstance(schema, type) and (
        typing.is_typeddict(schema) or (issubclass(schema, dict) and hasattr(schema, "__total__"))
    )


def _unwrap(hint: Any) -> Any:
    """``hint`` without ``Required``/``NotRequired``/``ReadOnly`` (typing's or typing_extensions')."""
    while getattr(typing.get_origin(hint), "_name", None) in _WRAPPERS or getattr(
        typing.get_origin(hint), "__name__", None
    ) in _WRAPPERS:
        hint = typing.get_args(hint)[0]
    return hint


def _reducer(meta: tuple[Any, ...]) -> Callable[[Any, Any], Any] | None:
    for m in reversed(meta):
        if callable(m) and not isinstance(m, type):
            try:
                params = [
                    p
                    for p in inspect.signature(m).parameters.values()
                    if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
                ]
            except (TypeError, ValueError):  # builtins like operator.add
                return m
            if len(params) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params):
                return m
    return None


def _check_reducer(m: Any) -> None:
    """As LangGraph: a function last in a key's annotation is its reducer, and must take two
    values by position (a plain function taking another number of them, or ``*args``, is
    refused, not ignored).

    Raises:
        GraphDefinitionError: ("Invalid reducer signature") a ValueError, as LangGraph's.
    """
    if not inspect.isfunction(m):
        return
    params = inspect.signature(m).parameters.values()
    if sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) != 2:
        raise GraphDefinitionError(f"Invalid reducer signature. Expected (a, b) -> c. Got {inspect.signature(m)}")


def _channel(base: Any, meta: Sequence[Any], key: str) -> BaseChannel | None:
    """A channel the annotation names, as LangGraph reads it: ``Annotated[T, UntrackedValue]``
    (a channel class, made for ``T``) or ``Annotated[T, EphemeralValue(T)]`` (an instance, keyed here)."""
    for m in meta:
        if isinstance(m, DeltaChannel):  # as LangGraph: its value type is the key's
            typed = m.retyped(base)
            typed.key = key
            return typed
        if isinstance(m, BaseChannel):
            chan = copy.copy(m)
            chan.key = key
            return chan
        if isinstance(m, type) and issubclass(m, BaseChannel):
            chan = m(base)  # type: ignore[call-arg]
            chan.key = key
            return chan
    return None


@dataclasses.dataclass(slots=True)
class SchemaInfo:
    """What the builder needs to know about one schema."""

    schema: Any
    channels: dict[str, BaseChannel]
    kind: str  # "dict" | "dataclass" | "pydantic" | "root"
    #: keys the run fills in (``engine.managed``): no channels, a value per step
    managed: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(self.channels)

    def coerce(self, values: dict[str, Any]) -> Any:
        """The state object a node receives: a dict, an instance of the schema, or a root state's value."""
        if self.kind == "root":
            return values.get(ROOT)
        if self.kind == "dict":
            out = {k: values[k] for k in self.channels if k in values}
            return {**out, **managed_values(self.managed)} if self.managed else out
        present = {k: values[k] for k in self.channels if k in values}
        if self.managed:
            present.update(managed_values(self.managed))
        return self.schema(**present)

    def to_update(self, obj: Any) -> dict[str, Any] | None:
        """A node's return value of this schema's type, as a dict of writes."""
        if self.kind == "root":
            return {ROOT: obj}
        if isinstance(obj, dict):
            return obj
        return object_update(obj)


def _annotated_keys(cls: type) -> tuple[str, ...]:
    keys: list[str] = []
    for base in reversed(cls.__mro__):
        ann = base.__dict__.get("__annotations__")
        if isinstance(ann, dict):
            keys.extend(k for k in ann if k not in keys)
    return tuple(keys)


def object_update(obj: Any) -> dict[str, Any] | None:
    """An object a node returned as its update (any class with annotated keys: a dataclass, a Pydantic
    model, whatever its schema), as LangGraph reads it: each key the object has; of a Pydantic model,
    those not None, set, or whose default is not None. None for an object with no annotated keys."""
    keys = _annotated_keys(type(obj))
    if not keys:
        return None
    fields = getattr(type(obj), "model_fields", None)
    kept = getattr(obj, "model_fields_set", None) if isinstance(fields, dict) else None
    out = {}
    for k in keys:
        value = getattr(obj, k, MISSING)
        if value is MISSING:
            continue
        if kept is not None and value is None and k not in kept and getattr((fields or {}).get(k), "default", None) is None:
            continue
        out[k] = value
    return out


def read_schema(schema: Any) -> SchemaInfo:
    if _is_pydantic(schema):
        kind = "pydantic"
        hints = get_type_hints(schema, include_extras=True)
        hints = {k: v for k, v in hints.items() if k in schema.model_fields}
    elif dataclasses.is_dataclass(schema):
        kind = "dataclass"
        hints = get_type_hints(schema, include_extras=True)
        names = {f.name for f in dataclasses.fields(schema)}
        hints = {k: v for k, v in hints.items() if k in names}
    elif _is_typeddict(schema):
        kind = "dict"
        hints = get_type_hints(schema, include_extras=True)
    elif isinstance(schema, dict):
        kind, hints = "dict", dict(schema)
    elif _is_pydantic_v1(schema):  # as LangGraph's: its annotated keys, and nodes read the state as a dict
        hints = get_type_hints(schema, include_extras=True)
        kind, hints = "dict", {k: v for k, v in hints.items() if k != "__slots__"}  # BaseModel's own annotation
    elif schema is not None and not hasattr(schema, "__annotations__"):
        kind, hints = "root", {ROOT: schema}
    elif isinstance(schema, type) and _annotated_keys(schema):
        # as LangGraph: a plain class's annotations are its keys, its states dicts (never instances)
        kind = "dict"
        hints = get_type_hints(schema, include_extras=True)
    else:
        raise GraphDefinitionError(
            f"state schema must be a TypedDict, a dataclass, a Pydantic model or a type with no keys, not {schema!r}"
        )
    if kind == "dict" and list(hints) == [ROOT]:
        kind = "root"  # as LangGraph: a schema whose one key is __root__ holds the state's value itself
    channels: dict[str, BaseChannel] = {}
    managed: dict[str, Any] = {}
    for key, hint in hints.items():
        hint = _unwrap(hint)
        if typing.get_origin(hint) is typing.Annotated:
            base, *meta = typing.get_args(hint)
            if found := [m for m in meta if is_managed_value(m)]:
                managed[key] = found[-1]
                continue
            if (chan := _channel(base, meta, key)) is not None:
                channels[key] = chan
                continue
            if meta:
                _check_reducer(meta[-1])
            red = _reducer(tuple(meta))
            if red is not None:
                channels[key] = BinaryOperatorAggregate(_unwrap(base), red, key=key)  # NotRequired inside too: starts empty, as LangGraph's
                continue
            hint = base
        channels[key] = LastValue(hint, key=key)
    return SchemaInfo(schema=schema, channels=channels, kind=kind, managed=managed)


def is_schema(hint: Any) -> bool:
    """Whether ``hint`` is a class ``read_schema`` takes (and one with keys)."""
    if not isinstance(hint, type):
        return False
    if not (_is_pydantic(hint) or dataclasses.is_dataclass(hint) or _is_typeddict(hint)):
        return False
    try:
        return bool(get_type_hints(hint))
    except Exception:  # unresolvable forward references: not a schema we can read
        return False


def annotated_schema(fn: Any) -> Any:
    """The schema ``fn``'s first parameter is annotated with, or None.

    As LangGraph 1.2 infers a node's (or a router's) input schema: a node
    ``def n(state: Private)`` reads ``Private``'s keys, and those keys become
    channels of the graph (private state). Only functions and callable
    objects are looked at; an annotation that is not a TypedDict, dataclass
    or Pydantic model with keys (``dict``, a string, none) infers nothing.
    """
    target = fn if inspect.isfunction(fn) or inspect.ismethod(fn) else getattr(fn, "__call__", None)
    if not (inspect.isfunction(target) or inspect.ismethod(target)):
        return None
    try:
        params = list(inspect.signature(target).parameters)
        hints = get_type_hints(target)
    except Exception:  # as LangGraph: an annotation that does not resolve infers nothing
        return None
    if not params:
        return None
    hint = hints.get(params[0])
    return hint if is_schema(hint) else None


def json_schema(info: SchemaInfo, name: str) -> dict[str, Any]:
    """The JSON Schema of ``info``'s schema, as LangGraph's ``get_input_jsonschema`` makes it.

    A Pydantic model's own; a TypedDict's through pydantic's ``TypeAdapter``
    (titled after it); a root state's type as a root model named ``name``; a dataclass or a dict of keys as a model named ``name``
    of its keys (a reducer key typed as what it is written with), with their
    defaults. Needs pydantic.
    """
    import pydantic

    schema = info.schema
    if info.kind == "pydantic":
        return schema.model_json_schema()
    if _is_typeddict(schema):
        return pydantic.TypeAdapter(schema).json_schema()
    if info.kind == "root":  # the whole state is one value: its type, as a root model named ``name``
        inner = typing.get_args(schema)[0] if typing.get_origin(schema) is typing.Annotated else schema
        base: Any = pydantic.RootModel[inner]  # type: ignore[valid-type]
        root: Any = pydantic.create_model(name, __base__=base, root=(inner, None))
        return root.model_json_schema()  # type: ignore[no-any-return]
    hints = get_type_hints(schema, include_extras=True) if isinstance(schema, type) else dict(schema)
    fields = {}
    for key in info.channels:
        hint = _unwrap(hints.get(key, Any))
        if typing.get_origin(hint) is typing.Annotated:
            hint = typing.get_args(hint)[0]
        fields[key] = (hint, _default(schema, key, hint))
    return pydantic.create_model(name, **fields).model_json_schema()  # type: ignore[call-overload]


def _default(schema: Any, key: str, hint: Any) -> Any:
    if dataclasses.is_dataclass(schema):
        for f in dataclasses.fields(schema):
            if f.name == key and f.default is not dataclasses.MISSING:
                return f.default
            if f.name == key and f.default_factory is not dataclasses.MISSING:
                return f.default_factory()
    args = typing.get_args(hint)
    return None if type(None) in args else ...
