"""LangGraph's serializer faces (``langgraph.checkpoint.serde``) over the engine's :mod:`engine.serde`.

A program that builds a ``JsonPlusSerializer`` or an ``EncryptedSerializer``
and hands it to a saver gets the engine's serializer (msgpack with an
allowlist, then an optional codec): the same values stored, nothing ever
imported or called by name from stored bytes, and never pickle.
"""
