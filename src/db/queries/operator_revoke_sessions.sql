-- operator_revoke_sessions: run by src/db/operator.repository.ts

DELETE FROM console_sessions
WHERE
  operator_id = $1
  AND id_hash IS DISTINCT FROM $2
RETURNING
  id_hash;
