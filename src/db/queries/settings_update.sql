-- settings_update: run by src/db/settings.repository.ts

-- every setting at once
UPDATE settings
SET
  batch_max_items = $1,
  retention_days = $2,
  prediction_sharing = $3,
  updated_at = now()
WHERE
  id
RETURNING
  batch_max_items AS "batchMaxItems",
  retention_days AS "retentionDays",
  prediction_sharing AS "predictionSharing";
