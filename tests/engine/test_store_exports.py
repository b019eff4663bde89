"""The store's import surface: what the import swap needs from ``langgraph.store.base`` and ``.memory``.

Names a graph author imports from LangGraph 1.2.22's modules must import
from ours; what is deliberately left out is listed here with the reason.
"""

from __future__ import annotations

import inspect

import engine.store.base as base
import engine.store.memory as memory

# Everything public that langgraph.store.base defines or re-exports on purpose (its __all__ and more).
LANGGRAPH_BASE = {
    "AEmbeddingsFunc", "BaseStore", "Embeddings", "EmbeddingsFunc", "GetOp", "IndexConfig", "InvalidNamespaceError",
    "Item", "ListNamespacesOp", "MatchCondition", "NOT_PROVIDED", "NamespaceMatchType", "NamespacePath",
    "NotProvided", "Op", "PutOp", "Result", "SearchItem", "SearchOp", "TTLConfig", "ensure_embeddings",
    "get_text_at_path", "tokenize_path", "validate_op_namespace",
}  # fmt: skip

LEFT_OUT = {
    # Submodules. ``batch`` holds AsyncBatchedBaseStore, LangGraph's way of batching calls made in one
    # event-loop tick for its async stores; ours batch per call and their sync face is derived from
    # the async one, so there is nothing to port. ``embed``'s names are all in engine.store.base.
    "langgraph.store.base.batch": "AsyncBatchedBaseStore is LangGraph's plumbing, not graph-author surface",
    "langgraph.store.base.embed": "its names (ensure_embeddings, EmbeddingsFunc, AEmbeddingsFunc) are in engine.store.base",
    # The SQL stores are ours, not ports: langgraph.store.sqlite / .postgres need sqlite-vec, orjson and
    # pgvector; engine.store.sqlite.SqliteStore and engine.store.postgres.PostgresStore take a path or DSN.
    "langgraph.store.sqlite": "engine.store.sqlite.SqliteStore (a path, not a connection + setup())",
    "langgraph.store.postgres": "engine.store.postgres.PostgresStore (a DSN and schema)",
}


def test_base_has_every_name_graph_authors_import() -> None:
    assert LANGGRAPH_BASE <= set(base.__all__)
    for name in base.__all__:
        assert getattr(base, name) is not None


def test_memory_store_and_signatures_match() -> None:
    assert memory.InMemoryStore.__mro__[1] is base.BaseStore
    assert list(inspect.signature(memory.InMemoryStore).parameters) == ["index", "ttl"]
    assert list(inspect.signature(base.BaseStore.put).parameters) == ["self", "namespace", "key", "value", "index", "ttl"]
    assert list(inspect.signature(base.BaseStore.search).parameters) == [
        "self", "namespace_prefix", "query", "filter", "limit", "offset", "refresh_ttl",
    ]  # fmt: skip
    assert list(inspect.signature(base.BaseStore.list_namespaces).parameters) == [
        "self", "prefix", "suffix", "max_depth", "limit", "offset",
    ]  # fmt: skip
    assert base.PutOp._fields == ("namespace", "key", "value", "index", "ttl")
    assert base.SearchOp._fields == ("namespace_prefix", "filter", "limit", "offset", "query", "refresh_ttl")
    assert base.GetOp._fields == ("namespace", "key", "refresh_ttl")
    assert base.ListNamespacesOp._fields == ("match_conditions", "max_depth", "limit", "offset")
    assert issubclass(base.InvalidNamespaceError, ValueError)


def test_left_out_is_explained() -> None:
    assert all(reason for reason in LEFT_OUT.values())
