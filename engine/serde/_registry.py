"""Classes a graph registers with its serializer: Enums, dataclasses, Pydantic models.

A registered class is stored under its name (``module:qualname``) and found
again, on reading, in the serializer's own registry: reading never imports
the module a name points to. So a checkpoint naming ``os:system`` decodes to
an error, not to a call.

Each kind has a *dump* (value -> plain data, which the serializer then stores
recursively, so a registered class may hold other allowed values) and a
*load* (plain data -> value) that only calls the registered class itself.
"""

from __future__ import annotations

import dataclasses
import enum
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Entry", "make_entry", "type_name"]

Kind = Literal["enum", "dataclass", "pydantic"]


def type_name(cls: type) -> str:
    """The name a registered class is stored under."""
    return f"{cls.__module__}:{cls.__qualname__}"


@dataclass(frozen=True, slots=True)
class Entry:
    """One registered class and how to take it apart and put it back together."""

    name: str
    cls: type
    kind: Kind
    dump: Callable[[Any], Any]
    load: Callable[[Any], Any]


def make_entry(cls: Any) -> Entry:
    """Build the registry entry of ``cls``.

    Raises:
        TypeError: ``cls`` is not an Enum class, a dataclass or a Pydantic model.
    """
    if not isinstance(cls, type):
        raise TypeError(f"can only register classes, got {cls!r}")
    name = type_name(cls)
    if issubclass(cls, enum.Enum):
        return Entry(name, cls, "enum", _enum_dump, _enum_loader(cls))
    if _is_pydantic_model(cls):
        return Entry(name, cls, "pydantic", _pydantic_dump, _pydantic_loader(cls))
    if dataclasses.is_dataclass(cls):
        return Entry(name, cls, "dataclass", _dataclass_dumper(cls), _dataclass_loader(cls))
    raise TypeError(
        f"cannot register {cls.__qualname__}: only Enum classes, dataclasses and "
        "Pydantic models can be registered (store other objects as plain data)"
    )


def _is_pydantic_model(cls: type) -> bool:
    # Pydantic is optional: if it was never imported, no class can be a model,
    # and we avoid paying its import time.
    pydantic = sys.modules.get("pydantic")
    base = getattr(pydantic, "BaseModel", None)
    return isinstance(base, type) and issubclass(cls, base)


# -- enums: stored by member name (survives value changes; aliases resolve) -------
def _enum_dump(member: enum.Enum) -> str:
    return member.name


def _enum_loader(cls: type[enum.Enum]) -> Callable[[Any], Any]:
    members = cls.__members__

    def load(data: Any) -> Any:
        if type(data) is not str or data not in members:
            raise ValueError(f"{cls.__qualname__} has no member {data!r}")
        return members[data]

    return load


# -- dataclasses: a dict of every field ------------------------------------------
def _dataclass_dumper(cls: type) -> Callable[[Any], Any]:
    names = tuple(f.name for f in dataclasses.fields(cls))

    def dump(obj: Any) -> dict[str, Any]:
        return {n: getattr(obj, n) for n in names}

    return dump


def _dataclass_loader(cls: type) -> Callable[[Any], Any]:
    fields = dataclasses.fields(cls)
    init_names = frozenset(f.name for f in fields if f.init)
    other_names = frozenset(f.name for f in fields if not f.init)

    def load(data: Any) -> Any:
        if type(data) is not dict or any(type(k) is not str for k in data):
            raise ValueError("expected a map of field names")
        unknown = data.keys() - init_names - other_names
        if unknown:
            raise ValueError(f"{cls.__qualname__} has no field(s) {sorted(unknown)!r}")
        # __init__ runs (so __post_init__ recomputes derived state); fields
        # outside __init__ are then set to what was stored, which is the truth.
        obj = cls(**{k: v for k, v in data.items() if k in init_names})
        for k in other_names & data.keys():
            object.__setattr__(obj, k, data[k])
        return obj

    return load


# -- pydantic models: dumped by alias, rebuilt by validation -----------------------
def _pydantic_dump(obj: Any) -> Any:
    # Python mode keeps datetimes, sets, enums... as objects (stored exactly);
    # nested models become dicts that validation turns back into models.
    return obj.model_dump(mode="python", by_alias=True, round_trip=True)


def _pydantic_loader(cls: Any) -> Callable[[Any], Any]:
    def load(data: Any) -> Any:
        if type(data) is not dict:  # (a key that is not a string fails the call below)
            raise ValueError("expected a map of field values")
        # Calling the class validates as model_validate does; for a model with
        # its own __init__ (LangChain's messages) model_validate also runs the
        # validator around that __init__, so this is ~10% cheaper.
        return cls(**data)

    return load
