-- endpoint_update: run by src/db/webhook-endpoint.repository.ts

UPDATE webhook_endpoints
SET
  url = COALESCE($3, url),
  description = COALESCE($4, description),
  event_types = COALESCE($5, event_types),
  carrier_codes = COALESCE($6, carrier_codes),
  milestones = COALESCE($7, milestones),
  enabled = COALESCE($8, enabled),
  updated_at = now()
WHERE
  user_id = $1
  AND id = $2
RETURNING
  id,
  url,
  description,
  event_types,
  carrier_codes,
  milestones,
  enabled,
  created_at,
  updated_at;
