"""A checkpoint's stored meta in its compact form: each name and each version once.

The meta (``versions_seen``, ``updated_channels``, the inline entries and,
for some savers, ``channel_versions``: see :func:`engine.checkpoint._helpers.dump_meta`)
names the same few channels and nodes over and over, and a version (a 64-bit
integer: 9 bytes of msgpack) appears in several places: the channel's own
entry and each node's ``versions_seen`` of it. Stored as a map, a chat's meta
was ~255 bytes, most of them the key strings (``"versions_seen"``,
``"branch:to:model"`` three times over) and repeated versions, in every one of
a thread's rows. The compact form is a list::

    [FORM, v, names, versions, seen, updated, inline, channel_versions]

``names`` lists each string once and ``versions`` each version once; the
rest refer to them by position: ``seen`` is one list per node, ``[node, channel,
version, channel, version, ...]``; ``updated`` a list of channels (or None);
``inline`` one list per entry, ``[channel, position, version]`` or ``[channel,
position, version, value]`` (see :mod:`engine.checkpoint._inline`);
``channel_versions`` ``[channel, version, ...]`` in order, or None when the
saver keeps them in a column. A meta whose parts are not of the expected
types (which a read would refuse anyway) is stored as a map, as before, and
rows stored as a map read as they did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["FORM", "pack", "unpack"]

#: The first item of a compact meta (a stored map is the older form).
FORM = 1


def pack(meta: Mapping[str, Any]) -> list[Any] | None:
    """``meta`` (as :func:`~engine.checkpoint._helpers.dump_meta` builds it) in the compact form,
    or None when its parts are not of the types the form holds."""
    names: dict[str, int] = {}
    versions: dict[int, int] = {}

    def name(s: Any) -> int:
        if type(s) is not str:
            raise _Unfit
        i = names.get(s)
        if i is None:
            i = names[s] = len(names)
        return i

    def version(v: Any) -> int:
        if type(v) is not int:
            raise _Unfit
        i = versions.get(v)
        if i is None:
            i = versions[v] = len(versions)
        return i

    try:
        seen_in = meta["versions_seen"]
        if not isinstance(seen_in, Mapping):
            return None
        seen: list[list[int]] = []
        for node, chans in seen_in.items():
            if not isinstance(chans, Mapping):
                return None
            entry = [name(node)]
            for ch, v in chans.items():
                entry.append(name(ch))
                entry.append(version(v))
            seen.append(entry)
        updated_in = meta.get("updated_channels")
        if updated_in is not None and type(updated_in) is not list:
            return None
        updated = None if updated_in is None else [name(ch) for ch in updated_in]
        inline: list[list[Any]] = []
        for ch, e in (meta.get("inline") or {}).items():
            if type(e) is not list or len(e) not in (2, 3) or type(e[0]) is not int:
                return None
            inline.append([name(ch), e[0], version(e[1]), *e[2:]])
        cv_in = meta.get("channel_versions")
        cv: list[int] | None = None
        if cv_in is not None:
            cv = []
            for ch, v in cv_in.items():
                cv.append(name(ch))
                cv.append(version(v))
    except _Unfit:
        return None
    return [FORM, meta["v"], list(names), list(versions), seen, updated, inline, cv]


class _Unfit(Exception):
    """A part of the meta the compact form does not hold."""


def unpack(form: list[Any]) -> dict[str, Any]:
    """A stored compact meta as the map :func:`pack` was given (the inline entries only when there are some).

    Raises:
        ValueError: not a compact meta, or one naming a name or version it does not list.
    """
    if len(form) != 8 or form[0] != FORM or type(form[0]) is not int:
        raise ValueError("not a compact meta")
    _, v, names, versions, seen, updated, inline, cv = form
    if not (type(names) is list and type(versions) is list and type(seen) is list and type(inline) is list):
        raise ValueError("a compact meta's parts are not lists")
    try:
        meta: dict[str, Any] = {"v": v, "versions_seen": {_at(names, e[0]): _pairs(names, versions, e, 1) for e in seen}}
        meta["updated_channels"] = None if updated is None else [_at(names, i) for i in updated]
        if inline:
            meta["inline"] = {_at(names, e[0]): [e[1], _at(versions, e[2]), *e[3:]] for e in inline}
        if cv is not None:
            meta["channel_versions"] = _pairs(names, versions, cv, 0)
    except (IndexError, TypeError, KeyError) as exc:
        raise ValueError(f"a compact meta refers to nothing it lists ({exc})") from None
    return meta


def _pairs(names: list[Any], versions: list[Any], flat: list[Any], start: int) -> dict[Any, Any]:
    """``flat[start:]``'s ``[name, version, ...]`` positions as a map of names to versions."""
    if len(flat) < start or (len(flat) - start) % 2:
        raise ValueError("a compact meta's pairs are not pairs")
    return {_at(names, flat[i]): _at(versions, flat[i + 1]) for i in range(start, len(flat), 2)}


def _at(items: list[Any], i: Any) -> Any:
    """``items[i]`` for a position ``i`` in range (a negative one is refused, not counted from the end)."""
    if type(i) is not int or not 0 <= i < len(items):
        raise IndexError(f"position {i!r:.20} of {len(items)}")
    return items[i]
