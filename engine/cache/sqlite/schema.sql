-- The cache's current schema, applied as a whole to a database without it.
--
-- Must stay equal to applying every file in migrations/ in order: change it
-- by adding a numbered migration AND updating this file
-- (tests/cache/test_migrations.py compares the two).
--
-- ns and key are JSON text (engine.cache._sql): exact, and able to hold any
-- label. expires_at is seconds since the epoch on the writer's clock.

CREATE TABLE cache_entries (
    ns TEXT NOT NULL,             -- the namespace, a JSON array of strings
    key TEXT NOT NULL,            -- the key, a JSON string
    expires_at REAL,              -- seconds since the epoch; NULL: never expires
    encoding TEXT NOT NULL,       -- the serializer's type tag
    value BLOB NOT NULL,
    PRIMARY KEY (ns, key)
);

CREATE INDEX cache_entries_expiry ON cache_entries (expires_at) WHERE expires_at IS NOT NULL;
