-- console_task_owner: run by src/db/console.repository.ts

SELECT
  u.id,
  u.name
FROM
  tracking_tasks t
  JOIN api_users u ON u.id = t.user_id
WHERE
  t.id = $1;
