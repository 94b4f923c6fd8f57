-- api_token_user: run by src/db/api-user.repository.ts

SELECT
  user_id
FROM
  api_tokens
WHERE
  token_hash = $1
  AND revoked_at IS NULL;
