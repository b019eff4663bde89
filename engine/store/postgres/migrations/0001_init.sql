-- The store's first tables: items (the value as JSON text), and their vectors.

CREATE TABLE store_items (
    ns text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    value text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    ttl_minutes double precision,
    expires_at timestamptz,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    PRIMARY KEY (ns, key)
);

CREATE INDEX store_items_expiry ON store_items (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE store_vectors (
    ns text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    field text COLLATE "C" NOT NULL,
    vector bytea NOT NULL,
    PRIMARY KEY (ns, key, field)
);
