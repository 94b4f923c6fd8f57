-- refresh_lock: run by src/db/refresh-writes.ts

SELECT
  t.id,
  t.user_id,
  t.standard_status,
  t.milestone,
  t.carrier_status,
  t.estimated_delivery_at,
  t.created_at,
  t.last_new_event_at
FROM
  tracking_tasks t
  JOIN unnest($1::bigint[], $2::text[]) AS c (id, lease_owner) ON c.id = t.id
  AND c.lease_owner = t.refresh_lease_owner
ORDER BY
  t.id
FOR UPDATE OF
  t;
