-- 0002: leases, one run per thread across replicas.
--
-- leases: one row per thread that was ever leased. A host takes the row
--   before a run (owner, expires_at), renews it while the run lasts and lets
--   it lapse on release; every checkpoint write carrying the lease commits
--   only if, in the same transaction, the row still has the writer's owner and
--   epoch and has not expired (see _queries.py, FENCE_PUT / FENCE_WRITES).
--   `epoch` grows by one at each change of holder and the row is never
--   deleted (not even with its thread), so an old holder's token can never
--   match again. `head`: the checkpoint id the holder last wrote in the root
--   namespace (NULL until it writes one): its next version must have it as
--   parent. Times are the database's clock (clock_timestamp()), never a replica's.

CREATE TABLE leases (
    thread_id text COLLATE "C" NOT NULL,
    owner text NOT NULL,
    epoch bigint NOT NULL,
    expires_at timestamptz NOT NULL,
    head text COLLATE "C",
    PRIMARY KEY (thread_id)
);
