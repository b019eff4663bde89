"""The metadata a put stores: the version's own, and what LangGraph's savers add from the put's config."""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Mapping
from typing import Any

from engine.checkpoint._shapes import EXCLUDED_METADATA_KEYS
from engine.checkpoint.base import RUN_KEY

__all__ = ["put_metadata", "split_run"]

#: configurable keys a version's metadata never takes from its config (LangGraph's set, frozen: read every put)
_NOT_FROM_CONFIG = frozenset(EXCLUDED_METADATA_KEYS)
_PLAIN = frozenset({str, int, float, bool})
#: keys a put's config had that no version takes: LangGraph's excluded ones and the private ones met so
#: far (``__pregel_runtime``...). A config whose keys are all here adds nothing, found in C: a run's
#: every put has the same few keys, and a loop over them was most of what this cost.
_never_copied: set[str] = set(_NOT_FROM_CONFIG)
_NEVER_COPIED_SIZE = 1024


def put_metadata(config: Mapping[str, Any], metadata: Mapping[str, Any]) -> Mapping[str, Any]:
    """The metadata a put stores: ``metadata``, and what LangGraph's savers add from the put's config.

    As LangGraph's ``get_checkpoint_metadata``: the plain values (str, int,
    float, bool) of ``config["metadata"]`` then ``config["configurable"]``, for
    keys the metadata lacks, not private (``__``) and not the thread's or
    checkpoint's ids. A run LangGraph itself drives (on one of these savers)
    gets its call's metadata in its versions so, as on its own savers; the
    engine's loop puts them in itself. The run that wrote the version
    (:data:`~engine.checkpoint.base.RUN_KEY`), private, is taken from the
    config's metadata too: a host running LangGraph names it there.
    """
    given_md = config.get("metadata")
    conf = config.get("configurable")
    if type(given_md) is not dict and isinstance(given_md, ChainMap):  # LangGraph's run config's: one dict
        given_md = given_md.maps[0] if len(given_md.maps) == 1 else _flat(given_md)
    if not given_md and not conf:
        return metadata
    out: dict[str, Any] | None = None  # made on the first key added: LangGraph's loop's config adds none
    for given in (given_md, conf):
        if not given or _never_copied.issuperset(given):  # nothing to take (found in C)
            continue
        for key, value in given.items():
            if key in metadata or (out is not None and key in out) or key in _NOT_FROM_CONFIG:
                continue
            if key.startswith("__"):
                if len(_never_copied) >= _NEVER_COPIED_SIZE:  # (set operations are atomic: no lock)
                    _never_copied.intersection_update(_NOT_FROM_CONFIG)
                _never_copied.add(key)
                continue
            if type(value) in _PLAIN or isinstance(value, (str, int, float, bool)):
                if out is None:
                    out = dict(metadata)
                out[key] = value
    run = given_md.get(RUN_KEY) if given_md else None
    if run is not None and RUN_KEY not in metadata:  # (private: the loop above never adds it)
        if out is None:
            out = dict(metadata)
        out[RUN_KEY] = run
    return metadata if out is None else out


def _flat(chain: ChainMap[str, Any]) -> Mapping[str, Any]:
    """``chain`` as one mapping: a key's value from the first map that has it, as ``chain[key]``."""
    out: dict[str, Any] = {}
    for m in reversed(chain.maps):
        out.update(m)
    return out


_UUID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def split_run(metadata: Mapping[str, Any]) -> tuple[Mapping[str, Any], str | None]:
    """``(metadata without the run, the run)`` for a saver with a column for the run that wrote a
    version (:data:`~engine.checkpoint.base.RUN_KEY`); a run id that is not a UUID's text as
    PostgreSQL prints one (lowercase, with hyphens) stays in the metadata: ``(metadata, None)``."""
    run = metadata.get(RUN_KEY)
    if type(run) is not str or len(run) != 36 or _UUID_TEXT.fullmatch(run) is None:
        return metadata, None
    out = dict(metadata)
    del out[RUN_KEY]
    return out, run
