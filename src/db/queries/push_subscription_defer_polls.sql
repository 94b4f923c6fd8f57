-- push_subscription_defer_polls: run by src/db/push-subscription.repository.ts

UPDATE task_schedule s
SET
  next_refresh_at = s.last_fetched_at + make_interval(secs => $3::float8 / 1000)
FROM
  route_tasks rt
WHERE
  rt.carrier_code = $1
  AND rt.tracking_number = ANY ($2::text[])
  AND s.task_id = rt.task_id
  AND s.carrier_code = rt.carrier_code
  AND s.last_fetched_at IS NOT NULL
  AND s.refresh_failures = 0
  AND s.next_refresh_at < s.last_fetched_at + make_interval(secs => $3::float8 / 1000)
  AND s.task_id NOT IN (
    SELECT
      unnest(c.task_ids) AS task_id
    FROM
      refresh_claims c
    WHERE
      c.carrier_code = $1
      AND c.lease_until > now()
  );
