-- The cache's first table: one row per full key.

CREATE TABLE cache_entries (
    ns text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    expires_at double precision,
    encoding text NOT NULL,
    value bytea NOT NULL,
    PRIMARY KEY (ns, key)
);

CREATE INDEX cache_entries_expiry ON cache_entries (expires_at) WHERE expires_at IS NOT NULL;
