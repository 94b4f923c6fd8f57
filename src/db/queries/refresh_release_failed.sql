-- refresh_release_failed: run by src/db/refresh.repository.ts

UPDATE task_schedule s
SET
  refresh_failures = s.refresh_failures + 1,
  -- waiting since the due time this fetch missed, however far backoffs move it
  due_since = COALESCE(s.due_since, s.next_refresh_at),
  next_refresh_at = now() + make_interval(secs => f.retry_in_ms / 1000)
FROM
  unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::float8[]) AS f (task_id, due_at, lease_token, retry_in_ms)
WHERE
  s.task_id = f.task_id
  AND s.next_refresh_at IS NOT DISTINCT FROM f.due_at
  AND EXISTS (
    SELECT
      1
    FROM
      refresh_claims l
    WHERE
      l.lease_token = f.lease_token
      AND l.lease_until > now()
  );
