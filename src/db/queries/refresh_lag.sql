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
      next_refresh_at
    FROM
      tracking_tasks t
    WHERE
      t.carrier_code = c.carrier_code
      AND t.next_refresh_at <= now()
    ORDER BY
      t.next_refresh_at
    LIMIT
      1
  ) AS oldest;
