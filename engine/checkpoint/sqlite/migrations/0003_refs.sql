-- 0003: rows that extend a list stored in another namespace or channel of the
-- thread (see engine/checkpoint/_chain.py, Ref), so that what a subgraph call
-- stores does not grow with the conversation it is handed.
--
-- ref_ns, ref_channel, ref_version: the blob row whose list value this row
--   extends (NULL, all three: no ref). A blob row with a ref has no
--   base_version; its data holds the items after that list (ref_key NULL) or
--   a dict whose ref_key entry holds them (a subgraph's input).
-- writes.ref_*: the same for a pending write (a subgraph's output handing
--   the whole conversation back to its parent).
-- The saver checks, in the write transaction, that the row a ref names
-- exists (as it does for base_version); prune keeps what kept rows name.

ALTER TABLE blobs ADD COLUMN ref_ns TEXT;
ALTER TABLE blobs ADD COLUMN ref_channel TEXT;
ALTER TABLE blobs ADD COLUMN ref_version INTEGER;
ALTER TABLE blobs ADD COLUMN ref_key TEXT;

ALTER TABLE writes ADD COLUMN ref_ns TEXT;
ALTER TABLE writes ADD COLUMN ref_channel TEXT;
ALTER TABLE writes ADD COLUMN ref_version INTEGER;
ALTER TABLE writes ADD COLUMN ref_key TEXT;
