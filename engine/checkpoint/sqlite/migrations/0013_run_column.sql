-- 0013: the run that wrote a version (engine.checkpoint.base.RUN_KEY) in a column of its own, its UUID's
-- 16 bytes, instead of its metadata (~60 bytes of JSON text: the key and the id), in every row of a
-- thread. A read puts it back into the metadata (a filter on RUN_KEY matches either place). Rows written
-- before keep it in their metadata (NULL here); a run id that is not a UUID's text stays there too.
ALTER TABLE checkpoints ADD COLUMN run_id BLOB;
