"""The PostgreSQL store's types at LangGraph's import path (``langgraph.store.postgres.base``).

``BasePostgresStore`` names the store class itself (LangGraph's sync and async stores share it
as a base; graphwire's async store is a subclass of its sync one). The index configuration
types are LangGraph's keys: this store ranks by cosine similarity, exactly, so
``ann_index_config`` and another ``distance_type`` are refused where a store is made.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

from engine.store.base import IndexConfig
from engine.store.postgres._store import PostgresStore

__all__ = ["ANNIndexConfig", "BasePostgresStore", "HNSWConfig", "IVFFlatConfig", "PoolConfig", "PostgresIndexConfig", "PostgresStore"]

BasePostgresStore = PostgresStore


class PoolConfig(TypedDict, total=False):
    """``from_conn_string(pool_config=)``: a psycopg pool's sizes and its connections' ``kwargs``."""

    min_size: int
    max_size: int | None
    kwargs: dict


class ANNIndexConfig(TypedDict, total=False):
    """LangGraph's approximate (pgvector) index settings (refused here: the ranking is exact)."""

    kind: Literal["hnsw", "ivfflat", "flat"]
    vector_type: Literal["vector", "halfvec"]


class HNSWConfig(ANNIndexConfig, total=False):
    """An HNSW index's settings (LangGraph's keys)."""

    m: int
    ef_construction: int


class IVFFlatConfig(ANNIndexConfig, total=False):
    """An IVFFlat index's settings (LangGraph's keys)."""

    nlist: int


class PostgresIndexConfig(IndexConfig, total=False):
    """:class:`~engine.store.base.IndexConfig` with LangGraph's PostgreSQL keys."""

    ann_index_config: ANNIndexConfig
    distance_type: Literal["l2", "inner_product", "cosine"]
