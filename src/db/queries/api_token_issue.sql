-- api_token_issue: run by src/db/api-user.repository.ts

INSERT INTO
  api_tokens (user_id, token_hash, prefix)
SELECT
  id,
  $2,
  $3
FROM
  api_users
WHERE
  id = $1
RETURNING
  id;
