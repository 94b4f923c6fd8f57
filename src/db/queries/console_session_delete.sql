-- console_session_delete: run by src/db/console-session.repository.ts

DELETE FROM console_sessions
WHERE
  id_hash = $1;
