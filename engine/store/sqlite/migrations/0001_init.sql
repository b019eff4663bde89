-- The store's first schema: items, and their vectors for semantic search.

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
