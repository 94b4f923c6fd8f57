-- account_settings_save: run by src/db/account-settings.repository.ts

UPDATE api_users
SET
  carrier_auto_correct = $2,
  carrier_auto_correct_hours = $3
WHERE
  id = $1
RETURNING
  carrier_auto_correct AS "carrierAutoCorrect",
  carrier_auto_correct_hours AS "carrierAutoCorrectHours";
