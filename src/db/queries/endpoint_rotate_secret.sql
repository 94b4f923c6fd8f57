-- endpoint_rotate_secret: run by src/db/webhook-endpoint.repository.ts

UPDATE webhook_endpoints
SET
  previous_secret = secret,
  previous_secret_expires_at = now() + make_interval(secs => $4),
  secret = $3,
  updated_at = now()
WHERE
  user_id = $1
  AND id = $2
RETURNING
  id;
