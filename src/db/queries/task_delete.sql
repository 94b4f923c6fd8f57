-- task_delete: run by src/db/task-deletes.ts

DELETE FROM tracking_tasks
WHERE
  id = ANY ($1::bigint[]);
