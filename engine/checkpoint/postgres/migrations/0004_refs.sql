-- 0004: rows that extend a list stored in another namespace or channel of the
-- thread (see engine/checkpoint/_chain.py, Ref), so that what a subgraph call
-- stores does not grow with the conversation it is handed.
--
-- ref_ns, ref_channel, ref_version: the blob row whose list value this row
--   extends (NULL, all three: no ref). A blob row with a ref has no
--   base_version; its data holds the items after that list (ref_key NULL) or
--   a dict whose ref_key entry holds them (a subgraph's input).
-- writes.ref_*: the same for a pending write (a subgraph's output handing
--   the whole conversation back to its parent).
-- The foreign keys keep a row from losing what it extends (a prune or a
-- delete removes the rows that refer first, in the same statement); their
-- reverse lookups use the partial indexes.

ALTER TABLE blobs ADD COLUMN ref_ns text COLLATE "C";
ALTER TABLE blobs ADD COLUMN ref_channel text COLLATE "C";
ALTER TABLE blobs ADD COLUMN ref_version bigint;
ALTER TABLE blobs ADD COLUMN ref_key text;
ALTER TABLE blobs ADD CONSTRAINT blobs_ref_fkey FOREIGN KEY (thread_id, ref_ns, ref_channel, ref_version)
    REFERENCES blobs (thread_id, checkpoint_ns, channel, version);
CREATE INDEX blobs_ref_idx ON blobs (thread_id, ref_ns, ref_channel, ref_version)
    WHERE ref_version IS NOT NULL;

ALTER TABLE writes ADD COLUMN ref_ns text COLLATE "C";
ALTER TABLE writes ADD COLUMN ref_channel text COLLATE "C";
ALTER TABLE writes ADD COLUMN ref_version bigint;
ALTER TABLE writes ADD COLUMN ref_key text;
ALTER TABLE writes ADD CONSTRAINT writes_ref_fkey FOREIGN KEY (thread_id, ref_ns, ref_channel, ref_version)
    REFERENCES blobs (thread_id, checkpoint_ns, channel, version);
CREATE INDEX writes_ref_idx ON writes (thread_id, ref_ns, ref_channel, ref_version)
    WHERE ref_version IS NOT NULL;
