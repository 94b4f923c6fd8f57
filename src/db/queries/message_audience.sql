-- message_audience: run by src/db/recipient.repository.ts

SELECT
  a.task_id,
  a.settings,
  a.email,
  a.sms
FROM
  (
    SELECT
      r.task_id,
      u.notification_settings AS settings,
      r.email IS NOT NULL
      AND COALESCE((u.notification_settings -> 'email' ->> 'enabled')::boolean, false) AS email,
      r.phone_hash IS NOT NULL
      AND COALESCE((u.notification_settings -> 'sms' ->> 'enabled')::boolean, false) AS sms
    FROM
      task_recipients r
      JOIN api_users u ON u.id = r.user_id
    WHERE
      r.task_id = ANY ($1::bigint[])
  ) a
WHERE
  a.email
  OR a.sms;
