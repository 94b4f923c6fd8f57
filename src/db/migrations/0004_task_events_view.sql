-- A task's events as the query endpoint shows them (the interface's event objects, in eventTime
-- order), kept on the task row. The query endpoint is read far more often than a task changes:
-- aggregating the events to JSON on every read was half of the database's work per query
-- (measured 5,800-6,400 reads/s against 9,000-13,700 with the events kept ready). tracking_events
-- stays the record (the refresh merges into it by event_key); the refresh rewrites this column in
-- the same transaction whenever a task gains events. Existing tasks get theirs from the events
-- view sync that follows every migrate (src/db/events-view.ts), which owns the column's contents.
ALTER TABLE tracking_tasks ADD COLUMN events_view json NOT NULL DEFAULT '[]';
