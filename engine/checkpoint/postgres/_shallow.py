"""LangGraph's deprecated shallow savers (``langgraph.checkpoint.postgres.shallow`` re-exports them): a thread keeps
only its newest version (in each namespace), with that version's pending writes.

A put stores the new version as :class:`PostgresSaver` does, then prunes the thread as
``aprune(strategy="keep_latest")`` does: the older versions go, with their pending writes and the
stored values only they used (a kept version's values may be deltas on older rows; those stay).
So ``get_state_history`` shows one version and a fork has nothing older to start from, as on
LangGraph. Both classes warn on use, as LangGraph's do: ``PostgresSaver`` with
``durability="exit"`` (one version saved per call) is what LangGraph points to instead.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from engine.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata
from engine.checkpoint.postgres._saver import PostgresSaver

__all__ = ["KeepsNewest", "ShallowPostgresSaver"]


def _warn(cls: type) -> None:
    warnings.warn(
        f"{cls.__name__} is deprecated (as in LangGraph since langgraph-checkpoint-postgres 2.0.20): "
        "use PostgresSaver, and durability='exit' to save one version per call",
        DeprecationWarning,
        stacklevel=3,
    )


class KeepsNewest:
    """The shallow put (a mixin over :class:`PostgresSaver` or its async opening)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _warn(type(self))
        super().__init__(*args, **kwargs)

    async def aput(self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions) -> dict[str, Any]:
        return (await self._newest([await super().aput(config, checkpoint, metadata, new_versions)]))[0]  # type: ignore[misc]

    async def aput_many(self, puts: Sequence[Any], *, writes: Sequence[tuple[Any, ...]] = ()) -> list[dict[str, Any]]:
        return await self._newest(await super().aput_many(puts, writes=writes))  # type: ignore[misc]

    async def _newest(self, saved: list[dict[str, Any]]) -> list[dict[str, Any]]:
        await self.aprune(sorted({c["configurable"]["thread_id"] for c in saved}), strategy="keep_latest")  # type: ignore[attr-defined]
        return saved


class ShallowPostgresSaver(KeepsNewest, PostgresSaver):
    """A :class:`PostgresSaver` that keeps each thread's newest version only (deprecated)."""
