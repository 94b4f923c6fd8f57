-- secret_make: run by src/db/secrets.repository.ts

WITH
  made AS (
    INSERT INTO
      service_secrets (name, value)
    VALUES
      ($1, $2)
    ON CONFLICT (name) DO NOTHING
    RETURNING
      value
  )
SELECT
  value
FROM
  made
UNION ALL
SELECT
  value
FROM
  service_secrets
WHERE
  name = $1
LIMIT
  1;
