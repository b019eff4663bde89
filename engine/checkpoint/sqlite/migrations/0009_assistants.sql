-- 0009: assistants (issue 33; see engine/checkpoint/_assistants.py).
--
-- assistants: each assistant's current version, a row per (tenant, assistant_id)
--   (tenant '': no tenants, or shared by every tenant, as each graph's default
--   assistant is). Its fields are the current version's, copied, so that a search
--   reads this table alone. config, context, metadata: JSON objects as text.
-- assistant_versions: every version of each, kept until the assistant is deleted.
-- assistants_graph, assistants_created, assistants_updated: a search's filter by
--   graph and its orders, within a tenant.

CREATE TABLE assistants (
    tenant TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    graph TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    config TEXT NOT NULL,
    context TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant, assistant_id)
);
CREATE INDEX assistants_graph ON assistants (tenant, graph);
CREATE INDEX assistants_created ON assistants (tenant, created_at);
CREATE INDEX assistants_updated ON assistants (tenant, updated_at);
CREATE TABLE assistant_versions (
    tenant TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    graph TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    config TEXT NOT NULL,
    context TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant, assistant_id, version)
);
