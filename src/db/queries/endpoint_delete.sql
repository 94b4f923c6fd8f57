-- endpoint_delete: run by src/db/webhook-endpoint.repository.ts

DELETE FROM webhook_endpoints
WHERE
  user_id = $1
  AND id = $2
RETURNING
  id;
