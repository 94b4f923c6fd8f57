-- console_refresh_backlog: run by src/db/console.repository.ts

SELECT
  c.carrier_code,
  due.due,
  due.oldest_seconds
FROM
  unnest($1::text[]) AS c (carrier_code)
  CROSS JOIN LATERAL (
    SELECT
      count(*)::int AS due,
      EXTRACT(
        EPOCH
        FROM
          now() - min(t.next_refresh_at)
      )::float8 AS oldest_seconds
    FROM
      tracking_tasks t
    WHERE
      t.carrier_code = c.carrier_code
      AND t.next_refresh_at <= now()
  ) AS due;
