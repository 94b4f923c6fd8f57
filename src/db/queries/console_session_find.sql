-- console_session_find: run by src/db/console-session.repository.ts

SELECT
  csrf_token,
  expires_at
FROM
  console_sessions
WHERE
  id_hash = $1
  AND expires_at > now();
