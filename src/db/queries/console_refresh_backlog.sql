-- console_refresh_backlog: run by src/db/console.repository.ts

SELECT
  c.carrier_code,
  due.due + failing.backing_off AS due,
  EXTRACT(
    EPOCH
    FROM
      now() - LEAST(due.oldest, failing.oldest)
  )::float8 AS oldest_seconds
FROM
  unnest($1::text[]) AS c (carrier_code)
  CROSS JOIN LATERAL (
    SELECT
      count(*)::int AS due,
      min(s.next_refresh_at) AS oldest
    FROM
      task_schedule s
    WHERE
      s.carrier_code = c.carrier_code
      AND s.next_refresh_at <= now()
  ) AS due
  CROSS JOIN LATERAL (
    SELECT
      count(*) FILTER (
        WHERE
          s.next_refresh_at > now()
      )::int AS backing_off,
      min(s.due_since) AS oldest
    FROM
      task_schedule s
    WHERE
      s.carrier_code = c.carrier_code
      AND s.due_since IS NOT NULL
  ) AS failing;
