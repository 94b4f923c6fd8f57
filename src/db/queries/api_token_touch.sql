-- api_token_touch: run by src/db/api-user.repository.ts

UPDATE api_tokens
SET
  last_used_at = now()
WHERE
  token_hash = $1;
