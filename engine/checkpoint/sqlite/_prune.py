"""Pruning a thread's history in SQLite: read what it holds, plan, delete, in one transaction.

The rules are every saver's (:mod:`engine.checkpoint._retention`): per
namespace the checkpoints ``keep_last`` / ``older_than`` let go, and every
blob row no kept checkpoint reads, nor any pending write of one refers to
(a row's delta chain, across namespaces, stays whole).
"""

from __future__ import annotations

import sqlite3

from engine.checkpoint._helpers import load_meta, reading
from engine.checkpoint._inline import blob_versions
from engine.checkpoint._retention import Choose, blobs_to_keep
from engine.checkpoint._ts import read_ts
from engine.checkpoint.sqlite import _queries as q
from engine.serde import Serializer

__all__ = ["prune"]


def prune(cur: sqlite3.Cursor, serde: Serializer, thread_id: str, choose: Choose) -> int:
    """Prune ``thread_id`` inside the caller's write transaction, deleting what ``choose`` lets
    go (:mod:`engine.checkpoint._retention`); how many checkpoints went."""
    metas = cur.execute(q.SELECT_CHECKPOINT_METAS, (thread_id,)).fetchall()
    kept, deleted = choose([(ns, cid, read_ts(cid, ts)) for ns, cid, ts, _, _ in metas])
    if not deleted:
        return 0
    referenced: list[tuple[str, str, int]] = []
    for ns, cid, _, tag, data in metas:
        if (ns, cid) in kept:
            with reading(thread_id, cid):
                meta = load_meta(serde, cid, (tag, data))
            referenced.extend((ns, ch, v) for ch, v in blob_versions(meta).items())
    for ns, cid, ref_ns, ref_channel, ref_version in cur.execute(q.SELECT_WRITE_REFS, (thread_id,)).fetchall():
        if (ns, cid) in kept:
            referenced.append((ref_ns, ref_channel, ref_version))
    bases = {
        (ns, ch, v): base if rv is None else (rns, rch, rv)
        for ns, ch, v, base, rns, rch, rv in cur.execute(q.SELECT_BLOB_BASES, (thread_id,))
    }
    keep = blobs_to_keep(referenced, bases)
    gone = [(thread_id, ns, cid) for ns, cid in sorted(deleted)]
    cur.executemany(q.DELETE_WRITES, gone)
    cur.executemany(q.DELETE_CHECKPOINT, gone)
    cur.executemany(q.DELETE_BLOB, [(thread_id, *key) for key in bases if key not in keep])
    return len(deleted)
