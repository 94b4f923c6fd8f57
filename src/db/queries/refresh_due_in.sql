-- refresh_due_in: run by src/db/refresh.repository.ts

SELECT
  EXTRACT(
    EPOCH
    FROM
      next_refresh_at - now()
  )::float8 * 1000 AS in_ms
FROM
  tracking_tasks
WHERE
  carrier_code = $1
  AND next_refresh_at IS NOT NULL
ORDER BY
  next_refresh_at
OFFSET
  $2
LIMIT
  1;
