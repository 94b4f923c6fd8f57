-- migration_record: run by src/db/migrator.ts

INSERT INTO
  schema_migrations (version, name)
VALUES
  ($1, $2);
