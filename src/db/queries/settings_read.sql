-- settings_read: run by src/db/settings.repository.ts

SELECT
  batch_max_items AS "batchMaxItems",
  retention_days AS "retentionDays",
  prediction_sharing AS "predictionSharing",
  console_session_hours AS "consoleSessionHours",
  audit_retention_days AS "auditRetentionDays",
  recipient_retention_days AS "recipientRetentionDays",
  carrier_auto_correct AS "carrierAutoCorrect",
  carrier_auto_correct_hours AS "carrierAutoCorrectHours"
FROM
  settings
WHERE
  id;
