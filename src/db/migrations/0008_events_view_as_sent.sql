-- events_view holds the events exactly as the query endpoint sends them, eventTime included
-- (ISO 8601 in UTC with milliseconds, as JavaScript's toISOString writes it). The rebuild of every
-- task's view that this migration did is now the events view sync run after every migrate
-- (src/db/events-view.ts), which follows the shape the code defines: nothing left to do here.
SELECT 1;
