-- 0009: which run replaced which (issue 33, item 4: double-texting).
--
-- replaces: the run this one cancelled as it started (multitask strategy
--   INTERRUPT or ROLLBACK); replaced_by: the run that cancelled this one.
--   NULL when none (every row written before).

ALTER TABLE runs ADD COLUMN replaces text COLLATE "C";
ALTER TABLE runs ADD COLUMN replaced_by text COLLATE "C";
