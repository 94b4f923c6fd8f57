-- recipient_purge_ended: run by src/db/recipient.repository.ts

DELETE FROM task_recipients r
WHERE
  r.task_id IN (
    SELECT
      e.task_id
    FROM
      task_recipients e
      JOIN tracking_tasks t ON t.id = e.task_id
    WHERE
      t.inactive_since < now() - make_interval(days => $1)
    LIMIT
      $2
    FOR UPDATE OF
      e SKIP LOCKED
  )
RETURNING
  r.task_id;
