-- recipient_remove: run by src/db/recipient.repository.ts

WITH
  task AS (
    SELECT
      id
    FROM
      tracking_tasks
    WHERE
      user_id = $1
      AND id = $2
  ),
  removed AS (
    DELETE FROM task_recipients r USING task
    WHERE
      r.task_id = task.id
  )
SELECT
  EXISTS (
    SELECT
    FROM
      task
  ) AS found;
