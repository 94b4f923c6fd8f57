-- console_session_take_once: run by src/db/console-session.repository.ts

UPDATE console_sessions s
SET
  shown_once = NULL,
  shown_once_path = NULL,
  shown_once_until = NULL
FROM
  (
    SELECT
      id_hash,
      shown_once,
      shown_once_path,
      shown_once_until
    FROM
      console_sessions
    WHERE
      id_hash = $1
    FOR UPDATE
  ) kept
WHERE
  s.id_hash = kept.id_hash
  AND kept.shown_once_path = $2
RETURNING
  CASE
    WHEN kept.shown_once_until > now() THEN kept.shown_once
  END AS shown_once;
