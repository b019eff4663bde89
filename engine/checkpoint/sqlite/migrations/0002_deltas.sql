-- 0002: append-only channels stored as deltas (see engine/checkpoint/_delta.py).
--
-- blobs.base_version: NULL for a full value; otherwise the version of the same
--   channel whose value this row's list items extend.
-- blobs.seq: the version's position in its append run (0 for a full value);
--   it picks the base of the next delta, so reads replay a bounded chain.

ALTER TABLE blobs ADD COLUMN base_version INTEGER;
ALTER TABLE blobs ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
