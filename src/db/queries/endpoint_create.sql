-- endpoint_create: run by src/db/webhook-endpoint.repository.ts

INSERT INTO
  webhook_endpoints (user_id, url, description, event_types, carrier_codes, milestones, enabled, secret)
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8)
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
