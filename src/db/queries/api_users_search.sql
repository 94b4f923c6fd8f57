-- api_users_search: run by src/db/api-user.repository.ts

SELECT
  id,
  name,
  created_at
FROM
  api_users
WHERE
  (
    $1::text IS NULL
    OR id = $2
    OR name ILIKE $1
  )
  AND id > $3
ORDER BY
  id
LIMIT
  $4;
