-- settings_update: run by src/db/settings.repository.ts

-- every setting at once
UPDATE settings
SET
  batch_max_items = $1,
  retention_days = $2,
  prediction_sharing = $3,
  console_session_hours = $4,
  audit_retention_days = $5,
  recipient_retention_days = $6,
  carrier_auto_correct = $7,
  carrier_auto_correct_hours = $8,
  updated_at = now()
WHERE
  id
RETURNING
  batch_max_items AS "batchMaxItems",
  retention_days AS "retentionDays",
  prediction_sharing AS "predictionSharing",
  console_session_hours AS "consoleSessionHours",
  audit_retention_days AS "auditRetentionDays",
  recipient_retention_days AS "recipientRetentionDays",
  carrier_auto_correct AS "carrierAutoCorrect",
  carrier_auto_correct_hours AS "carrierAutoCorrectHours";
