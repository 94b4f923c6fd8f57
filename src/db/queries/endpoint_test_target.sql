-- endpoint_test_target: run by src/db/webhook-endpoint.repository.ts

SELECT
  url,
  secret,
  CASE
    WHEN previous_secret_expires_at > now() THEN previous_secret
  END AS previous
FROM
  webhook_endpoints
WHERE
  user_id = $1
  AND id = $2;
