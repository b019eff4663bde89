"""Checkpoints of LangGraph's older formats, read into today's channel layout.

A thread written by an older LangGraph (checkpoint ``"v"`` 1 to 3), moved
into one of our savers, names channels the engine no longer has: LangGraph
0.x triggered a node through ``start:<node>`` (from START), through
``branch:<source>:<condition>:<node>`` (a conditional edge), or through the
channel named after the node before it (``"v"`` 1); and kept the Sends
waiting for the next step in the checkpoint's ``pending_sends`` rather than
in the ``__pregel_tasks`` channel. LangGraph migrates such a checkpoint as it
reads it, before planning its tasks, and so does the engine (the same
moves): every trigger becomes ``branch:to:<node>``, keeping the newest
version of the channels it merges and what each node has seen of them, so
the tasks a step planned then are the tasks planned now.

Only a copy is changed (the callers migrate what :func:`copy_checkpoint`
made): the stored version stays as it was written.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from typing import Any

from engine.checkpoint.base import Checkpoint, copy_checkpoint
from engine.types import END, START
from engine._internal._ids import task_id as make_task_id
from engine.pregel._spec import PULL, PUSH, TASKS

__all__ = ["adopt_task_ids", "copy_migrated", "migrate_checkpoint", "moved_channels"]

_INTERRUPT = "__interrupt__"
_MISSING = object()


def migrate_checkpoint(ck: Checkpoint, nodes: Collection[str], edges: Iterable[tuple[str, str]]) -> None:
    """Move an older LangGraph checkpoint's channels (in place) to today's names (see the module).

    ``nodes``: the graph's node names; ``edges``: its plain edges ``(source, target)``.
    A checkpoint of today's format (``"v"`` 4) is left as it is.
    """
    if ck["v"] >= 4:
        return
    if sends := ck.pop("pending_sends", None):  # type: ignore[typeddict-item]
        ck["channel_values"][TASKS] = list(sends)
        ck["channel_versions"][TASKS] = max(ck["channel_versions"].values())
    if ck["v"] >= 3 or not ck["channel_versions"]:
        return
    versions = ck["channel_versions"]
    for old in list(versions):  # start:<node> (from START)
        if old.startswith("start:") and (node := old.split(":")[1]) in nodes:
            _merge(ck, old, node, values_from=old)
    for old in list(versions):  # branch:<source>:<condition>:<node>
        if old.startswith("branch:") and old.count(":") == 3 and (node := old.split(":")[-1]) in nodes:
            _merge(ck, old, node, values_from=old)
    if set(nodes).isdisjoint(versions):
        return
    targets: dict[str, list[str]] = defaultdict(list)  # "v" 1: a node's own channel triggered those after it
    for source, target in edges:
        if source != START and target != END:
            targets[source].append(target)
    for old in list(versions):
        if old == START or old not in nodes:
            continue
        version = versions.pop(old)
        value = ck["channel_values"].pop(old, _MISSING)
        for node in targets[old]:
            _merge(ck, old, node, version=version, value=value)
        ck["versions_seen"].get(_INTERRUPT, {}).pop(old, None)


def _merge(
    ck: Checkpoint, old: str, node: str, *, values_from: str | None = None, version: Any = None, value: Any = _MISSING
) -> None:
    """Fold channel ``old`` into ``branch:to:<node>``: the newer version wins, in the channel's
    versions and in what ``node`` (and the interrupt check) had seen of it."""
    new = f"branch:to:{node}"
    versions, values, seen = ck["channel_versions"], ck["channel_values"], ck["versions_seen"]
    if values_from is not None:
        version = versions.pop(old)
        value = values.pop(old, _MISSING) if new not in values else _MISSING
    versions[new] = max(versions[new], version) if new in versions else version
    for record in (seen.get(node, {}), seen.get(_INTERRUPT, {})):
        if old in record:
            had = record.pop(old)
            record[new] = max(had, record[new]) if new in record else had
    if new not in values and value is not _MISSING:
        values[new] = value


def copy_migrated(ck: Checkpoint, spec: Any) -> Checkpoint:
    """A copy of stored checkpoint ``ck`` in today's layout, for graph ``spec`` (a ``GraphSpec``)."""
    out = copy_checkpoint(ck)
    if out["v"] < 4:
        migrate_checkpoint(out, spec.nodes, spec.edges)
    return out


def moved_channels(stored: Checkpoint, migrated: Checkpoint) -> dict[str, Any]:
    """The channels (and versions) ``migrated`` has that the stored version does not: a saver
    holds no value under those names, so the next version stores them as changed."""
    if migrated["v"] >= 4:
        return {}
    before = stored["channel_versions"]
    return {c: n for c, n in migrated["channel_versions"].items() if before.get(c) != n}


def adopt_task_ids(ck: Checkpoint, writes: list[Any], spec: Any, step: int, ns: str) -> list[Any]:
    """``writes`` (a stored version's pending writes) with LangGraph's task ids replaced by ours.

    A version LangGraph itself ran and stored (moved into our saver, any
    ``"v"``) keeps its tasks' writes under LangGraph's task ids: a hash of
    the checkpoint id, the task's namespace, step, node and triggers (or
    Send index), which the engine's ids are not. Matched to the tasks the
    engine plans for the same step (a node's pull task, the Send at each
    index), their writes count as those tasks' (their results, their
    interrupts), as in LangGraph. Ids of ``"v"`` 1 are SHA-1 based; later
    ones XXH3's, read only when the ``xxhash`` package (LangGraph's and
    LangSmith's dependency) is installed: without it, such writes stay
    unmatched, as any write of a task the step does not plan.
    """
    if not writes:
        return writes
    ids = _langgraph_ids(ck, spec, step, ns)
    if not ids or not any(w[0] in ids for w in writes):
        return writes
    return [(ids.get(w[0], w[0]), *w[1:]) for w in writes]


def _langgraph_ids(ck: Checkpoint, spec: Any, step: int, ns: str) -> dict[str, str]:
    """LangGraph's id of each task the step could plan -> the engine's."""
    hash_text = _sha1_text if ck["v"] <= 1 else _xxh3_text()
    if hash_text is None:
        return {}
    try:
        key = bytes.fromhex(ck["id"].replace("-", ""))
    except ValueError:
        return {}
    cid, s = ck["id"], str(step)
    out: dict[str, str] = {}
    for name, node in spec.nodes.items():
        task_ns = f"{ns}|{name}" if ns else name
        theirs = hash_text(key, task_ns, s, name, PULL, *sorted(node.triggers))
        out[theirs] = make_task_id(cid, step, "pull", name)
    sends = ck["channel_values"].get(TASKS)
    for idx, packet in enumerate(sends if isinstance(sends, list) else ()):
        node = getattr(packet, "node", None)
        if isinstance(node, str):
            task_ns = f"{ns}|{node}" if ns else node
            out[hash_text(key, task_ns, s, node, PUSH, str(idx))] = make_task_id(cid, step, "push", idx, node)
    return out


def _uuid_text(h: str) -> str:
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _sha1_text(key: bytes, *parts: str) -> str:
    return _uuid_text(hashlib.sha1(key + "".join(parts).encode(), usedforsecurity=False).hexdigest())


def _xxh3_text() -> Callable[..., str] | None:
    try:
        from xxhash import xxh3_128_hexdigest
    except ImportError:
        return None

    def text(key: bytes, *parts: str) -> str:
        return _uuid_text(xxh3_128_hexdigest(key + "".join(parts).encode()))

    return text
