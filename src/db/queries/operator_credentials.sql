-- operator_credentials: run by src/db/operator.repository.ts

SELECT
  id,
  email,
  role,
  password_hash,
  disabled_at IS NOT NULL AS disabled,
  CASE
    WHEN failures_reset_at > now() THEN failed_sign_ins
    ELSE 0
  END AS failed_sign_ins,
  failures_reset_at
FROM
  operators
WHERE
  lower(email) = lower($1);
