-- endpoint_lock_user: run by src/db/webhook-endpoint.repository.ts

SELECT
  1
FROM
  api_users
WHERE
  id = $1
FOR UPDATE;
