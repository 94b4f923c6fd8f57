-- api_token_user: run by src/db/api-user.repository.ts

SELECT
  user_id,
  last_used_at IS NULL
  OR last_used_at < now() - interval '1 minute' AS use_stale
FROM
  api_tokens
WHERE
  token_hash = $1
  AND revoked_at IS NULL;
