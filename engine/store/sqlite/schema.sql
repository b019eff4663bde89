-- The store's current schema, applied as a whole to a database without it.
--
-- Must stay equal to applying every file in migrations/ in order: change it
-- by adding a numbered migration AND updating this file
-- (tests/store/test_migrations.py compares the two).
--
-- ns is the namespace as engine.store._rows encodes it: labels joined by
-- \x01, so its BINARY order is the tuples' order and a prefix is a key range.
-- Times are ISO 8601 UTC text of fixed width, so they compare as text.

CREATE TABLE store_items (
    ns TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,          -- JSON object
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    ttl_minutes REAL,             -- NULL: never expires
    expires_at TEXT,
    PRIMARY KEY (ns, key)
);

CREATE INDEX store_items_expiry ON store_items (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE store_vectors (
    ns TEXT NOT NULL,
    key TEXT NOT NULL,
    field TEXT NOT NULL,          -- the field path, with .N when it picked several texts
    vector BLOB NOT NULL,         -- little-endian float64s
    PRIMARY KEY (ns, key, field)
);
