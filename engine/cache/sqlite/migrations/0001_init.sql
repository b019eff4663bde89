-- The cache's first table: one row per full key.

CREATE TABLE cache_entries (
    ns TEXT NOT NULL,             -- the namespace, a JSON array of strings
    key TEXT NOT NULL,            -- the key, a JSON string
    expires_at REAL,              -- seconds since the epoch; NULL: never expires
    encoding TEXT NOT NULL,       -- the serializer's type tag
    value BLOB NOT NULL,
    PRIMARY KEY (ns, key)
);

CREATE INDEX cache_entries_expiry ON cache_entries (expires_at) WHERE expires_at IS NOT NULL;
