-- refresh_lag: run by src/db/refresh.repository.ts

SELECT
  EXTRACT(
    EPOCH
    FROM
      now() - min(oldest.next_refresh_at)
  )::float8 AS lag
FROM
  unnest($1::text[]) AS c (carrier_code)
  CROSS JOIN LATERAL (
    SELECT
      s.next_refresh_at
    FROM
      task_schedule s
    WHERE
      s.carrier_code = c.carrier_code
      AND s.next_refresh_at <= now()
    ORDER BY
      s.next_refresh_at
    LIMIT
      1
  ) AS oldest;
