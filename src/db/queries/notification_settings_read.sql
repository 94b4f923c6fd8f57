-- notification_settings_read: run by src/db/recipient.repository.ts

SELECT
  notification_settings AS settings
FROM
  api_users
WHERE
  id = $1;
