-- email_audience: run by src/db/recipient.repository.ts

SELECT
  r.task_id,
  u.notification_settings AS settings
FROM
  task_recipients r
  JOIN api_users u ON u.id = r.user_id
WHERE
  r.task_id = ANY ($1::bigint[])
  AND r.email IS NOT NULL
  AND (u.notification_settings -> 'email' ->> 'enabled')::boolean;
