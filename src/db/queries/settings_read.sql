-- settings_read: run by src/db/settings.repository.ts

SELECT
  batch_max_items AS "batchMaxItems",
  retention_days AS "retentionDays"
FROM
  settings
WHERE
  id;
