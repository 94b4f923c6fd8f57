-- operator_sessions: run by src/db/operator.repository.ts

SELECT
  created_at,
  expires_at,
  address
FROM
  console_sessions
WHERE
  operator_id = $1
  AND expires_at > now()
ORDER BY
  created_at DESC;
