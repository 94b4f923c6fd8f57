-- console_session_keep_once: run by src/db/console-session.repository.ts

UPDATE console_sessions
SET
  shown_once = $3,
  shown_once_path = $2,
  shown_once_until = now() + make_interval(secs => $4::float8 / 1000)
WHERE
  id_hash = $1;
