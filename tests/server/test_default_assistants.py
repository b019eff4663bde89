"""Each graph's default assistant, made at start as LangGraph's server makes it.

Its name is the graph's own (``compile(name=...)``; the served name for a graph
left with LangGraph's default), its description the configuration's; an
existing one whose name or description differs gets them at the next start
(a new version), as there, and keeps its config.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

from engine.checkpoint._assistants import MemoryAssistants
from engine.host import default_assistant_id
from server._assistant_rpcs import AssistantRpcs


def test_default_assistants_take_the_graphs_names_and_follow_them() -> None:
    async def main() -> None:
        store = MemoryAssistants()
        rpcs = AssistantRpcs(store, lambda: ["g", "h"], max_response_bytes=1 << 20)
        await rpcs.ensure_defaults({"g": ("Graph G", "answers questions")})
        g = await store.aget("", default_assistant_id("g"))
        h = await store.aget("", default_assistant_id("h"))
        assert g is not None and (g.name, g.description, g.version, g.metadata) == ("Graph G", "answers questions", 1, {"created_by": "system"})
        assert h is not None and (h.name, h.description, h.version) == ("h", None, 1)  # not named: the served name
        await store.aupdate("", g.assistant_id, {"config": {"configurable": {"k": 1}}}, datetime.now(timezone.utc))
        await rpcs.ensure_defaults({"g": ("Graph G2", None)})  # the author renamed it, the description went
        g = await store.aget("", default_assistant_id("g"))
        assert g is not None and (g.name, g.description, g.version, g.config) == ("Graph G2", None, 3, {"configurable": {"k": 1}})
        await rpcs.ensure_defaults({"g": ("Graph G2", None)})  # unchanged: no new version
        g = await store.aget("", default_assistant_id("g"))
        assert g is not None and g.version == 3

    asyncio.run(main())
