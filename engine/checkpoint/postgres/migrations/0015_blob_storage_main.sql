-- 0015: a blob row's data stays in the table's own pages when it fits (STORAGE MAIN; compressed there
-- when that helps), moved out of line to TOAST only when the row could not fit a page otherwise. The rows
-- that gather K steps of a chat's messages (engine/checkpoint/_chain.py, ~7 KB compressed) went to TOAST
-- in ~2 KB chunks, each a tuple of its own with an index entry, and made TOAST's own free-space map.
-- Changes how new rows are stored, not the rows already there.
ALTER TABLE blobs ALTER COLUMN data SET STORAGE MAIN;
