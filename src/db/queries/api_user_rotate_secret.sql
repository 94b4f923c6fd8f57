-- api_user_rotate_secret: run by src/db/api-user.repository.ts

UPDATE api_users
SET
  previous_webhook_secret = webhook_secret,
  previous_webhook_secret_expires_at = now() + make_interval(secs => $3),
  webhook_secret = $2
WHERE
  id = $1
RETURNING
  id;
