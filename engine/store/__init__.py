"""Long-term memory shared across threads: LangGraph's Store.

``engine.store.base`` holds the contract and its types and
``engine.store.memory`` the in-memory store, at LangGraph's import paths;
``engine.store.sqlite.SqliteStore`` and ``engine.store.postgres.PostgresStore``
keep items in the checkpointer's own database (imported from their
packages, so that importing the engine does not import psycopg). Every store
passes the spec suite in ``tests/store``. :class:`ScopedStore` is a store
seen through a scope (a root label no caller can write): how the server
keeps tenants' namespaces apart.
"""

from __future__ import annotations

from engine.store.base import BaseStore, Item, SearchItem
from engine.store._logic import MAX_TTL_MINUTES, check_ops
from engine.store._scoped import ScopedStore, StoreView, is_scoped
from engine.store.memory import InMemoryStore

__all__ = ["MAX_TTL_MINUTES", "BaseStore", "InMemoryStore", "Item", "ScopedStore", "SearchItem", "StoreView", "check_ops", "is_scoped"]
