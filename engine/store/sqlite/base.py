"""The SQLite store at LangGraph's import path (``langgraph.store.sqlite.base``); ``BaseSqliteStore``
names the store class itself (graphwire's async store is a subclass of its sync one)."""

from __future__ import annotations

from engine.store.base import IndexConfig
from engine.store.sqlite._store import SqliteStore

__all__ = ["BaseSqliteStore", "SqliteIndexConfig", "SqliteStore"]

BaseSqliteStore = SqliteStore


class SqliteIndexConfig(IndexConfig, total=False):
    """:class:`~engine.store.base.IndexConfig` as LangGraph's SQLite store names it."""
