-- refresh_schedule_fetched: run by src/db/refresh-writes.ts

UPDATE task_schedule s
SET
  next_refresh_at = now() + make_interval(secs => u.next_refresh_in_ms / 1000),
  refresh_failures = 0,
  due_since = NULL,
  last_fetched_at = now()
FROM
  unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::float8[]) AS u (task_id, due_at, lease_token, next_refresh_in_ms)
WHERE
  s.task_id = u.task_id
  AND s.next_refresh_at IS NOT DISTINCT FROM u.due_at
  AND EXISTS (
    SELECT
      1
    FROM
      refresh_claims l
    WHERE
      l.lease_token = u.lease_token
      AND l.lease_until > now()
  )
RETURNING
  s.task_id;
