-- api_users_list: run by src/db/api-user.repository.ts

SELECT
  id,
  name,
  created_at
FROM
  api_users
ORDER BY
  id;
