-- correction_finish: run by src/db/carrier-corrections.ts

WITH
  finished AS (
    UPDATE carrier_corrections
    SET
      finished_at = now()
    WHERE
      task_id = $1
  )
UPDATE tracking_tasks t
SET
  carrier_correction = (
    SELECT
      row_to_json(x)
    FROM
      (
        SELECT
          t.carrier_correction -> 'startedAt' AS "startedAt",
          to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "finishedAt",
          $2::text AS outcome,
          $3::json AS tried
      ) x
  ),
  updated_at = now()
WHERE
  t.id = $1;
