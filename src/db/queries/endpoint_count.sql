-- endpoint_count: run by src/db/webhook-endpoint.repository.ts

SELECT
  count(*)::int AS n
FROM
  webhook_endpoints
WHERE
  user_id = $1;
