-- refresh_due_in: run by src/db/refresh.repository.ts

SELECT
  EXTRACT(
    EPOCH
    FROM
      s.next_refresh_at - now()
  )::float8 * 1000 AS in_ms
FROM
  unnest($3::text[]) AS c (carrier_code)
  CROSS JOIN LATERAL (
    SELECT
      d.next_refresh_at
    FROM
      task_schedule d
    WHERE
      d.carrier_code = c.carrier_code
      AND d.next_refresh_at IS NOT NULL
      AND d.task_id NOT IN (
        SELECT
          unnest(c.task_ids) AS task_id
        FROM
          refresh_claims c
        WHERE
          c.carrier_code = $1
          AND c.lease_until > now()
      )
    ORDER BY
      d.next_refresh_at
    LIMIT
      $2 + 1
  ) s
ORDER BY
  s.next_refresh_at
OFFSET
  $2
LIMIT
  1;
