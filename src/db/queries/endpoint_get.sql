-- endpoint_get: run by src/db/webhook-endpoint.repository.ts

SELECT
  id,
  url,
  description,
  event_types,
  carrier_codes,
  milestones,
  enabled,
  created_at,
  updated_at
FROM
  webhook_endpoints
WHERE
  user_id = $1
  AND id = $2;
