-- task_lock_for_delete: run by src/db/task-deletes.ts

SELECT
  id,
  user_id
FROM
  tracking_tasks
WHERE
  user_id = $1
  AND id = $2
FOR UPDATE;
