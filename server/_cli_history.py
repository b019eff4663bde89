"""A thread's history for people at a terminal: rows per branch, short ids.

Checkpoint ids are long (``1f1ed6db-a60c-6c54-b714-c9b1c925f572``), so the
CLI shows each by its shortest unambiguous prefix and accepts such a prefix
wherever it takes a checkpoint id (:func:`resolve_checkpoint`).

Branches. Versions form a tree. The row that ends at the newest version is
the current branch, drawn first. Every other branch leaves a version that has
several children, and children are told apart by when they were made: the
first child of a version is the path the thread took from it, and each later
child was made by going back to that version (a Fork, an input on an older
version, an update). So a branch that starts at a later child is "forked
from" that version, while one that starts at the first child is the path a
fork replaced: "abandoned at" that version.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["AmbiguousId", "render_history", "resolve_checkpoint", "short_ids"]


class AmbiguousId(ValueError):
    """A prefix that names no version, or more than one."""


def short_ids(ids: Any) -> dict[str, str]:
    """The shortest prefix (at least 8 characters) of each id that no other id shares.

    Checkpoint ids are time-ordered: versions saved close together share a long
    prefix, and all ids from one process share their last 12 characters (the
    node part), so a fixed-length slice would not tell them apart.
    """
    ordered = sorted(ids)
    out: dict[str, str] = {}
    for i, cid in enumerate(ordered):
        n = 8
        for other in ordered[max(i - 1, 0) : i + 2]:
            if other != cid:
                n = max(n, len(os.path.commonprefix([cid, other])) + 1)
        out[cid] = cid[:n]
    return out


def resolve_checkpoint(prefix: str, thread_id: str, list_ids: Callable[[], Sequence[str]]) -> str:
    """The one checkpoint id of the thread that starts with ``prefix``.

    ``list_ids`` lists the thread's ids (the history, newest first). Raises
    AmbiguousId, naming the candidates, when no id or several start with it.
    """
    ids = list(list_ids())
    if prefix in ids:
        return prefix
    matches = sorted(i for i in ids if i.startswith(prefix))
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise AmbiguousId(f"thread {thread_id!r} has no version whose id starts with {prefix!r} ({len(ids)} version(s))")
    shown = ", ".join(matches[:5]) + (", …" if len(matches) > 5 else "")
    raise AmbiguousId(f"{prefix!r} starts {len(matches)} version ids of thread {thread_id!r} ({shown}): give more of it")


def render_history(snaps: Sequence[Any]) -> str:
    """Versions as rows, one per branch (oldest first): the current branch, then the others."""
    if not snaps:
        return "(no versions)"
    by_id = {s.checkpoint.checkpoint_id: s for s in snaps}
    children: dict[str | None, list[str]] = {}
    for cid in sorted(by_id):
        parent = by_id[cid].checkpoint.parent_id
        children.setdefault(parent if parent in by_id else None, []).append(cid)
    latest = max(by_id)
    on_current = set()
    cur: str | None = latest
    while cur in by_id:
        on_current.add(cur)
        cur = by_id[cur].checkpoint.parent_id
    short = short_ids(by_id)
    lines: list[str] = []

    def label(cid: str) -> str:
        s = by_id[cid]
        nxt = ",".join(s.next) or "END"
        mark = "*" if cid == latest else ""
        return f"{mark}[{s.checkpoint.step} {s.checkpoint.source} →{nxt} {short[cid]}]"

    def walk(start: str, how: str) -> None:
        row, cur, branches = [], start, []
        while True:
            row.append(label(cur))
            kids = children.get(cur, [])
            if not kids:
                break
            # The row follows the current branch where it can, else the newest child.
            follow = next((k for k in kids if k in on_current), kids[-1])
            branches += [(k, cur) for k in kids if k != follow]
            cur = follow
        lines.append(f"branch {len(lines) + 1}{how}: " + " ─ ".join(row))
        for kid, parent in branches:
            first = children[parent][0] == kid
            walk(kid, f" ({'abandoned at' if first else 'forked from'} {short[parent]})")

    roots = children.get(None, [])
    for root in sorted(roots, key=lambda r: r not in on_current):
        walk(root, " (current)" if root in on_current else "")
    lines.append("* = latest; [step source →next id]; ids may be shortened to any unambiguous prefix")
    return "\n".join(lines)
