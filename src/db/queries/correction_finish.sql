-- correction_finish: run by src/db/carrier-corrections.ts

UPDATE carrier_corrections
SET
  finished_at = now(),
  outcome = $2,
  tried = $3::json
WHERE
  task_id = $1;
