-- recipient_of: run by src/db/recipient.repository.ts

SELECT
  r.email,
  r.phone,
  r.name,
  r.language
FROM
  tracking_tasks t
  LEFT JOIN task_recipients r ON r.task_id = t.id
WHERE
  t.user_id = $1
  AND t.id = $2;
