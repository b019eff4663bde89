"""The store contract and its types, at LangGraph's import path (``langgraph.store.base``).

:class:`BaseStore` is the contract (async at heart, sync face derived);
:class:`Item` and :class:`SearchItem` what reads return; :class:`GetOp`,
:class:`PutOp`, :class:`SearchOp` and :class:`ListNamespacesOp` what
``batch`` takes; :class:`IndexConfig` and :class:`TTLConfig` how a store is
configured.
"""

from __future__ import annotations

from engine.store.base._embed import AEmbeddingsFunc, Embeddings, EmbeddingsFunc, ensure_embeddings
from engine.store.base._paths import get_text_at_path, tokenize_path
from engine.store.base._store import BaseStore
from engine.store.base._types import (
    NOT_PROVIDED,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    NamespaceMatchType,
    NamespacePath,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    validate_op_namespace,
)

__all__ = [
    "NOT_PROVIDED",
    "AEmbeddingsFunc",
    "BaseStore",
    "Embeddings",
    "EmbeddingsFunc",
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
    "ensure_embeddings",
    "get_text_at_path",
    "tokenize_path",
    "validate_op_namespace",
]
