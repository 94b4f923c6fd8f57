-- operator_signed_in: run by src/db/operator.repository.ts

UPDATE operators
SET
  failed_sign_ins = 0,
  failures_reset_at = NULL
WHERE
  id = $1;
