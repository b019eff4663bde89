-- 0003: a lease names its holder's database session.
--
-- holder: the key of a session-level advisory lock that the holding process
--   keeps on a connection of its own while it lives (its presence, see
--   _leases.py). PostgreSQL releases the lock when that session ends, so a
--   lease whose holder's lock nobody holds is free at once, whatever its
--   expiry: a process killed mid-run does not keep its threads for the TTL.
--   NULL (rows written before this migration, or by a process that could not
--   take its lock): the lease lasts until it expires, as before.

ALTER TABLE leases ADD COLUMN holder bigint;
