-- The list's `active` filter reads an index of the user's active tasks in the page's order.
-- Walking the sort's index and skipping inactive tasks read a heap row for every task passed: in
-- an account whose active parcels are its newest, the oldest-first page of active tasks passed
-- all the delivered ones (1,000,000 tasks, 50,000 active: 273 ms a page). Partial, so that only
-- active tasks are in it (inactive ones are the many, and rarely written); `active=false` walks
-- the sort's index past the active ones, which are the few. Built under a lock that holds the
-- table's writes: 0.2 s each over 1,000,000 tasks of which 230,000 active (9 MB each).
CREATE INDEX tracking_tasks_user_active_created_idx ON tracking_tasks (user_id, created_at, id) WHERE next_refresh_at IS NOT NULL;
CREATE INDEX tracking_tasks_user_active_updated_idx ON tracking_tasks (user_id, updated_at, id) WHERE next_refresh_at IS NOT NULL;
