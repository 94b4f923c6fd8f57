-- api_token_revoke: run by src/db/api-user.repository.ts

UPDATE api_tokens
SET
  revoked_at = COALESCE(revoked_at, now())
WHERE
  id = $1
  AND user_id = $2
RETURNING
  id;
