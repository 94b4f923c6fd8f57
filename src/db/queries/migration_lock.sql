-- migration_lock: run by src/db/migrator.ts

SELECT
  pg_advisory_lock($1);
