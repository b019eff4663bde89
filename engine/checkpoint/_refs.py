"""Which stored list a new value repeats: the write side of refs, for every saver.

A subgraph is handed its parent's conversation and hands it back: its input
(``__start__``, a dict holding the list), its first ``messages`` value (a new
namespace has no version of its own to be a delta of), its START task's
write of it, and its output written back to the parent as a pending write
all repeat a list the thread already stored. Each is stored as a
:class:`~engine.checkpoint._chain.Ref` to the longest such list the saver's
delta cache remembers, and what comes after it, so a subgraph call stores
what it adds, not the conversation.

Items are compared as :mod:`engine.checkpoint._delta` compares them: by
identity, then by serialized bytes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any

from engine.checkpoint._chain import BlobRow, Known, Ref
from engine.serde import Serializer

__all__ = ["MIN_ITEMS", "extends", "longest_prefix", "reference", "whole_row"]

#: The shortest list worth a ref: a one-item write (the new message of a step,
#: the common case) is stored as it is, without looking for one.
MIN_ITEMS = 2


def longest_prefix(serde: Serializer, candidates: Iterable[Known], value: list[Any]) -> Known | None:
    """The longest of ``candidates`` (non-empty lists as stored) that ``value`` starts with, or None."""
    if len(value) < MIN_ITEMS:
        return None
    fitting = [k for k in candidates if MIN_ITEMS <= len(k.items) <= len(value)]
    fitting.sort(key=lambda k: len(k.items), reverse=True)
    for known in fitting:
        if extends(serde, value, known.items):
            return known
    return None


def reference(serde: Serializer, candidates: Callable[[], list[Known]], value: Any) -> tuple[Ref, Any, int] | None:
    """``value`` (a list, or a dict holding lists) as a ref to one of ``candidates()``, what the ref lacks,
    and the stored bytes of the chain it names; None when it repeats none of them. ``candidates``
    is called only for a value holding a list of :data:`MIN_ITEMS` or more.

    For a list, the ref names the longest candidate it starts with, and the
    rest is the items after it; for a dict, the same for the one entry that
    saves the most items, and the rest is the dict with that entry cut to its
    new items.
    """
    if type(value) is list:
        known = longest_prefix(serde, candidates(), value) if len(value) >= MIN_ITEMS else None
        if known is None:
            return None
        link = known.chain[0]
        return Ref(link.ns, link.channel, link.version), value[link.length :], link.size
    if type(value) is not dict:
        return None
    best: tuple[str, Known] | None = None
    lists: list[Known] | None = None
    for key, item in value.items():
        if type(key) is str and type(item) is list and len(item) >= MIN_ITEMS:
            lists = candidates() if lists is None else lists
            known = longest_prefix(serde, lists, item)
            if known is not None and (best is None or len(known.items) > len(best[1].items)):
                best = (key, known)
    if best is None:
        return None
    key, known = best
    link = known.chain[0]
    return Ref(link.ns, link.channel, link.version, key), {**value, key: value[key][link.length :]}, link.size


def extends(serde: Serializer, new: list[Any], old: list[Any]) -> bool:
    """Whether ``new`` starts with exactly the items of ``old``."""
    if len(new) < len(old):
        return False
    if all(map(operator.is_, new, old)):  # zip stops at len(old); the common case, in C
        return True
    dumps = serde.dumps_typed
    for a, b in zip(new, old):
        if a is not b:
            try:
                if dumps(a) != dumps(b):
                    return False
            except Exception:  # noqa: BLE001 - an unstorable item fails the put later, with a path
                return False
    return True


def whole_row(
    serde: Serializer, candidates: Callable[[], list[Known]] | None, channel: str, version: int, value: Any
) -> tuple[BlobRow, int | None]:
    """The row of a channel's value that is not a growing list: a dict holding a list the thread
    stored (``candidates``, None: no refs) as a ref to it and the rest, with the bytes of the chain
    the ref names; anything else whole, with None.

    Raises:
        SerializationError: the serializer refuses the value (the message names the channel).
    """
    found = reference(serde, candidates, value) if candidates is not None and type(value) is dict else None
    if found is None:
        return BlobRow(channel, version, *serde.dumps_channel(channel, value)), None
    tag, data = serde.dumps_channel(channel, found[1])  # a subgraph's input: a ref, and the rest
    return BlobRow(channel, version, tag, data, ref=found[0]), found[2]
