"""Semantic search with a user-supplied embedding function: every store ranks exactly, by cosine."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from engine.store.base import BaseStore, PutOp, SearchOp


class Embedder:
    """A deterministic embedding: letter counts of a, b, c; records every call."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [[float(t.count("a")), float(t.count("b")), float(t.count("c"))] for t in texts]


@pytest.fixture
def indexed(new_store: Callable[..., BaseStore]) -> Callable[..., BaseStore]:
    return new_store


def test_query_ranks_by_cosine_similarity(indexed: Callable[..., BaseStore]) -> None:
    embed = Embedder()
    store = indexed(index={"embed": embed, "dims": 3, "fields": ["text"]})
    store.put(("d",), "a", {"text": "aaa"})
    store.put(("d",), "b", {"text": "bbb"})
    store.put(("d",), "ab", {"text": "ab"})
    store.put(("d",), "none", {"other": "x"})  # nothing to embed: ranks last, score None
    store.put(("d",), "off", {"text": "aaa"}, index=False)
    found = store.search(("d",), query="a", limit=10)
    assert [i.key for i in found] == ["a", "ab", "b", "none", "off"]
    assert found[0].score == pytest.approx(1.0) and found[1].score == pytest.approx(0.7071067811865475)
    assert found[2].score == pytest.approx(0.0) and found[3].score is None and found[4].score is None
    assert [i.key for i in store.search(("d",), query="a", limit=2, offset=1)] == ["ab", "b"]
    assert [i.key for i in store.search(("d",), query="b", filter={"text": "aaa"})] == ["a", "off"]
    assert embed.calls[-1] == ["b"]


def test_each_distinct_text_is_embedded_once_per_batch(indexed: Callable[..., BaseStore]) -> None:
    embed = Embedder()
    store = indexed(index={"embed": embed, "dims": 3, "fields": ["text", "tags[*]"]})
    store.batch([
        PutOp(("d",), "x", {"text": "abc", "tags": ["aa", "abc"]}),
        PutOp(("d",), "y", {"text": "aa"}),
        SearchOp(("d",), query="cc"),
        SearchOp(("e",), query="cc"),
    ])  # fmt: skip
    assert embed.calls == [["cc"], ["abc", "aa"]]  # queries first, then the puts' texts, each once
    found = store.search(("d",), query="c")
    assert [i.key for i in found] == ["x", "y"]


def test_index_paths_per_put_and_the_whole_value(indexed: Callable[..., BaseStore]) -> None:
    embed = Embedder()
    store = indexed(index={"embed": embed, "dims": 3})  # fields default to "$": the whole value as JSON
    store.put(("d",), "k", {"z": "bb", "a": 1})
    assert embed.calls[-1] == ['{"a": 1, "z": "bb"}']
    store.put(("d",), "j", {"title": "ccc", "body": "aaa"}, index=["title"])
    assert embed.calls[-1] == ["ccc"]
    assert [i.key for i in store.search(("d",), query="c")] == ["j", "k"]


def test_a_replaced_item_loses_its_old_vectors(indexed: Callable[..., BaseStore]) -> None:
    store = indexed(index={"embed": Embedder(), "dims": 3, "fields": ["text"]})
    store.put(("d",), "k", {"text": "aaa"})
    store.put(("d",), "j", {"text": "ab"})
    store.put(("d",), "k", {"text": "bbb"})
    assert [i.key for i in store.search(("d",), query="a")] == ["j", "k"]
    store.put(("d",), "j", {"text": "ab"}, index=False)
    assert [(i.key, i.score) for i in store.search(("d",), query="a")][1] == ("j", None)


def test_an_async_embedding_function(indexed: Callable[..., BaseStore]) -> None:
    seen: list[list[str]] = []

    async def embed(texts: list[str]) -> list[list[float]]:
        await asyncio.sleep(0)
        seen.append(list(texts))
        return [[float(len(t)), 1.0] for t in texts]

    store = indexed(index={"embed": embed, "dims": 2, "fields": ["t"]})
    store.put(("d",), "k", {"t": "xx"})
    assert store.search(("d",), query="x")[0].key == "k"
    assert seen == [["xx"], ["x"]]


def test_a_failing_embedding_stores_nothing(indexed: Callable[..., BaseStore]) -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        raise RuntimeError("embedding service down")

    store = indexed(index={"embed": embed, "dims": 2, "fields": ["t"]})
    with pytest.raises(RuntimeError, match="down"):
        store.put(("d",), "k", {"t": "x"})
    assert store.get(("d",), "k") is None


@pytest.mark.parametrize(
    ("option", "message"),
    [({"distance_type": "l2"}, "cosine similarity only"), ({"ann_index_config": {"kind": "hnsw"}}, "no approximate")],
)
def test_postgres_refuses_the_pgvector_options_it_cannot_honour(option: dict[str, Any], message: str) -> None:
    from engine.store.postgres import PostgresStore

    with pytest.raises(NotImplementedError, match=message):
        PostgresStore("postgresql://root@127.0.0.1:5432/test", index={"embed": Embedder(), "dims": 3, **option})  # type: ignore[typeddict-unknown-key]
