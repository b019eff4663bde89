-- 0001: the first schema.
--
-- checkpoints: one row per version of a thread's state. `checkpoint` holds the
--   serialized meta (versions_seen...), not the values; the channel versions
--   are the `versions` column instead ({"channel": version}, json: it keeps the
--   channels' order and costs less to write than jsonb or arrays), so SQL can
--   find a checkpoint's blobs without Python. `metadata` is jsonb so list
--   filters compare it in SQL (`metadata -> key = value`). `ts` is kept as the
--   text the engine wrote, so it reads back unchanged.
-- blobs: one row per (channel, version): a full value (base_version NULL) or a
--   delta: the list items appended to the value at base_version (see
--   engine/checkpoint/_delta.py). The foreign key makes a delta's base
--   undeletable while the delta exists, and makes a delta on a missing base
--   fail to insert (the saver then writes the value full).
-- writes: pending writes of tasks, per checkpoint; special channels use fixed
--   negative idx values so a task re-writing them replaces the row.
-- Identifiers and ids compare bytewise (COLLATE "C"), as every saver sorts them.

CREATE TABLE checkpoints (
    thread_id text COLLATE "C" NOT NULL,
    checkpoint_ns text COLLATE "C" NOT NULL DEFAULT '',
    checkpoint_id text COLLATE "C" NOT NULL,
    parent_checkpoint_id text COLLATE "C",
    ts text NOT NULL,
    type text NOT NULL,
    checkpoint bytea NOT NULL,
    metadata jsonb NOT NULL DEFAULT '{}',
    versions json NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);

CREATE TABLE blobs (
    thread_id text COLLATE "C" NOT NULL,
    checkpoint_ns text COLLATE "C" NOT NULL DEFAULT '',
    channel text COLLATE "C" NOT NULL,
    version bigint NOT NULL,
    type text NOT NULL,
    data bytea NOT NULL,
    base_version bigint,
    seq integer NOT NULL DEFAULT 0,
    PRIMARY KEY (thread_id, checkpoint_ns, channel, version),
    CONSTRAINT blobs_base_fkey FOREIGN KEY (thread_id, checkpoint_ns, channel, base_version)
        REFERENCES blobs (thread_id, checkpoint_ns, channel, version)
);

-- The foreign key's reverse lookup (is this blob some delta's base?), run for
-- every deleted blob; full values (most rows but one per run) stay out of it.
CREATE INDEX blobs_base_idx ON blobs (thread_id, checkpoint_ns, channel, base_version)
    WHERE base_version IS NOT NULL;

CREATE TABLE writes (
    thread_id text COLLATE "C" NOT NULL,
    checkpoint_ns text COLLATE "C" NOT NULL DEFAULT '',
    checkpoint_id text COLLATE "C" NOT NULL,
    task_id text COLLATE "C" NOT NULL,
    idx integer NOT NULL,
    channel text NOT NULL,
    type text NOT NULL,
    data bytea NOT NULL,
    task_path text NOT NULL DEFAULT '',
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
