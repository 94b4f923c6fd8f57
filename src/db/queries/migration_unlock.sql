-- migration_unlock: run by src/db/migrator.ts

SELECT
  pg_advisory_unlock($1);
