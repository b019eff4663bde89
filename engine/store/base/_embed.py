"""Embedding functions, as the store calls them.

The store only ever calls the two async methods of an ``Embeddings``:
``aembed_documents(texts)`` once per batch of puts (each distinct text once)
and ``aembed_query(text)`` once per distinct query. :func:`ensure_embeddings`
turns what ``IndexConfig["embed"]`` may hold into that: a LangChain
``Embeddings`` is used as it is (langchain-core is optional: without it,
:class:`Embeddings` is a small base class with the same four methods), a
plain function ``texts -> vectors`` (sync or async) is wrapped, and a
``"provider:model"`` string goes through LangChain's ``init_embeddings``
when the ``langchain`` package is installed.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from engine._langchain import Embeddings, init_embeddings

__all__ = ["AEmbeddingsFunc", "Embeddings", "EmbeddingsFunc", "ensure_embeddings"]

EmbeddingsFunc = Callable[[Sequence[str]], list[list[float]]]
AEmbeddingsFunc = Callable[[Sequence[str]], Awaitable[list[list[float]]]]


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


class _FunctionEmbeddings(Embeddings):
    """A plain embedding function as an ``Embeddings``.

    A sync function runs in a worker thread from the async methods (it is
    usually a blocking HTTP call); an async one is awaited, and the sync
    methods refuse it rather than block on it.
    """

    def __init__(self, fn: EmbeddingsFunc | AEmbeddingsFunc) -> None:
        self._fn = fn
        self._async = _is_async(fn)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if self._async:
            raise ValueError("this embedding function is async: call aembed_documents (the store does)")
        return list(self._fn(texts))  # type: ignore[arg-type]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        if self._async:
            return list(await self._fn(texts))  # type: ignore[misc]
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        return (await self.aembed_documents([text]))[0]


def ensure_embeddings(embed: Any) -> Embeddings:
    """``embed`` (an ``Embeddings``, a function, or a ``"provider:model"`` string) as an ``Embeddings``.

    Raises:
        ValueError: ``embed`` is None, or a string while ``langchain`` is not installed.
        TypeError: ``embed`` is none of those.
    """
    if embed is None:
        raise ValueError("the index config needs 'embed': an embedding function or a LangChain Embeddings")
    if isinstance(embed, str):
        try:
            return init_embeddings(embed)
        except ImportError:
            raise ValueError(
                f"embed={embed!r} names a provider, which needs the 'langchain' package "
                "(pip install langchain and the provider's package); or pass an embedding "
                "function or a LangChain Embeddings instead"
            ) from None
    if isinstance(embed, Embeddings):
        return embed
    if hasattr(embed, "aembed_documents") and hasattr(embed, "aembed_query"):
        return embed  # type: ignore[no-any-return]  # another Embeddings implementation, duck-typed
    if callable(embed):
        return _FunctionEmbeddings(embed)
    raise TypeError(f"embed must be an embedding function or an Embeddings, not {type(embed).__name__}")
