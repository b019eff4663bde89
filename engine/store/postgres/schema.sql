-- The store's current tables, applied as a whole to a schema without them.
--
-- Must stay equal to applying every file in migrations/ in order: change them
-- by adding a numbered migration AND updating this file
-- (tests/store/test_migrations.py compares the two catalogs).
--
-- ns is the namespace as engine.store._rows encodes it: labels joined by
-- \x01, so under COLLATE "C" its order is the tuples' order and a prefix is a
-- key range of the primary key. seq is when the key was first written (an
-- upsert keeps it): the order a search returns items in.

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
