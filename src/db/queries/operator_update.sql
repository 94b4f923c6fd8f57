-- operator_update: run by src/db/operator.repository.ts

UPDATE operators
SET role = COALESCE($2, role),
disabled_at = CASE
  WHEN $3::boolean IS NULL THEN disabled_at
  WHEN $3 THEN COALESCE(disabled_at, now())
END
WHERE
  id = $1
RETURNING
  id;
