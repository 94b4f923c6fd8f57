-- console_session_find: run by src/db/console-session.repository.ts

SELECT
  s.csrf_token,
  s.expires_at,
  s.operator_id,
  o.email,
  o.role
FROM
  console_sessions s
  LEFT JOIN operators o ON o.id = s.operator_id
WHERE
  s.id_hash = $1
  AND s.expires_at > now()
  AND (
    s.operator_id IS NULL
    OR o.disabled_at IS NULL
  );
