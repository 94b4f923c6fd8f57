-- notification_settings_save: run by src/db/recipient.repository.ts

UPDATE api_users
SET
  notification_settings = $2::json
WHERE
  id = $1;
