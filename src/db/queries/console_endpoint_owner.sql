-- console_endpoint_owner: run by src/db/console.repository.ts

SELECT
  user_id
FROM
  webhook_endpoints
WHERE
  id = $1;
