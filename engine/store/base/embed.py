"""Embeddings for a store's index at LangGraph's import path (``langgraph.store.base.embed``)."""

from __future__ import annotations

from engine.store.base._embed import AEmbeddingsFunc, EmbeddingsFunc, ensure_embeddings
from engine.store.base._paths import get_text_at_path, tokenize_path

__all__ = ["AEmbeddingsFunc", "EmbeddingsFunc", "ensure_embeddings", "get_text_at_path", "tokenize_path"]
