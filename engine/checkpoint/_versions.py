"""A checkpoint's channel versions as a saver takes them, before anything is stored.

Our savers key stored values by ``(channel, version)`` with integer versions;
a version of LangGraph's own form (a string) is taken as its counter, any
other that is not an int is refused (:func:`take_checkpoint`,
:func:`check_versions`). ``versions_seen`` keys nothing and is stored as given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import chain as _chain
from operator import methodcaller
from typing import Any

from engine.checkpoint._made import MadeCheckpoint
from engine.checkpoint.base import ChannelVersions, Checkpoint

__all__ = ["INT_ONLY", "all_int", "check_versions", "seen_ints", "take_checkpoint"]

#: the one type a stored version has (``INT_ONLY.issuperset(map(type, versions))``: every one an int, in C)
INT_ONLY = frozenset({int})
_values = methodcaller("values")


def check_versions(checkpoint: Checkpoint, new_versions: Mapping[str, Any] | None = None) -> None:
    """Refuse a checkpoint whose channel versions are not integers, before anything is stored.

    Our savers key values by ``(channel, version)`` with integer versions
    (:func:`engine._internal._ids.next_version`); LangGraph's own savers use
    strings. A string, float or bool version would be stored and then make
    the thread unreadable, so ``put`` refuses it. ``versions_seen`` keys
    nothing: it is stored as given, as LangGraph's savers store it (the
    engine's loop and LangGraph's copy its values from ``channel_versions``),
    which spares every put a pass over every node's record.

    Raises:
        ValueError: a version in ``channel_versions`` or ``new_versions`` that is not an int.
    """
    if all_int(checkpoint, new_versions):
        return
    for name, versions in (("channel_versions", checkpoint["channel_versions"]), ("new_versions", new_versions or {})):
        for channel, version in versions.items():
            if type(version) is not int:
                raise ValueError(
                    f"checkpoint {checkpoint['id']!r}: {name}[{channel!r}] is {version!r} "
                    f"({type(version).__name__}); channel versions are integers "
                    "(BaseCheckpointSaver.get_next_version makes them)"
                )


def all_int(checkpoint: Checkpoint, new_versions: Mapping[str, Any] | None) -> bool:
    """Whether every version of ``checkpoint``'s ``channel_versions`` and ``new_versions`` is an int
    (every put asks; loops in C)."""
    if new_versions and not INT_ONLY.issuperset(map(type, new_versions.values())):
        return False
    if type(checkpoint) is MadeCheckpoint:
        return True  # the engine's own: its versions are next_version's (see engine.checkpoint._made)
    return INT_ONLY.issuperset(map(type, checkpoint["channel_versions"].values()))


def seen_ints(checkpoint: Checkpoint) -> bool:
    """Whether every version in ``checkpoint``'s ``versions_seen`` (stored as given: see :func:`check_versions`)
    is an int, as a ``json_safe`` meta packed without the serializer's checks needs (engine.checkpoint._sql_write)."""
    seen = checkpoint.get("versions_seen") or {}
    try:  # each node's values chained in C; the engine's own checkpoints' are ints
        return type(checkpoint) is MadeCheckpoint or INT_ONLY.issuperset(map(type, _chain.from_iterable(map(dict.values, seen.values()))))
    except TypeError:  # a node's entry that is not a dict
        return False


# LangGraph's savers' versions: a zero-padded 32-digit counter, a dot, a random float in [0, 1)
# formatted zero-padded to 16 (``langgraph.checkpoint.memory.InMemorySaver.get_next_version``'s form).
#: the channel of the Sends due next step (engine.pregel._spec.TASKS)
_TASKS = "__pregel_tasks"
_LANGGRAPH_VERSION = re.compile(r"(\d{32})\.(\d+\.\d+|\d+(?:\.\d+)?e-\d+)")


def take_checkpoint(checkpoint: Checkpoint, new_versions: ChannelVersions) -> tuple[Checkpoint, ChannelVersions]:
    """The checkpoint and new versions a saver stores: LangGraph's string versions read as their
    counters, and an older LangGraph checkpoint's ``pending_sends`` kept.

    A checkpoint LangGraph's own savers made (moved into ours, or a test's
    fixture) carries string versions such as
    ``"00000000000000000000000000000002.0.6697367414225304"``. The counter
    is what orders them (LangGraph's ``get_next_version`` increments it; the
    random tail only breaks ties between writers), so it is taken as the
    integer version, in ``channel_versions``, ``versions_seen`` and
    ``new_versions`` alike, which keeps every comparison between them as it
    was. Any other non-integer version is still refused by :func:`check_versions`.

    A checkpoint of LangGraph before ``"v"`` 4 kept the Sends due next step
    in ``pending_sends``, which our savers do not store (only the channels,
    ``versions_seen`` and ``updated_channels``): they are stored as
    LangGraph reads them, as the ``__pregel_tasks`` channel's value, at the
    newest version of the checkpoint. The caller's dicts are not changed:
    a copy is returned.

    Raises:
        ValueError: a version that is neither an int nor of LangGraph's form.
    """
    if not all_int(checkpoint, new_versions):  # the versions of our savers and of the engine: nothing to do
        if type(checkpoint) is not MadeCheckpoint and _has_langgraph_versions(checkpoint, new_versions):
            checkpoint = checkpoint.copy()
            checkpoint["channel_versions"] = _counters(checkpoint["channel_versions"])
            checkpoint["versions_seen"] = {
                node: _counters(seen) for node, seen in (checkpoint.get("versions_seen") or {}).items()
            }
            new_versions = _counters(new_versions)
        check_versions(checkpoint, new_versions)
    if checkpoint.get("pending_sends") and checkpoint["v"] < 4 and checkpoint["channel_versions"]:
        checkpoint = checkpoint.copy()
        sends = list(checkpoint.pop("pending_sends"))  # type: ignore[typeddict-item]
        version = max(checkpoint["channel_versions"].values())
        checkpoint["channel_values"] = {**checkpoint["channel_values"], _TASKS: sends}
        checkpoint["channel_versions"] = {**checkpoint["channel_versions"], _TASKS: version}
        new_versions = {**new_versions, _TASKS: version}
    return checkpoint, new_versions


def _has_langgraph_versions(checkpoint: Checkpoint, new_versions: Mapping[str, Any]) -> bool:
    seen = checkpoint.get("versions_seen") or {}
    found = _chain(checkpoint["channel_versions"].values(), new_versions.values(), _chain.from_iterable(map(_values, seen.values())))
    return any(type(v) is str for v in found)


def _is_fraction(text: str) -> bool:
    try:
        return 0 <= float(text) < 1
    except ValueError:
        return False


def _counters(versions: Mapping[str, Any]) -> dict[str, Any]:
    """``versions`` with each string of LangGraph's form replaced by its counter (others kept, to be refused)."""
    out = dict(versions)
    for channel, version in versions.items():
        if type(version) is str and (match := _LANGGRAPH_VERSION.fullmatch(version)) and _is_fraction(match[2]):
            out[channel] = int(match[1])
    return out
