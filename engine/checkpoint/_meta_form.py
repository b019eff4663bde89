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
from operator import itemgetter
from typing import Any

__all__ = ["FORM", "pack", "unpack"]

#: The first item of a compact meta (a stored map is the older form).
FORM = 1


def pack(meta: Mapping[str, Any]) -> list[Any] | None:
    """``meta`` (as :func:`~engine.checkpoint._helpers.dump_meta` builds it) in the compact form,
    or None when its parts are not the maps and lists the form holds.

    Names and versions are taken as they are (a read checks their types, as it checks a map's):
    every put comes here, so the work is a dict lookup per name and version.
    """
    seen_in, inline_in, updated_in = meta["versions_seen"], meta.get("inline") or {}, meta.get("updated_channels")
    cv_in = meta.get("channel_versions")
    if type(seen_in) is not dict or type(inline_in) is not dict or (updated_in is not None and type(updated_in) is not list):
        return None
    if cv_in is not None and type(cv_in) is not dict:
        return None
    try:
        return _packed(meta["v"], seen_in, inline_in, updated_in, cv_in)
    except TypeError:  # a name or version that cannot be a dict key (a read would refuse it): a map
        return None


def _packed(v: Any, seen_in: dict[Any, Any], inline_in: dict[Any, Any], updated_in: list[Any] | None,
            cv_in: dict[Any, Any] | None) -> list[Any] | None:  # fmt: skip
    names: dict[Any, int] = {}
    versions: dict[Any, int] = {}
    name, version = names.setdefault, versions.setdefault
    seen: list[list[Any]] = []
    for node, chans in seen_in.items():
        if type(chans) is not dict:
            return None
        entry = [name(node, len(names))]
        for ch, ver in chans.items():
            entry.append(name(ch, len(names)))
            entry.append(version(ver, len(versions)))
        seen.append(entry)
    updated = None if updated_in is None else [name(ch, len(names)) for ch in updated_in]
    inline: list[list[Any]] = []
    for ch, e in inline_in.items():
        if type(e) is not list or len(e) not in (2, 3):
            return None
        inline.append([name(ch, len(names)), e[0], version(e[1], len(versions)), *e[2:]])
    cv: list[Any] | None = None
    if cv_in is not None:
        cv = []
        for ch, ver in cv_in.items():
            cv.append(name(ch, len(names)))
            cv.append(version(ver, len(versions)))
    if not _exact(versions):
        return None
    return [FORM, v, list(names), list(versions), seen, updated, inline, cv]


def _exact(versions: dict[Any, int]) -> bool:
    """Whether the version table holds each version as it was given: ``True`` and ``1`` (or ``1.0``)
    are one dict key, so a table with a bool or a float may have merged two; such a meta is a map."""
    return set(map(type, versions)) <= {int} or not any(type(v) is bool or type(v) is float for v in versions)


def unpack(form: list[Any]) -> dict[str, Any]:
    """A stored compact meta as the map :func:`pack` was given (the inline entries only when there are some).

    Every read of a version comes here: the checks and lookups are C-level calls over whole lists.

    Raises:
        ValueError: not a compact meta, or one naming a name or version it does not list.
    """
    if len(form) != 8 or type(form[0]) is not int or form[0] != FORM:
        raise ValueError("not a compact meta")
    _, v, names, versions, seen, updated, inline, cv = form
    if not (type(names) is list and type(versions) is list and type(seen) is list and type(inline) is list):
        raise ValueError("a compact meta's parts are not lists")
    positions = [*seen, [0] if updated is None else updated, [0] if cv is None else cv]  # lists of positions only
    if not set(map(type, positions)) | set(map(type, inline)) <= {list}:
        raise ValueError("a compact meta's entries are not lists")
    if not all(map(_ODD, map(len, seen))) or (cv is not None and len(cv) & 1):
        raise ValueError("a compact meta's pairs are not pairs")
    if inline and (min(map(len, inline)) < 3 or max(map(len, inline)) > 4):
        raise ValueError("a compact meta's inline entries are not [channel, position, version(, value)]")
    name, version = names.__getitem__, versions.__getitem__
    try:
        least = min(map(min, filter(None, positions)), default=0)
        if inline:
            least = min(least, min(map(_FIRST, inline)), min(map(_THIRD, inline)))
        if least < 0:  # a position counted from the end: refused
            raise IndexError("a negative position")
        meta: dict[str, Any] = {"v": v, "versions_seen": {  # a node has seen one channel, mostly: its trigger
            name(e[0]): {name(e[1]): version(e[2])} if len(e) == 3 else dict(zip(map(name, e[1::2]), map(version, e[2::2])))
            for e in seen
        }}  # fmt: skip
        meta["updated_channels"] = None if updated is None else list(map(name, updated))
        if inline:
            meta["inline"] = {name(e[0]): [e[1], version(e[2]), *e[3:]] for e in inline}
        if cv is not None:
            meta["channel_versions"] = dict(zip(map(name, cv[0::2]), map(version, cv[1::2])))
    except (IndexError, TypeError) as exc:
        raise ValueError(f"a compact meta refers to nothing it lists ({exc})") from None
    return meta


_ODD = (1).__and__
_FIRST, _THIRD = itemgetter(0), itemgetter(2)
