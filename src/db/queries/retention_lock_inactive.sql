-- retention_lock_inactive: run by src/db/task-deletes.ts

SELECT
  id,
  user_id
FROM
  tracking_tasks
WHERE
  inactive_since < now() - make_interval(days => $1)
ORDER BY
  inactive_since
LIMIT
  $2
FOR UPDATE
  SKIP LOCKED;
