"""A run's context over gRPC, end to end: a graph with ``context_schema`` and a store, served by ``graphwire serve``.

The ``user_memories`` graph (tests/graphs.py) takes the user from the run's
context (``UserContext``: ``user_id``, ``locale``), never from the state: a
chat server passes it per call (``context=``), and reads and edits that
user's memories through the store RPCs. A context that does not fit the
schema is INVALID_ARGUMENT naming the field, and the run does not start.
The TypeScript client does the same in clients/typescript/test/context.test.ts.
"""

from __future__ import annotations

from typing import Any

import pytest

from graphwire import InvalidArgument, RunOptions

from tests.graphs import memory_key

GRAPHS = {"user_memories": "tests.graphs:user_memories"}


def test_context_per_call_with_the_users_memories(start_server: Any) -> None:
    server = start_server(graphs=GRAPHS)
    with server.client() as client:
        client.store.put_item(("memories", "ada"), "profile", {"text": "is called Ada"})
        ada = client.invoke("user_memories", "t1", {"fact": "likes tea"}, context={"user_id": "ada"}, timeout=30)
        assert ada.reason == "END", ada.error
        assert ada.values["known"] == ["is called Ada", "likes tea"] and ada.values["greeting"] == "hello ada"
        assert "user_id" not in ada.values  # the context is not state

        # Same thread, another call, another context: each call's own.
        french = RunOptions(context={"user_id": "bob", "locale": "fr"})
        bob = client.invoke("user_memories", "t1", {"fact": "likes coffee"}, options=french, timeout=30)
        assert bob.values["known"] == ["likes coffee"] and bob.values["greeting"] == "bonjour bob"
        assert [i.key for i in client.store.search_items(("memories", "bob"))] == [memory_key("likes coffee")]
        assert client.store.get_item(("memories", "ada"), memory_key("likes tea")).value == {"text": "likes tea", "by": "node"}

        # Streams and resumes take it too.
        events = list(client.stream("user_memories", "t2", {}, context={"user_id": "ada", "locale": "no"}, timeout=30))
        assert events[-1].values["greeting"] == "hei ada"

        before = client.history("user_memories", "t1")
        for context, field in [
            ({"locale": "fr"}, "config.context_json.user_id"),
            ({"user_id": "ada", "mood": "happy"}, "config.context_json.mood"),
            ({"user_id": 42}, "config.context_json.user_id"),
            (["ada"], "config.context_json"),
        ]:
            with pytest.raises(InvalidArgument) as raised:
                client.invoke("user_memories", "t1", {"fact": "never stored"}, context=context, timeout=30)
            assert raised.value.message.startswith(field + ":"), raised.value.message
        # Nothing of the refused calls ran or was stored.
        assert len(client.history("user_memories", "t1")) == len(before)
        assert client.store.get_item(("memories", "ada"), memory_key("never stored")) is None
