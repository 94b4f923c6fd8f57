-- task_lock_for_move: run by src/db/carrier-changes.ts

SELECT
  t.id,
  t.user_id,
  t.carrier_code,
  t.tracking_number,
  (
    SELECT
      count(*)::int
    FROM
      carrier_changes c
    WHERE
      c.task_id = t.id
  ) AS changes
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
