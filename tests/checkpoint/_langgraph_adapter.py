"""A graphwire saver seen through LangGraph's checkpointer interface, for its conformance suite.

``langgraph-checkpoint-conformance`` drives a ``langgraph.checkpoint.base.
BaseCheckpointSaver``; :class:`LangGraphFace` is one, and forwards each call
to one of our savers, translating only the shapes that differ: LangGraph's
``CheckpointTuple`` is a NamedTuple, and its ``aprune(thread_ids, strategy=)``
prunes several threads by strategy where ours takes a thread and rules. It
implements what our savers implement (put, put_writes, get_tuple, list,
delete_thread, prune), so the suite detects exactly those capabilities.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver as LangGraphSaver
from langgraph.checkpoint.base import CheckpointTuple as LangGraphTuple

from engine.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

__all__ = ["LangGraphFace"]


def _tuple(t: CheckpointTuple | None) -> LangGraphTuple | None:
    if t is None:
        return None
    return LangGraphTuple(t.config, t.checkpoint, t.metadata, t.parent_config, [tuple(w) for w in t.pending_writes])  # type: ignore[arg-type]


class LangGraphFace(LangGraphSaver):
    """Our ``saver``, as LangGraph's conformance suite calls a checkpointer."""

    def __init__(self, saver: BaseCheckpointSaver) -> None:
        super().__init__()
        self.saver = saver

    async def aget_tuple(self, config: Mapping[str, Any]) -> LangGraphTuple | None:  # type: ignore[override]
        return _tuple(await self.saver.aget_tuple(config))

    async def alist(  # type: ignore[override]
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: dict[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[LangGraphTuple]:
        async for t in self.saver.alist(config, filter=filter, before=before, limit=limit):
            yield _tuple(t)  # type: ignore[misc]

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        return await self.saver.aput(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: Any, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        await self.saver.aput_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await self.saver.adelete_thread(thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """``keep_latest`` is our prune keeping the newest version (of each namespace).

        Our prune never deletes a thread's newest version (``adelete_thread``
        does that), so LangGraph's ``strategy="delete"`` has no counterpart:
        it raises, and the suite's one test of it is skipped.
        """
        if strategy != "keep_latest":
            raise NotImplementedError(f"prune strategy {strategy!r}: a graphwire prune always keeps the newest version")
        for thread_id in thread_ids:
            await self.saver.aprune(thread_id, keep_last=1)

    def get_next_version(self, current: Any, channel: Any = None) -> Any:
        return self.saver.get_next_version(current, channel)
