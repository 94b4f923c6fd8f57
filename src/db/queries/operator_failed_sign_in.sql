-- operator_failed_sign_in: run by src/db/operator.repository.ts

UPDATE operators
SET
  failed_sign_ins = CASE
    WHEN failures_reset_at > now() THEN failed_sign_ins + 1
    ELSE 1
  END,
  failures_reset_at = CASE
    WHEN failures_reset_at > now() THEN failures_reset_at
    ELSE now() + make_interval(secs => $2::float8 / 1000)
  END
WHERE
  id = $1;
