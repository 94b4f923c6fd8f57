-- api_user_get: run by src/db/api-user.repository.ts

SELECT
  id,
  name,
  created_at
FROM
  api_users
WHERE
  id = $1;
