-- notification_user_view: run by src/db/recipient.repository.ts

SELECT
  u.notification_settings AS settings,
  count(*) FILTER (
    WHERE
      a.channel = 'email'
  )::int AS email,
  count(*) FILTER (
    WHERE
      a.channel = 'sms'
  )::int AS sms
FROM
  api_users u
  LEFT JOIN recipient_addresses a ON a.user_id = u.id
  AND a.suppressed_at IS NOT NULL
WHERE
  u.id = $1
GROUP BY
  u.id;
