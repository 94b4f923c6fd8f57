-- task_lock_for_move: run by src/db/carrier-changes.ts

SELECT
  t.id,
  t.user_id,
  t.carrier_code,
  t.tracking_number,
  COALESCE(json_array_length(t.carrier_changes), 0) AS changes,
  t.standard_status = 'pending'
  AND json_array_length(t.events_view) = 0 AS unknown
FROM
  tracking_tasks t
WHERE
  t.id = $2
  AND (
    $1::bigint IS NULL
    OR t.user_id = $1
  )
FOR UPDATE OF
  t;
