"""The store's data: items, the four operations, and the two configurations.

These mirror LangGraph 1.2's ``langgraph.store.base`` names and fields
exactly (a program that builds ``PutOp(...)`` or reads ``item.value`` runs
unchanged), so they are plain classes and NamedTuples, not dataclasses.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, NamedTuple, TypedDict, Union

from engine.errors import InvalidNamespaceError

__all__ = [
    "NOT_PROVIDED",
    "GetOp",
    "IndexConfig",
    "InvalidNamespaceError",
    "Item",
    "ListNamespacesOp",
    "MatchCondition",
    "NamespaceMatchType",
    "NamespacePath",
    "NotProvided",
    "Op",
    "PutOp",
    "Result",
    "SearchItem",
    "SearchOp",
    "TTLConfig",
    "validate_namespace",
    "validate_op_namespace",
    "validate_labels",
]


class NotProvided:
    """The type of :data:`NOT_PROVIDED`: "the caller passed nothing" (``None`` means "no TTL")."""

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_PROVIDED = NotProvided()


def _as_datetime(value: datetime | str) -> datetime:
    return datetime.fromisoformat(value) if isinstance(value, str) else value


class Item:
    """A stored value: a dict under ``(namespace, key)``, with its two timestamps.

    ``created_at`` is when the key was first written (kept by later puts),
    ``updated_at`` the last put; both are timezone-aware UTC. ISO strings are
    accepted for either, so an item that went through JSON can be rebuilt.
    """

    __slots__ = ("value", "key", "namespace", "created_at", "updated_at")

    def __init__(
        self,
        *,
        value: dict[str, Any],
        key: str,
        namespace: tuple[str, ...],
        created_at: datetime | str,
        updated_at: datetime | str,
    ) -> None:
        self.value = value
        self.key = key
        self.namespace = tuple(namespace)
        self.created_at = _as_datetime(created_at)
        self.updated_at = _as_datetime(updated_at)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Item):
            return False
        return (self.value, self.key, self.namespace, self.created_at, self.updated_at) == (
            other.value,
            other.key,
            other.namespace,
            other.created_at,
            other.updated_at,
        )

    def __hash__(self) -> int:
        return hash((self.namespace, self.key))

    def dict(self) -> dict[str, Any]:
        """The item as JSON-ready data (namespace as a list, timestamps as ISO strings)."""
        return {
            "namespace": list(self.namespace),
            "key": self.key,
            "value": self.value,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }

    def __repr__(self) -> str:
        # The same text as LangGraph's, so a program printing items prints the same.
        return f"Item({', '.join(f'{k}={v!r}' for k, v in self.dict().items())})"


class SearchItem(Item):
    """An item found by :meth:`BaseStore.search`, with its similarity ``score``.

    ``score`` is the cosine similarity of the best-matching embedded field to
    the query, or None when the search had no query (or the item no vector).
    """

    __slots__ = ("score",)

    def __init__(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        created_at: datetime | str,
        updated_at: datetime | str,
        score: float | None = None,
    ) -> None:
        super().__init__(value=value, key=key, namespace=namespace, created_at=created_at, updated_at=updated_at)
        self.score = score

    def dict(self) -> dict[str, Any]:
        out = super().dict()
        out["score"] = self.score
        return out


class GetOp(NamedTuple):
    """Read one item. ``refresh_ttl``: push its expiry back (when it has a TTL)."""

    namespace: tuple[str, ...]
    key: str
    refresh_ttl: bool = True


class SearchOp(NamedTuple):
    """Find items under ``namespace_prefix`` matching ``filter`` (and ranked by ``query``).

    ``filter`` compares whole values: ``{"k": v}`` (or ``{"k": {"$eq": v}}``)
    matches items whose ``value["k"] == v``; ``$ne``, ``$gt``, ``$gte``,
    ``$lt`` and ``$lte`` compare numbers with numbers and strings with
    strings. ``query`` ranks by similarity when the store has an embedding
    index, and is ignored otherwise (as in LangGraph).
    """

    namespace_prefix: tuple[str, ...]
    filter: dict[str, Any] | None = None
    limit: int = 10
    offset: int = 0
    query: str | None = None
    refresh_ttl: bool = True


NamespacePath = tuple[Union[str, Literal["*"]], ...]
"""A namespace pattern: labels, where ``"*"`` matches any one label."""

NamespaceMatchType = Literal["prefix", "suffix"]
"""How a :class:`MatchCondition` lines its path up with a namespace."""


class MatchCondition(NamedTuple):
    """Namespaces whose first (``"prefix"``) or last (``"suffix"``) labels match ``path``."""

    match_type: NamespaceMatchType
    path: NamespacePath


class ListNamespacesOp(NamedTuple):
    """List namespaces that hold items, sorted, truncated to ``max_depth`` labels and deduplicated."""

    match_conditions: tuple[MatchCondition, ...] | None = None
    max_depth: int | None = None
    limit: int = 100
    offset: int = 0


class PutOp(NamedTuple):
    """Store ``value`` under ``(namespace, key)``, or delete the item when ``value`` is None.

    ``index``: None embeds the store's configured fields, False nothing, a
    list those paths. ``ttl``: minutes until the item expires (None: never).
    """

    namespace: tuple[str, ...]
    key: str
    value: Mapping[str, Any] | None
    index: Literal[False] | list[str] | None = None  # type: ignore[assignment]  # LangGraph's field, beside tuple.index
    ttl: float | None = None


Op = Union[GetOp, SearchOp, PutOp, ListNamespacesOp]
Result = Union[Item, list[Item], list[SearchItem], list[tuple[str, ...]], None]


class TTLConfig(TypedDict, total=False):
    """How a store expires items (times in minutes).

    ``default_ttl``: the TTL of a put that names none (None: never expire).
    ``refresh_on_read``: whether reads push an item's expiry back by default
    (True). ``sweep_interval_minutes``: how often the background sweeper
    deletes expired items (started by ``start_ttl_sweeper``). ``omit_expired``:
    hide expired items from reads before a sweep deletes them (False: they
    stay visible until swept, as in LangGraph).
    """

    refresh_on_read: bool
    omit_expired: bool
    default_ttl: float | None
    sweep_interval_minutes: int | None


class IndexConfig(TypedDict, total=False):
    """Semantic search: ``embed`` turns texts into ``dims``-long vectors; ``fields`` picks the texts.

    ``embed`` is a function ``texts -> vectors`` (sync or async), or a
    LangChain ``Embeddings`` (or a ``"provider:model"`` string, with
    ``langchain`` installed). ``fields`` are paths into the value (``"text"``,
    ``"a.b"``, ``"items[*].text"``; default ``["$"]``: the whole value as JSON).
    """

    dims: int
    embed: Any
    fields: list[str] | None


def validate_labels(namespace: tuple[str, ...]) -> None:
    """Raise :class:`InvalidNamespaceError` unless every label is a non-empty string without ``.`` or NUL."""
    for label in namespace:
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {namespace}. Namespace labels"
                f" must be strings, but got {type(label).__name__}."
            )
        if "." in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {namespace}. Namespace labels cannot contain periods ('.')."
            )
        if "\x00" in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {namespace}. Namespace labels cannot contain NUL bytes ('\\x00')."
            )
        if not label:
            raise InvalidNamespaceError(f"Namespace labels cannot be empty strings. Got {label} in {namespace}")


def validate_namespace(namespace: tuple[str, ...]) -> None:
    """The rules for a namespace written to: :func:`validate_labels`, non-empty, not under ``"langgraph"``."""
    if not namespace:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    validate_labels(namespace)
    if namespace[0] == "langgraph":
        raise InvalidNamespaceError(f'Root label for namespace cannot be "langgraph". Got: {namespace}')


def validate_op_namespace(op: Op) -> None:
    """Check the namespace labels ``op`` carries (the checks the store methods make, for ops passed to ``batch``)."""
    if isinstance(op, PutOp):
        validate_namespace(op.namespace) if op.value is not None else validate_labels(op.namespace)
    elif isinstance(op, GetOp):
        validate_labels(op.namespace)
    elif isinstance(op, SearchOp):
        validate_labels(op.namespace_prefix)
    elif isinstance(op, ListNamespacesOp):
        for condition in op.match_conditions or ():
            validate_labels(condition.path)
