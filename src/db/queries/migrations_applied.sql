-- migrations_applied: run by src/db/migrator.ts

SELECT
  version
FROM
  schema_migrations;
