-- refresh_lock: run by src/db/refresh-writes.ts

SELECT
  t.id,
  t.user_id,
  t.standard_status,
  t.milestone,
  t.carrier_status,
  t.estimated_delivery_at,
  t.created_at,
  t.last_new_event_at,
  t.carrier_code,
  t.origin_address ->> 'country' AS origin_country,
  t.origin_address ->> 'state' AS origin_state,
  t.destination_address ->> 'country' AS destination_country,
  t.destination_address ->> 'state' AS destination_state,
  t.transit_started_at,
  t.first_estimated_delivery_at,
  t.passed_exception,
  t.transit_counted
FROM
  tracking_tasks t
  JOIN task_schedule s ON s.task_id = t.id
  JOIN unnest($1::bigint[], $2::timestamptz[], $3::text[]) AS c (id, due_at, lease_token) ON c.id = t.id
WHERE
  s.next_refresh_at IS NOT DISTINCT FROM c.due_at
  AND EXISTS (
    SELECT
      1
    FROM
      refresh_claims l
    WHERE
      l.lease_token = c.lease_token
      AND l.lease_until > now()
  )
ORDER BY
  t.id
FOR UPDATE OF
  t,
  s;
