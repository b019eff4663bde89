"""Types named in a state schema, allowlisted from the schema itself.

As LangGraph's strict serializer does, the classes a schema names (its
Pydantic models, dataclasses and Enums, nested at any depth: inside
``list[...]``, ``Optional``, ``dict[..., ...]``, ``Annotated``, or as fields
of TypedDicts, dataclasses and models it names) are registered with the
checkpointer's serializer at ``compile()``, so a graph author never
registers them by hand. LangChain's messages need no entry: the serializer
knows them already. Nor does a LangChain agent's structured response
(``create_agent(response_format=Model, checkpointer=...)``), whose state names
it by a type variable: the format the agent's nodes are bound to names it
(:func:`agent_response_schemas`).
"""

from __future__ import annotations

import dataclasses
import enum
import sys
import typing
from typing import Any, Iterable

__all__ = ["schema_types", "allow_schema_types", "agent_response_schemas"]


def _is_model(cls: type) -> bool:
    base = getattr(sys.modules.get("pydantic"), "BaseModel", None)
    return isinstance(base, type) and issubclass(cls, base)


def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception:  # an unresolvable forward reference: nothing to learn from it
        return dict(getattr(cls, "__annotations__", {}))


def schema_types(schemas: Iterable[Any]) -> list[type]:
    """The registrable classes ``schemas`` name, each once, in the order met."""
    found: dict[type, None] = {}
    seen: set[int] = set()

    def visit(t: Any) -> None:
        if id(t) in seen:
            return
        seen.add(id(t))
        for arg in typing.get_args(t):
            visit(arg)
        if not isinstance(t, type):
            return
        if t.__module__.startswith("langchain_core."):
            return  # known to the serializer already
        if issubclass(t, enum.Enum):
            found[t] = None
        elif _is_model(t):
            found[t] = None
            for field in t.model_fields.values():  # type: ignore[attr-defined]  # a pydantic model (_is_model)
                visit(field.annotation)
        elif dataclasses.is_dataclass(t):
            found[t] = None
            for hint in _hints(t).values():
                visit(hint)
        elif typing.is_typeddict(t) or (isinstance(t, type) and issubclass(t, dict) and "__total__" in vars(t)):
            for hint in _hints(t).values():
                visit(hint)

    for s in schemas:
        if s is not None:
            visit(s)
    return list(found)


def allow_schema_types(checkpointer: Any, schemas: Iterable[Any]) -> None:
    """Register the classes ``schemas`` name with ``checkpointer``'s serializer."""
    allow = getattr(getattr(checkpointer, "serde", None), "allow", None)
    if allow is not None:  # a saver of another kind keeps its own rules
        allow(*schema_types(schemas))


#: Where LangChain 1.x keeps its structured output strategies (ToolStrategy, ProviderStrategy, AutoStrategy).
_STRATEGIES = "langchain.agents.structured_output"


def agent_response_schemas(actions: Iterable[Any]) -> list[Any]:
    """The schemas of a LangChain agent's structured response, read off its nodes: ``create_agent``
    binds its model node's functions (a ``RunnableCallable``'s ``func`` and ``afunc``) to the response
    format it was given, a strategy of :data:`_STRATEGIES` with a ``schema`` (and ``schema_specs``).
    Nothing for any other node; a LangChain that keeps the format elsewhere leaves the class to be
    registered by hand, as before (the write that stores it says so)."""
    out: list[Any] = []
    for action in actions:
        for fn in (getattr(action, "func", None), getattr(action, "afunc", None)):
            for cell in getattr(fn, "__closure__", None) or ():
                try:
                    value = cell.cell_contents
                except ValueError:  # a cell not filled in yet
                    continue
                if type(value).__module__ == _STRATEGIES:
                    out.append(getattr(value, "schema", None))
                    out += [getattr(spec, "schema", None) for spec in getattr(value, "schema_specs", None) or ()]
    return out
