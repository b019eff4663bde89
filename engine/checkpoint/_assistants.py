"""Assistants, kept in the checkpointer's database: named, versioned configurations of a graph.

An assistant (LangGraph's Agent Server has them; graphwire keeps them the same
way) is a registered graph with defaults for the runs that name it: its
``config`` (``configurable`` and ``recursion_limit``) and ``context``, plus a
name, a description and metadata of its own. Every change is a new version
(``version`` 1, 2, ...); one version is current, and :meth:`AssistantStore.aset_version`
makes an older one current again. The engine never reads them: they are the
host's records, stored beside the threads so that every replica sees them.

Records belong to a tenant (``""``: no tenants); a tenant reads its own and
the shared ones (tenant ``""``, such as each graph's default assistant,
:func:`default_assistant_id`), and changes only its own.

One contract, :class:`AssistantStore`, three stores: :class:`MemoryAssistants`
here, SQLite (:mod:`engine.checkpoint.sqlite._assistants`) and PostgreSQL
(:mod:`engine.checkpoint.postgres._assistants`). A SQL saver carries its own
(``saver.assistants``); :func:`assistants_of` is how a host gets it (one in
memory for any other saver).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Mapping, Protocol, Sequence, runtime_checkable

__all__ = [
    "AssistantRecord", "AssistantStore", "Conflict", "MemoryAssistants", "SORT_KEYS", "Search", "assistants_of", "contains",
    "default_assistant_id",
]  # fmt: skip

#: What a search may sort by.
SORT_KEYS = ("assistant_id", "graph", "name", "created_at", "updated_at")


#: The namespace of the default assistants' UUIDs (LangGraph's Agent Server's and Aegra's).
_DEFAULTS = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")


@functools.lru_cache(maxsize=1024)  # asked at every run over LangGraph's HTTP API (a UUID 5: ~3.5 µs)
def default_assistant_id(graph: str) -> str:
    """The id of ``graph``'s default assistant: the same on every server, and the one LangGraph's
    Agent Server gives it (a UUID 5 of the graph's name), so a client that names it works unchanged."""
    return str(uuid.uuid5(_DEFAULTS, graph))


@dataclass(slots=True)
class AssistantRecord:
    """One version of an assistant (a search returns each assistant's current one).

    ``config``: a JSON object, LangGraph's shape (``{"configurable": {...}, "recursion_limit": N}``);
    ``context`` a JSON object; ``metadata`` a JSON object. ``version``: this record's version;
    ``current``: the assistant's current version when the record was read.
    """

    assistant_id: str
    graph: str
    created_at: datetime
    updated_at: datetime
    tenant: str = ""
    name: str = "Untitled"
    description: str | None = None
    config: dict[str, Any] = field(default_factory=dict)
    context: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    version: int = 1


@dataclass(frozen=True, slots=True)
class Search:
    """A search's filter, order and page: every field set must match (``metadata``: contained,
    as PostgreSQL's ``@>``; ``name``: a case-insensitive substring)."""

    tenant: str = ""
    graph: str | None = None
    name: str | None = None
    metadata: Mapping[str, Any] | None = None
    sort_by: str = "created_at"
    descending: bool = True
    limit: int | None = 10
    offset: int = 0

    def __post_init__(self) -> None:
        if self.sort_by not in SORT_KEYS:
            raise ValueError(f"sort_by {self.sort_by!r}: one of {', '.join(SORT_KEYS)}")
        if (self.limit is not None and self.limit < 0) or self.offset < 0:
            raise ValueError("limit and offset: at least 0")


class Conflict(Exception):
    """An assistant with that id exists (create with ``if_exists="raise"``)."""


def contains(doc: Any, part: Any) -> bool:
    """True when ``part`` is contained in ``doc`` as PostgreSQL's jsonb ``@>`` has it: an object
    contains each key of ``part`` with a value that contains ``part``'s; an array contains every
    element of ``part``'s (each contained in one of its own); other values are equal."""
    if isinstance(part, dict):
        return isinstance(doc, dict) and all(k in doc and contains(doc[k], v) for k, v in part.items())
    if isinstance(part, list):
        return isinstance(doc, list) and all(any(contains(d, p) for d in doc) for p in part)
    if isinstance(doc, (dict, list)):
        return False
    if isinstance(doc, bool) or isinstance(part, bool):
        return doc is part
    if isinstance(doc, (int, float)) and isinstance(part, (int, float)):
        return doc == part  # JSON has one number type
    return type(doc) is type(part) and doc == part


@runtime_checkable
class AssistantStore(Protocol):
    """Where assistants are kept. Every method is one transaction.

    Reads name the reader's tenant and see its own records and the shared ones (tenant ``""``);
    writes change only the tenant's own (a shared one another tenant names is not found).
    """

    async def acreate(self, record: AssistantRecord, *, if_exists: Literal["raise", "do_nothing"] = "raise") -> AssistantRecord:
        """Store ``record`` as version 1 (current); an existing id raises :class:`Conflict`
        or, with ``do_nothing``, returns the existing current version."""
        ...

    async def aget(self, tenant: str, assistant_id: str) -> AssistantRecord | None:
        """The current version (the tenant's own, else the shared one), or None."""
        ...

    async def aupdate(self, tenant: str, assistant_id: str, changes: Mapping[str, Any], now: datetime) -> AssistantRecord | None:
        """A new version, current from now: the current one with ``changes`` (any of graph, name,
        description, config, context; ``metadata`` merged key by key into the current's); None if not found."""
        ...

    async def aset_version(self, tenant: str, assistant_id: str, version: int, now: datetime) -> AssistantRecord | None:
        """Make ``version`` current; None if the assistant is not found; KeyError if it has no such version."""
        ...

    async def aversions(
        self, tenant: str, assistant_id: str, *, metadata: Mapping[str, Any] | None = None, limit: int | None = 10, offset: int = 0
    ) -> list[AssistantRecord]:
        """The assistant's versions, newest first, whose metadata contains ``metadata``."""
        ...

    async def asearch(self, search: Search) -> list[AssistantRecord]:
        """Current versions of the assistants that match, in the search's order and page."""
        ...

    async def acount(self, search: Search) -> int:
        """How many assistants match (the search's order and page aside)."""
        ...

    async def adelete(self, tenant: str, assistant_id: str) -> bool:
        """Delete the tenant's own assistant and every version of it; False if there was none."""
        ...


def merged(current: AssistantRecord, changes: Mapping[str, Any], version: int, now: datetime) -> AssistantRecord:
    """The new version :meth:`AssistantStore.aupdate` stores."""
    unknown = set(changes) - {"graph", "name", "description", "config", "context", "metadata"}
    if unknown:
        raise ValueError(f"not a field of an assistant: {sorted(unknown)}")
    out = dataclasses.replace(current, version=version, updated_at=now, **{k: v for k, v in changes.items() if k != "metadata"})
    if "metadata" in changes:
        out.metadata = {**current.metadata, **changes["metadata"]}
    return out


def sort_key(record: AssistantRecord, by: str) -> Any:
    value = getattr(record, by)
    return (value, record.assistant_id)


def matches(record: AssistantRecord, search: Search) -> bool:
    return (
        (search.graph is None or record.graph == search.graph)
        and (search.name is None or search.name.lower() in record.name.lower())
        and (not search.metadata or contains(record.metadata, dict(search.metadata)))
    )


def page(records: Sequence[AssistantRecord], search: Search) -> list[AssistantRecord]:
    """``records`` (matching ``search``) in its order, its page of them."""
    ordered = sorted(records, key=lambda r: sort_key(r, search.sort_by), reverse=search.descending)
    end = None if search.limit is None else search.offset + search.limit
    return ordered[search.offset : end]


def visible(tenant: str) -> tuple[str, ...]:
    """The tenants whose records ``tenant`` reads: its own, then the shared ones."""
    return (tenant,) if tenant == "" else (tenant, "")


class MemoryAssistants:
    """Assistants in this process's memory (a saver without tables of its own)."""

    def __init__(self) -> None:
        self._versions: dict[tuple[str, str], list[AssistantRecord]] = {}  # (tenant, id) -> versions, oldest first
        self._current: dict[tuple[str, str], int] = {}
        self._lock = asyncio.Lock()

    def _read(self, tenant: str, assistant_id: str) -> tuple[tuple[str, str], AssistantRecord] | None:
        for owner in visible(tenant):
            key = (owner, assistant_id)
            if key in self._current:
                return key, self._versions[key][self._current[key] - 1]
        return None

    async def acreate(self, record: AssistantRecord, *, if_exists: Literal["raise", "do_nothing"] = "raise") -> AssistantRecord:
        async with self._lock:
            key = (record.tenant, record.assistant_id)
            if key in self._current:
                if if_exists == "raise":
                    raise Conflict(record.assistant_id)
                return copy.deepcopy(self._versions[key][self._current[key] - 1])
            self._versions[key] = [copy.deepcopy(dataclasses.replace(record, version=1))]
            self._current[key] = 1
            return copy.deepcopy(self._versions[key][0])

    async def aget(self, tenant: str, assistant_id: str) -> AssistantRecord | None:
        found = self._read(tenant, assistant_id)
        return None if found is None else copy.deepcopy(found[1])

    async def aupdate(self, tenant: str, assistant_id: str, changes: Mapping[str, Any], now: datetime) -> AssistantRecord | None:
        async with self._lock:
            key = (tenant, assistant_id)
            if key not in self._current:
                return None
            versions = self._versions[key]
            new = merged(versions[self._current[key] - 1], copy.deepcopy(dict(changes)), len(versions) + 1, now)
            versions.append(new)
            self._current[key] = new.version
            return copy.deepcopy(new)

    async def aset_version(self, tenant: str, assistant_id: str, version: int, now: datetime) -> AssistantRecord | None:
        async with self._lock:
            key = (tenant, assistant_id)
            if key not in self._current:
                return None
            if not 1 <= version <= len(self._versions[key]):
                raise KeyError(version)
            self._current[key] = version
            chosen = self._versions[key][version - 1]
            chosen.updated_at = now
            return copy.deepcopy(chosen)

    async def aversions(
        self, tenant: str, assistant_id: str, *, metadata: Mapping[str, Any] | None = None, limit: int | None = 10, offset: int = 0
    ) -> list[AssistantRecord]:
        found = self._read(tenant, assistant_id)
        if found is None:
            return []
        kept = [r for r in reversed(self._versions[found[0]]) if not metadata or contains(r.metadata, dict(metadata))]
        end = None if limit is None else offset + limit
        return copy.deepcopy(kept[offset:end])

    def _matching(self, search: Search) -> list[AssistantRecord]:
        owners = visible(search.tenant)
        return [
            self._versions[key][v - 1] for key, v in self._current.items()
            if key[0] in owners and matches(self._versions[key][v - 1], search)
        ]  # fmt: skip

    async def asearch(self, search: Search) -> list[AssistantRecord]:
        return copy.deepcopy(page(self._matching(search), search))

    async def acount(self, search: Search) -> int:
        return len(self._matching(search))

    async def adelete(self, tenant: str, assistant_id: str) -> bool:
        async with self._lock:
            key = (tenant, assistant_id)
            self._versions.pop(key, None)
            return self._current.pop(key, None) is not None


def assistants_of(saver: Any) -> AssistantStore:
    """The assistants of ``saver``'s database (``saver.assistants``: the SQL savers' tables), else a
    new store in this process's memory (the in-memory saver, LangGraph's own savers)."""
    found = getattr(saver, "assistants", None)
    if isinstance(found, AssistantStore):
        return found
    return MemoryAssistants()
