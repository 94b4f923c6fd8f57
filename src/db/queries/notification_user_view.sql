-- notification_user_view: run by src/db/recipient.repository.ts

SELECT
  u.notification_settings AS settings,
  (
    SELECT
      count(*)::int
    FROM
      recipient_addresses a
    WHERE
      a.user_id = u.id
      AND a.channel = 'email'
      AND a.suppressed_at IS NOT NULL
  ) AS email,
  (
    SELECT
      count(*)::int
    FROM
      recipient_addresses a
    WHERE
      a.user_id = u.id
      AND a.channel = 'sms'
      AND a.suppressed_at IS NOT NULL
  ) AS sms
FROM
  api_users u
WHERE
  u.id = $1;
