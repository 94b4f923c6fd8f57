-- The list's `active=false` reads an index of the user's inactive tasks in the page's order, as
-- `active=true` reads its own (migration 0015). Walking the sort's index past the active tasks
-- read a heap row for each: in an account whose newest tasks are the active ones (as they are),
-- the newest-first page of inactive tasks passed all of them (1,000,000 tasks, the newest 50,000
-- active: 17 ms a page by creation, 23 ms by change). Partial: a task enters it once, when it
-- stops being fetched, and new tasks (active) never do, so subscribing pays nothing for it. Built
-- under a lock that holds the table's writes: both together 2.4 s over 1,000,000 tasks of which
-- 950,000 inactive (37 MB each).
CREATE INDEX tracking_tasks_user_inactive_created_idx ON tracking_tasks (user_id, created_at, id) WHERE next_refresh_at IS NULL;
CREATE INDEX tracking_tasks_user_inactive_updated_idx ON tracking_tasks (user_id, updated_at, id) WHERE next_refresh_at IS NULL;
