-- refresh_release_failed: run by src/db/refresh.repository.ts

UPDATE tracking_tasks t
SET
  refresh_failures = t.refresh_failures + 1,
  next_refresh_at = now() + make_interval(secs => f.retry_in_ms / 1000),
  refresh_lease_owner = NULL,
  refresh_lease_until = NULL
FROM
  unnest($1::bigint[], $2::text[], $3::float8[]) AS f (id, lease_owner, retry_in_ms)
WHERE
  t.id = f.id
  AND t.refresh_lease_owner = f.lease_owner;
