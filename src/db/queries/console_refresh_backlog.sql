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
          now() - min(s.next_refresh_at)
      )::float8 AS oldest_seconds
    FROM
      task_schedule s
    WHERE
      s.carrier_code = c.carrier_code
      AND s.next_refresh_at <= now()
  ) AS due;
