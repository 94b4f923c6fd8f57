-- notify: run by src/db/notifier.ts

SELECT
  pg_notify ($1, $2);
