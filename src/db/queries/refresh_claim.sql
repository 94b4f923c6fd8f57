-- refresh_claim: run by src/db/refresh.repository.ts

UPDATE tracking_tasks t
SET
  next_refresh_at = now() + make_interval(secs => $3::float8 / 1000),
  refresh_lease_until = now() + make_interval(secs => $3::float8 / 1000),
  refresh_lease_owner = $4
WHERE
  t.id IN (
    SELECT
      id
    FROM
      tracking_tasks
    WHERE
      carrier_code = $1
      AND next_refresh_at <= now()
    ORDER BY
      next_refresh_at
    LIMIT
      $2
    FOR UPDATE
      SKIP LOCKED
  )
RETURNING
  t.id,
  t.carrier_code,
  t.tracking_number,
  t.refresh_failures;
