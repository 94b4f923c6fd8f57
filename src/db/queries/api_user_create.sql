-- api_user_create: run by src/db/api-user.repository.ts

WITH
  new_user AS (
    INSERT INTO
      api_users (name, webhook_secret)
    VALUES
      ($1, $2)
    RETURNING
      id
  )
INSERT INTO
  api_tokens (user_id, token_hash, prefix)
SELECT
  id,
  $3,
  $4
FROM
  new_user
RETURNING
  user_id,
  id AS token_id;
