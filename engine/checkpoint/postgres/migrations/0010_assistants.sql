-- 0010: assistants (issue 33; see engine/checkpoint/_assistants.py).
--
-- assistants: each assistant's current version, a row per (tenant, assistant_id)
--   (tenant '': no tenants, or shared by every tenant, as each graph's default
--   assistant is). Its fields are the current version's, copied, so that a search
--   reads this table alone.
-- assistant_versions: every version of each, kept until the assistant is deleted.
-- assistants_graph, assistants_created, assistants_updated: a search's filter by
--   graph and its orders, within a tenant; assistants_metadata: its metadata
--   filter (containment, @>).

CREATE TABLE assistants (
    tenant text COLLATE "C" NOT NULL,
    assistant_id text COLLATE "C" NOT NULL,
    version integer NOT NULL,
    graph text NOT NULL,
    name text NOT NULL,
    description text,
    config jsonb NOT NULL,
    context jsonb NOT NULL,
    metadata jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, assistant_id)
);
CREATE INDEX assistants_graph ON assistants (tenant, graph);
CREATE INDEX assistants_created ON assistants (tenant, created_at);
CREATE INDEX assistants_updated ON assistants (tenant, updated_at);
CREATE INDEX assistants_metadata ON assistants USING gin (metadata jsonb_path_ops);
CREATE TABLE assistant_versions (
    tenant text COLLATE "C" NOT NULL,
    assistant_id text COLLATE "C" NOT NULL,
    version integer NOT NULL,
    graph text NOT NULL,
    name text NOT NULL,
    description text,
    config jsonb NOT NULL,
    context jsonb NOT NULL,
    metadata jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, assistant_id, version)
);
