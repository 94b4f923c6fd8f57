-- api_tokens_list: run by src/db/api-user.repository.ts

SELECT
  t.id,
  t.created_at,
  t.revoked_at,
  t.prefix,
  t.last_used_at
FROM
  api_users u
  LEFT JOIN api_tokens t ON t.user_id = u.id
WHERE
  u.id = $1
ORDER BY
  t.id;
