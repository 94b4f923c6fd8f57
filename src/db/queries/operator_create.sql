-- operator_create: run by src/db/operator.repository.ts

INSERT INTO
  operators (email, role, password_hash)
VALUES
  ($1, $2, $3)
ON CONFLICT (lower(email)) DO NOTHING
RETURNING
  id;
