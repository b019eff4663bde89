"""Retention: which checkpoints and blob rows a prune keeps, for every saver.

Pure planning over what a saver read from its thread's rows; each saver
deletes the rest in its own transaction (``aprune``). A checkpoint's values
may be deltas on older versions' rows (:mod:`engine.checkpoint._chain`), so a
kept checkpoint keeps its whole chain, whichever checkpoint (or namespace)
first wrote it, and so do its pending writes that refer to a stored list.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

from engine.errors import CorruptCheckpointError

__all__ = ["Choose", "blobs_to_keep", "check_prune_args", "checkpoints_to_prune", "only", "prune_rule"]

#: How a saver's prune primitive is told what goes: rows ``(ns, checkpoint_id, ts)`` of a thread
#: in, ``(kept, deleted)`` sets of ``(ns, checkpoint_id)`` out.
Choose = Callable[[Sequence[tuple[str, str, str]]], tuple[set[tuple[str, str]], set[tuple[str, str]]]]


def prune_rule(strategy: str | None, keep_last: int | None, older_than: timedelta | None) -> Choose | None:
    """The :data:`Choose` of an ``aprune`` call: ours (``keep_last``, ``older_than``) or LangGraph's
    (``strategy="keep_latest"``, the default without a rule: ``keep_last=1``); None for LangGraph's
    ``strategy="delete"`` (every checkpoint goes: the saver deletes the thread).

    Raises:
        ValueError: an unknown strategy, a strategy with a rule, or a bad rule (:func:`check_prune_args`).
    """
    if strategy is None and keep_last is None and older_than is None:
        strategy = "keep_latest"
    if strategy is not None:
        if strategy not in ("keep_latest", "delete") or keep_last is not None or older_than is not None:
            raise ValueError(
                f'prune takes strategy "keep_latest" or "delete" alone, or keep_last / older_than; got strategy={strategy!r}'
            )
        if strategy == "delete":
            return None
        keep_last = 1
    check_prune_args(keep_last, older_than)
    return functools.partial(checkpoints_to_prune, keep_last=keep_last, older_than=older_than)


def only(gone: set[tuple[str, str]], rows: Sequence[tuple[str, str, str]]) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """A :data:`Choose` that lets exactly ``gone`` go (``delete_for_runs``), the newest included."""
    every = {(ns, cid) for ns, cid, _ in rows}
    return every - gone, every & gone


def check_prune_args(keep_last: int | None, older_than: timedelta | None) -> None:
    """Validate ``aprune`` arguments the same way for every saver.

    Raises:
        ValueError: neither rule given, or a negative one.
    """
    if keep_last is None and older_than is None:
        raise ValueError("prune needs keep_last, older_than, or both")
    if keep_last is not None and (type(keep_last) is not int or keep_last < 1):
        raise ValueError(f"keep_last must be an int >= 1, got {keep_last!r}")
    if older_than is not None and (not isinstance(older_than, timedelta) or older_than < timedelta(0)):
        raise ValueError(f"older_than must be a timedelta >= 0, got {older_than!r}")


def checkpoints_to_prune(
    rows: Iterable[tuple[str, str, str]],
    *,
    keep_last: int | None,
    older_than: timedelta | None,
    now: datetime | None = None,
) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """Split a thread's checkpoints into ``(kept, deleted)`` sets of ``(ns, checkpoint_id)``.

    ``rows`` are ``(ns, checkpoint_id, ts)``. Per namespace, a checkpoint is
    kept when it is among the newest ``keep_last``, or younger than
    ``older_than``, or the namespace's newest (pruning removes history, never
    a thread's current state: use ``delete_thread`` for that). With both
    rules, a checkpoint goes only when both let it go.
    """
    cutoff = None if older_than is None else (now or datetime.now(UTC)) - older_than
    by_ns: dict[str, list[tuple[str, str]]] = {}
    for ns, cid, ts in rows:
        by_ns.setdefault(ns, []).append((cid, ts))
    kept: set[tuple[str, str]] = set()
    deleted: set[tuple[str, str]] = set()
    for ns, found in by_ns.items():
        found.sort(reverse=True)  # ids are time-ordered: newest first
        for rank, (cid, ts) in enumerate(found):
            keep = rank == 0
            if keep_last is not None and rank < keep_last:
                keep = True
            if cutoff is not None and _parse_ts(ts) > cutoff:
                keep = True
            if keep_last is None and cutoff is None:  # pragma: no cover - check_prune_args refuses it
                keep = True
            (kept if keep else deleted).add((ns, cid))
    return kept, deleted


def _parse_ts(ts: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(ts)
    except ValueError as exc:
        raise CorruptCheckpointError(f"stored checkpoint time {ts!r} is not ISO 8601") from exc
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def blobs_to_keep(
    referenced: Iterable[tuple[str, str, int]],
    bases: Mapping[tuple[str, str, int], int | tuple[str, str, int] | None],
) -> set[tuple[str, str, int]]:
    """Every ``(ns, channel, version)`` a kept checkpoint needs, with its delta chain.

    ``referenced``: the versions kept checkpoints name, and the rows their
    pending writes' refs name; ``bases``: each stored blob's base, a version
    of the same namespace and channel, or the ``(ns, channel, version)`` of
    its ref (a chain may pass into another namespace), or None for a full value.
    """
    keep: set[tuple[str, str, int]] = set()
    for key in referenced:
        while key not in keep and key in bases:
            keep.add(key)
            base = bases[key]
            if base is None:
                break
            key = base if type(base) is tuple else (key[0], key[1], base)  # type: ignore[assignment]
    return keep
