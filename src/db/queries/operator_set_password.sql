-- operator_set_password: run by src/db/operator.repository.ts

UPDATE operators
SET
  password_hash = $2
WHERE
  id = $1
RETURNING
  id;
