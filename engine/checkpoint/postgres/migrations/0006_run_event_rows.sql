-- 0006: a run_events row holds the events of one write (see engine/checkpoint/_runs.py,
-- pack_events): seq is the first of them, last_seq the last. One event is stored as it
-- was sent, several are packed (a row costs more to insert than its bytes to copy: a run
-- streaming every event made a row per event). Rows written before this held one event.

ALTER TABLE run_events ADD COLUMN last_seq integer;
UPDATE run_events SET last_seq = seq;
ALTER TABLE run_events ALTER COLUMN last_seq SET NOT NULL;
