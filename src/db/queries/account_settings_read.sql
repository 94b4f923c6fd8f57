-- account_settings_read: run by src/db/account-settings.repository.ts

SELECT
  carrier_auto_correct AS "carrierAutoCorrect",
  carrier_auto_correct_hours AS "carrierAutoCorrectHours"
FROM
  api_users
WHERE
  id = $1;
