-- console_last_day: run by src/db/console.repository.ts

SELECT
  h.hour,
  count(d.id) FILTER (
    WHERE
      d.target = 'callback'
  )::int AS status_changes,
  count(d.id)::int AS deliveries,
  count(d.id) FILTER (
    WHERE
      d.status = 'success'
  )::int AS succeeded,
  count(d.id) FILTER (
    WHERE
      d.status = 'retry_wait'
  )::int AS retrying,
  count(d.id) FILTER (
    WHERE
      d.status = 'failed'
  )::int AS failed
FROM
  generate_series(date_trunc('hour', now()) - interval '23 hours', date_trunc('hour', now()), interval '1 hour') AS h (hour)
  LEFT JOIN (
    SELECT
      d.id,
      d.target,
      d.status,
      d.created_at
    FROM
      api_users u
      -- OFFSET 0 keeps the subquery per user (an index range each), whatever the table's size.
      CROSS JOIN LATERAL (
        SELECT
          id,
          target,
          status,
          created_at
        FROM
          deliveries
        WHERE
          user_id = u.id
          AND created_at >= date_trunc('hour', now()) - interval '23 hours'
        OFFSET
          0
      ) d
  ) d ON date_trunc('hour', d.created_at) = h.hour
GROUP BY
  h.hour
ORDER BY
  h.hour;
