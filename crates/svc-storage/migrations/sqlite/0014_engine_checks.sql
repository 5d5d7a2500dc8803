-- `auto` compares its engines at most once an hour instead of every 20th
-- run: the row says when the engines were last compared (a run that is due
-- claims the comparison by moving `checked_at`), and runs between
-- comparisons no longer write it.
ALTER TABLE engine_memory DROP COLUMN runs;
ALTER TABLE engine_memory RENAME COLUMN updated_at TO checked_at;
