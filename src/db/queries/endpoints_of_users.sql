-- endpoints_of_users: run by src/db/outbox-writes.ts

SELECT
  id,
  user_id,
  event_types,
  carrier_codes,
  milestones
FROM
  webhook_endpoints
WHERE
  user_id = ANY ($1::bigint[])
  AND enabled
ORDER BY
  id
FOR SHARE;
