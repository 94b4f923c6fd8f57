-- refresh_due_in: run by src/db/refresh.repository.ts

SELECT
  EXTRACT(
    EPOCH
    FROM
      s.next_refresh_at - now()
  )::float8 * 1000 AS in_ms
FROM
  task_schedule s
WHERE
  s.carrier_code = $1
  AND s.next_refresh_at IS NOT NULL
  AND s.task_id NOT IN (
    SELECT
      unnest(c.task_ids) AS task_id
    FROM
      refresh_claims c
    WHERE
      c.carrier_code = $1
      AND c.lease_until > now()
  )
ORDER BY
  s.next_refresh_at
OFFSET
  $2
LIMIT
  1;
