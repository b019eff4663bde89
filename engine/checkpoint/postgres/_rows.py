"""What the PostgreSQL saver's write statements take: rows as parameter arrays.

A put's blob rows and a task's pending writes go to PostgreSQL as arrays
(one per column, ``unnest``-ed by the statement). A row may extend another
row of the thread (a delta's base, a ref: see :mod:`engine.checkpoint._chain`);
when the statement fails because one of those is gone (a foreign key), the
saver sends the same rows again written whole: ``full=True``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.checkpoint._chain import BlobRow
from engine.checkpoint._delta import BlobPlan
from engine.checkpoint._helpers import parse_write_config
from engine.checkpoint._writes import WriteRow
from engine.checkpoint.postgres._leases import require_storable
from engine.serde import Serializer

__all__ = ["TaskWrites", "put_params"]


def put_params(params: dict[str, Any], plan: BlobPlan, *, full: bool = False) -> dict[str, Any]:
    """PUT_CHECKPOINT's parameters: a put's own, and its blob rows as arrays (``full``: no deltas)."""
    rows: list[BlobRow] = plan.full() if full else plan.rows
    refs = [r.ref for r in rows]
    return {
        **params,
        "channels": [r.channel for r in rows], "versions": [r.version for r in rows],
        "types": [r.type for r in rows], "datas": [r.data for r in rows],
        "bases": [r.base for r in rows], "seqs": [r.seq for r in rows],
        "ref_nss": [f and f.ns for f in refs], "ref_channels": [f and f.channel for f in refs],
        "ref_versions": [f and f.version for f in refs], "ref_keys": [f and f.key for f in refs],
    }  # fmt: skip


@dataclass(frozen=True, slots=True)
class TaskWrites:
    """One task's pending writes, serialized: PUT_WRITES's parameters by :meth:`params`."""

    keys: dict[str, Any]  # thread_id, ns, checkpoint_id, task_id, task_path
    rows: list[WriteRow]
    serde: Serializer

    @classmethod
    def of(
        cls, serde: Serializer, config: Mapping[str, Any], task_id: str, task_path: str, rows: Sequence[WriteRow]
    ) -> TaskWrites | None:
        """The rows to store (None: none). One statement may not update a row twice: the last special wins."""
        thread_id, ns, checkpoint_id = parse_write_config(config)
        by_idx: dict[int, WriteRow] = {}
        for r in rows:
            if r.replaces or r.idx not in by_idx:
                by_idx[r.idx] = r
        if not by_idx:
            return None
        require_storable(thread_id, ns, checkpoint_id, task_id, task_path, *(r.channel for r in by_idx.values()))
        keys = {"thread_id": thread_id, "ns": ns, "checkpoint_id": checkpoint_id, "task_id": task_id, "task_path": task_path}
        return cls(keys, list(by_idx.values()), serde)

    @property
    def thread_id(self) -> str:
        return self.keys["thread_id"]

    def params(self, *, full: bool = False) -> dict[str, Any]:
        """PUT_WRITES's parameters (``full``: every write whole, without refs)."""
        rows = [r.full(self.serde) for r in self.rows] if full else self.rows
        refs = [r.ref for r in rows]
        return {
            **self.keys, "idxs": [r.idx for r in rows], "channels": [r.channel for r in rows],
            "types": [r.type for r in rows], "datas": [r.data for r in rows],
            "ref_nss": [f and f.ns for f in refs], "ref_channels": [f and f.channel for f in refs],
            "ref_versions": [f and f.version for f in refs], "ref_keys": [f and f.key for f in refs],
        }  # fmt: skip
