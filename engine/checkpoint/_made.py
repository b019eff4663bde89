"""Checkpoints the engine made: their versions are not walked again on every put.

:func:`~engine.checkpoint._versions.check_versions` refuses a checkpoint whose
channel versions are not integers before a saver stores it. For a caller's
checkpoint that walks ``channel_versions``, O(channels) on every put,
although a step changes only the channels it wrote. A checkpoint the
engine's own loop made (:class:`MadeCheckpoint`, from
:func:`engine.pregel._writer.new_version`) has only integer versions by
construction: they are :func:`~engine._internal._ids.next_version`'s, or were
read back from a saver, which refused anything else when they were put. So
for it only the put's ``new_versions`` are checked.

A checkpoint built anywhere else (a caller's, one read back from storage, a
LangGraph program's) is a plain dict and gets the full check.
"""

from __future__ import annotations

__all__ = ["MadeCheckpoint"]


class MadeCheckpoint(dict):
    """A checkpoint made by the engine's loop (see the module's docstring)."""

    __slots__ = ()
