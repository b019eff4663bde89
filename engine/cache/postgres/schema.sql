-- The cache's current table, applied as a whole to a schema without it.
--
-- Must stay equal to applying every file in migrations/ in order: change them
-- by adding a numbered migration AND updating this file
-- (tests/cache/test_migrations.py compares the two catalogs).
--
-- ns is the namespace as a JSON array, key the key as a JSON string
-- (engine.cache._sql): exact, and able to hold any label, NUL included.
-- expires_at is seconds since the epoch on the writer's clock (NULL: never);
-- to_timestamp(expires_at) reads it as a time.

CREATE TABLE cache_entries (
    ns text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    expires_at double precision,
    encoding text NOT NULL,
    value bytea NOT NULL,
    PRIMARY KEY (ns, key)
);

CREATE INDEX cache_entries_expiry ON cache_entries (expires_at) WHERE expires_at IS NOT NULL;
