-- secret_read: run by src/db/secrets.repository.ts

SELECT
  value
FROM
  service_secrets
WHERE
  name = $1;
