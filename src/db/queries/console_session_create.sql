-- console_session_create: run by src/db/console-session.repository.ts

WITH
  expired AS (
    DELETE FROM console_sessions
    WHERE
      expires_at < now()
  )
INSERT INTO
  console_sessions (id_hash, csrf_token, expires_at, operator_id, address)
VALUES
  ($1, $2, now() + make_interval(secs => $3::float8 / 1000), $4, $5);
